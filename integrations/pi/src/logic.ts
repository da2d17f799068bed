// Pure decisions of the bridge: what the footer says, what a wake-up message holds, how a
// slash command's words become arguments. No I/O here (unit-tested by `npm test`).

export interface ToolResult {
  text: string;
  data: Record<string, unknown>;
  isError: boolean;
}

export interface Wakeup {
  jobId: string;
  text: string;
  [key: string]: unknown;
}

export const FOOTER_KEY = "oracle";

const AUTH_CODES = /^auth_/;
const BROWSER_CODES = /^browser_/;

export interface Readiness {
  label: string; // the footer text
  blocker?: string; // the error code when not ready
  warn: boolean; // whether this blocker deserves a warning (browser and config ones do)
}

/** The footer for an `oracle_preflight` result: ready, auth needed, browser unavailable,
 * config error (or no session, when pi has no persisted session). */
export function readiness(result: ToolResult): Readiness {
  if (!result.isError) return { label: "oracle: ready", warn: false };
  const error = (result.data.error ?? {}) as { code?: unknown };
  const code = typeof error.code === "string" ? error.code : "internal_error";
  if (code === "persisted_session_required" || code === "invalid_session_id") {
    return { label: "oracle: no session", blocker: code, warn: false };
  }
  if (AUTH_CODES.test(code)) return { label: "oracle: auth needed", blocker: code, warn: false };
  if (BROWSER_CODES.test(code)) return { label: "oracle: browser unavailable", blocker: code, warn: true };
  return { label: "oracle: config error", blocker: code, warn: true };
}

/** Warnings to raise for a readiness: one per distinct blocker over the session's life. */
export function newWarning(state: Readiness, warned: Set<string>): string | undefined {
  if (!state.warn || state.blocker === undefined || warned.has(state.blocker)) return undefined;
  warned.add(state.blocker);
  return state.blocker;
}

export const WAKEUPS_STOPPED = "oracle: wake-ups stopped";

/** The footer: the readiness, unless the wake-up channel is down (then nothing would tell the
 * session a job ended, which matters more). */
export function footerLabel(state: Readiness | undefined, wakeupsDown: boolean): string | undefined {
  return wakeupsDown ? WAKEUPS_STOPPED : state?.label;
}

/** A wake-up channel that lived this long before it ended was not failing: backoff restarts. */
export const STABLE_MS = 60_000;
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 30_000;

/** How long to wait before the wake-up channel's restart after `failures` ends in a row
 * (1, 2, 4, ... s, at most 30 s: it is retried for as long as the session lives). */
export function restartDelay(failures: number): number {
  return Math.min(RESTART_FIRST_MS * 2 ** Math.max(0, failures - 1), RESTART_MAX_MS);
}

/** The wake-ups of a claimed batch worth a message, and whether that message starts a turn. */
export interface Delivery {
  show: Wakeup[];
  triggerTurn: boolean;
}

// oraculum's attempt of a wake-up is 1 when first told, then one per reminder.
const LAST_SHOWN_ATTEMPT = 2;

/** What to show of a claimed batch: a wake-up and at most one reminder (a model that did not
 * read it after that will not because of a third); a job this session cancelled itself once,
 * without a turn (nothing is left to do about it). Nothing shown is still committed. */
export function planDelivery(wakeups: Wakeup[], cancelledHere: ReadonlySet<string>): Delivery {
  const show: Wakeup[] = [];
  let triggerTurn = false;
  for (const wakeup of wakeups) {
    const attempt = typeof wakeup.attempt === "number" ? wakeup.attempt : 1;
    const ownCancel = wakeup.status === "cancelled" && cancelledHere.has(wakeup.jobId);
    if (attempt > (ownCancel ? 1 : LAST_SHOWN_ATTEMPT)) continue;
    show.push(wakeup);
    triggerTurn ||= !ownCancel;
  }
  return { show, triggerTurn };
}

/** The job a successful `oracle_cancel` call is about: the id it named (its result carries
 * only the outcome; an error cancelled nothing). */
export function cancelledJob(result: ToolResult, args: unknown): string | undefined {
  const jobId = result.isError ? undefined : (args as { jobId?: unknown } | undefined)?.jobId;
  return typeof jobId === "string" ? jobId : undefined;
}

/** One message for every wake-up claimed together (jobs that ended together). */
export function wakeupMessage(wakeups: Wakeup[]): string {
  return wakeups.map((wakeup) => wakeup.text.trim()).join("\n\n");
}

/** The first word and the rest of a slash command's argument text. */
export function splitFirst(args: string): [string, string] {
  const trimmed = args.trim();
  const space = trimmed.search(/\s/);
  if (space < 0) return [trimmed, ""];
  return [trimmed.slice(0, space), trimmed.slice(space).trim()];
}

/** `/oracle <request>` or `/oracle-followup <job> <request>` typed as input: the prompt's name
 * and its arguments for `oraculum bridge prompt`; undefined for any other input. */
export function dispatchRequest(text: string): { name: string; args: string[] } | undefined {
  const match = /^\/(oracle|oracle-followup)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const name = match[1];
  const rest = (match[2] ?? "").trim();
  if (name === "oracle") return { name, args: rest ? [rest] : [] };
  const [job, request] = splitFirst(rest);
  return { name, args: [job, request].filter((part) => part !== "") };
}

/** Tool arguments for a command taking an optional job id (`/oracle-read [job]`). */
export function jobArguments(args: string): Record<string, string> {
  const [job] = splitFirst(args);
  return job ? { jobId: job } : {};
}

/** `/oracle-council chatgpt:pro_extended,grok:heavy <question>`: oracle_council's arguments
 * (the project's whole archive, as `/oracle` sends); undefined without members or a question. */
export function councilArguments(args: string): { members: string[]; prompt: string; files: string[] } | undefined {
  const [first, prompt] = splitFirst(args);
  const members = first.split(",").map((member) => member.trim()).filter((member) => member !== "");
  if (members.length === 0 || !members.every((member) => /^[\w.-]+:[\w.-]+$/.test(member)) || !prompt) {
    return undefined;
  }
  return { members, prompt, files: ["."] };
}

/** A prompt template file: pi's front matter, then the template oraculum gave. */
export function templateFile(description: string, hint: string, body: string): string {
  return `---\ndescription: ${JSON.stringify(description)}\nargument-hint: ${JSON.stringify(hint)}\n---\n${body}`;
}

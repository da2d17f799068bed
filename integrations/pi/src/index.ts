// oraculum as a pi package: the oracle tools, the /oracle commands, a readiness footer and
// wake-ups that start a turn. Thin: each session's tool calls go to one `oraculum bridge
// serve` child, its wake-ups come from one `oraculum wakeups serve` child (restarted when it
// dies), anything else is one `oraculum --json ...` call.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";

import {
  cancelledJob,
  dispatchRequest,
  FOOTER_KEY,
  footerLabel,
  councilArguments,
  jobArguments,
  newWarning,
  readiness,
  type Readiness,
  templateFile,
  type ToolResult,
  type Wakeup,
} from "./logic.ts";
import {
  DEFAULT_PROFILE,
  jsonDocument,
  oraculumExecutable,
  oraculumProfile,
  runOraculum,
  sessionArgs,
  ToolServer,
} from "./oraculum.ts";
import { ChannelProcess, RestartingChannel, WakeupWatcher } from "./watcher.ts";

const FOOTER_REFRESH_MS = 60_000;
const WAKEUP_TYPE = "oracle-wakeup";
const DISPATCH_TYPE = "oracle-dispatch";

interface ToolDescription {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

interface Description {
  tools: ToolDescription[];
  prompts: Record<string, string>;
}

const PROMPTS: Record<string, [string, string]> = {
  oracle: ["Consult the oracle (ChatGPT / Grok / Gemini web) as a background job", "<request>"],
  "oracle-followup": ["Continue an oracle job's thread", "<job> <request>"],
};

/** The pi session's oraculum session: its id, only when pi persists it to a file. */
function sessionIdOf(ctx: ExtensionContext): string | undefined {
  return ctx.sessionManager.getSessionFile() ? ctx.sessionManager.getSessionId() : undefined;
}

function toolResult(document: Record<string, unknown>): ToolResult {
  if (typeof document.text === "string" && document.data && typeof document.isError === "boolean") {
    return document as unknown as ToolResult;
  }
  const error = (document.error ?? {}) as { code?: string; message?: string };
  return { text: `[${error.code}] ${error.message}`, data: { error }, isError: true };
}

export default async function oraculum(pi: ExtensionAPI): Promise<void> {
  pi.registerFlag("oraculum", { description: "Path of the oraculum executable", type: "string" });
  pi.registerFlag("oraculum-profile", {
    description: "oraculum capability profile: oracle (default), research, processes, scheduler, all",
    type: "string",
  });
  const bridge = new Bridge(pi);
  await bridge.describe();
  bridge.registerTools();
  bridge.registerSessionHooks();
  bridge.registerDispatch();
  registerCommands(pi, (ctx, tool, args) => bridge.callTool(ctx, tool, args), () => bridge.executable());
}

/** The package's state: oraculum's description, and per live session the tool server, the
 * wake-up watcher, its timers, the footer's state, the warnings already shown and a dispatch
 * waiting for its run. */
class Bridge {
  private readonly pi: ExtensionAPI;
  private description: Description = { tools: [], prompts: {} };
  private unavailable: string | undefined;
  private refusedProfile: { name: string; why: string } | undefined;
  private tools: { key: string; server: ToolServer } | undefined;
  private watcher: WakeupWatcher | undefined;
  private timers: NodeJS.Timeout[] = [];
  private warned = new Set<string>();
  private readiness: Readiness | undefined;
  private wakeupsDown = false;
  private pendingDispatch: string | undefined;
  private promptDir: string | undefined;
  private session: { id: string; cwd: string } | undefined;
  private describedProfile = DEFAULT_PROFILE;
  private registered = new Set<string>();

  constructor(pi: ExtensionAPI) {
    this.pi = pi;
  }

  executable(): string {
    return oraculumExecutable(this.pi.getFlag("oraculum"), process.env);
  }

  profile(): string {
    return oraculumProfile(this.pi.getFlag("oraculum-profile"), process.env);
  }

  /** The tools and prompts as oraculum describes them (the MCP server's own schemas). */
  async describe(profile: string = this.profile()): Promise<void> {
    const argv = ["bridge", "describe", "--profile", profile];
    const document = jsonDocument(await runOraculum(this.executable(), argv, { cwd: process.cwd() }));
    if (Array.isArray(document.tools)) {
      this.description = document as unknown as Description;
      this.describedProfile = profile;
      this.unavailable = undefined;
      return;
    }
    const error = (document.error ?? {}) as { code?: unknown };
    if (error.code === "invalid_argument" && profile !== DEFAULT_PROFILE) {
      // An unknown profile is refused, never half-used: the tools stay the oracle's (or the
      // last good profile's), and the session start says so.
      this.refusedProfile = { name: profile, why: toolResult(document).text };
      if (this.description.tools.length === 0) await this.describe(DEFAULT_PROFILE);
      return;
    }
    // Without oraculum there are no tools: the session says why once, at its start.
    this.unavailable = toolResult(document).text;
  }

  /** The session's tool server: one `oraculum bridge serve` per session, cwd and profile,
   * started again when it ended (a call never waits for a dead one). */
  private toolServer(ctx: ExtensionContext): ToolServer {
    const sessionId = sessionIdOf(ctx);
    const key = JSON.stringify([ctx.cwd, sessionId ?? null, this.describedProfile]);
    if (this.tools?.key === key && this.tools.server.alive) return this.tools.server;
    void this.tools?.server.close();
    const args = ["--profile", this.describedProfile, ...sessionArgs(sessionId)];
    const server = new ToolServer(this.executable(), args, ctx.cwd);
    this.tools = { key, server };
    return server;
  }

  async callTool(ctx: ExtensionContext, tool: string, args: unknown, signal?: AbortSignal): Promise<ToolResult> {
    let document: Record<string, unknown>;
    try {
      document = await this.toolServer(ctx).call(tool, args, signal);
    } catch (error) {
      document = { error: { code: "internal_error", message: `oraculum did not answer: ${(error as Error).message}` } };
    }
    const result = toolResult(document);
    const cancelled = tool === "oracle_cancel" ? cancelledJob(result, args) : undefined;
    if (cancelled) this.watcher?.cancelledHere(cancelled);
    return result;
  }

  /** pi parses its flags after loading the package: a `--oraculum-profile` flag is known at
   * session start, when the profile's further tools are described and registered. */
  async ensureProfile(): Promise<void> {
    const wanted = this.profile();
    if (wanted === this.describedProfile || wanted === this.refusedProfile?.name) return;
    await this.describe(wanted);
    this.registerTools();
  }

  registerTools(): void {
    for (const tool of this.description.tools) {
      if (this.registered.has(tool.name)) continue;
      this.registered.add(tool.name);
      this.pi.registerTool({
        name: tool.name,
        label: tool.title ?? tool.name,
        description: tool.description ?? tool.name,
        parameters: tool.inputSchema as never,
        execute: async (_id: string, params: unknown, signal: AbortSignal | undefined, _update: unknown, ctx: ExtensionContext) => {
          const result = await this.callTool(ctx, tool.name, params, signal);
          return { content: [{ type: "text", text: result.text }], details: result.data, isError: result.isError };
        },
      });
    }
  }

  registerSessionHooks(): void {
    this.pi.on("session_start", async (_event, ctx) => this.startSession(ctx));
    this.pi.on("session_shutdown", async () => this.endSession());
    // A settled run is the moment a deferred wake-up can go out.
    this.pi.on("agent_settled", async () => {
      const current = this.watcher;
      if (current) setTimeout(() => void current.tick().catch(() => undefined), 0);
    });
  }

  private async startSession(ctx: ExtensionContext): Promise<void> {
    await this.stopSession();
    await this.ensureProfile().catch(() => undefined);
    if (this.unavailable) warn(ctx, `oraculum tools unavailable: ${this.unavailable}`);
    if (this.refusedProfile) {
      const { name, why } = this.refusedProfile;
      warn(ctx, `oraculum profile "${name}" refused (${why}); the ${this.describedProfile} profile's tools are offered`);
    }
    void this.refreshFooter(ctx).catch(() => undefined);
    this.timers.push(setInterval(() => void this.refreshFooter(ctx).catch(() => undefined), FOOTER_REFRESH_MS));
    const sessionId = sessionIdOf(ctx);
    this.session = sessionId ? { id: sessionId, cwd: ctx.cwd } : undefined;
    if (sessionId) await this.startWatcher(ctx, sessionId).catch(() => undefined);
  }

  private async endSession(): Promise<void> {
    await this.stopSession();
    // Managed processes started through the bridge belong to the session: its end stops them.
    const ended = this.session;
    this.session = undefined;
    if (ended) {
      const argv = ["proc", "shutdown", "--session", ended.id];
      await runOraculum(this.executable(), argv, { cwd: ended.cwd }).catch(() => undefined);
    }
    if (this.promptDir) rmSync(this.promptDir, { recursive: true, force: true });
    this.promptDir = undefined;
  }

  private async refreshFooter(ctx: ExtensionContext): Promise<void> {
    const state = readiness(await this.callTool(ctx, "oracle_preflight", {}));
    this.readiness = state;
    this.showFooter(ctx);
    if (!ctx.hasUI) return;
    const blocker = newWarning(state, this.warned);
    if (blocker) ctx.ui.notify(`${state.label} (${blocker}): run /oracle-status or oraculum doctor`, "warning");
  }

  private showFooter(ctx: ExtensionContext): void {
    const label = footerLabel(this.readiness, this.wakeupsDown);
    if (ctx.hasUI && label) ctx.ui.setStatus(FOOTER_KEY, label);
  }

  private async startWatcher(ctx: ExtensionContext, sessionId: string): Promise<void> {
    let interval = 5000;
    const tick = () => void current.tick().catch(() => undefined);
    // A dead channel is restarted; until it is back the footer says wake-ups stopped.
    const channel = new RestartingChannel(
      () => new ChannelProcess(this.executable(), sessionId, ctx.cwd),
      (up, ready) => {
        if (typeof ready?.intervalMs === "number") interval = ready.intervalMs;
        this.wakeupsDown = !up;
        this.showFooter(ctx);
        if (up) setTimeout(tick, 0); // what ended while it was down is due now
      },
    );
    // Print and JSON runs end with their prompt: they keep the session live (so its jobs are
    // not adopted elsewhere meanwhile) but leave wake-ups to a session that can take a turn.
    const startsTurns = ctx.mode === "tui" || ctx.mode === "rpc";
    const current = new WakeupWatcher(channel, {
      isIdle: () => startsTurns && ctx.isIdle(),
      hasPendingMessages: () => ctx.hasPendingMessages(),
      deliver: (text: string, wakeups: Wakeup[], triggerTurn: boolean) =>
        this.pi.sendMessage(
          { customType: WAKEUP_TYPE, content: text, display: true, details: { wakeups } },
          { deliverAs: "followUp", triggerTurn },
        ),
    });
    this.watcher = current;
    await channel.launch();
    this.timers.push(setInterval(tick, interval));
  }

  private async stopSession(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    const stopping = this.watcher;
    this.watcher = undefined;
    this.warned = new Set();
    this.readiness = undefined;
    this.wakeupsDown = false;
    const tools = this.tools;
    this.tools = undefined;
    await Promise.all([stopping?.stop(), tools?.server.close()]);
  }

  registerDispatch(): void {
    // Print, JSON and RPC modes: /oracle and /oracle-followup are prompt templates.
    this.pi.on("resources_discover", async (_event, ctx) =>
      ctx.mode === "tui" ? {} : { promptPaths: this.writeTemplates() });
    // TUI: the compact request stays the visible message; the workflow goes in hidden.
    this.pi.on("input", async (event, ctx) => {
      if (ctx.mode !== "tui" || event.source !== "interactive") return { action: "continue" };
      const request = dispatchRequest(event.text);
      return request ? this.prepareDispatch(ctx, request) : { action: "continue" };
    });
    this.pi.on("before_agent_start", async () => {
      if (this.pendingDispatch === undefined) return undefined;
      const content = this.pendingDispatch;
      this.pendingDispatch = undefined;
      return { message: { customType: DISPATCH_TYPE, content, display: false } };
    });
  }

  private writeTemplates(): string[] {
    this.promptDir ??= mkdtempSync(join(tmpdir(), "oraculum-pi-"));
    const paths: string[] = [];
    for (const [name, body] of Object.entries(this.description.prompts)) {
      const [summary, hint] = PROMPTS[name] ?? [name, ""];
      const path = join(this.promptDir, `${name}.md`);
      writeFileSync(path, templateFile(summary, hint, body), { mode: 0o600 });
      paths.push(path);
    }
    return paths;
  }

  private async prepareDispatch(
    ctx: ExtensionContext,
    request: { name: string; args: string[] },
  ): Promise<{ action: "continue" | "handled" }> {
    const argv = ["bridge", "prompt", request.name, ...request.args];
    const filled = jsonDocument(await runOraculum(this.executable(), argv, { cwd: ctx.cwd }));
    if (typeof filled.text !== "string") {
      ctx.ui.notify(toolResult(filled).text, "error");
      return { action: "handled" };
    }
    this.pendingDispatch = filled.text;
    return { action: "continue" };
  }
}

type CallTool = (ctx: ExtensionContext, tool: string, args: unknown) => Promise<ToolResult>;

/** A command's outcome: a notice, or in print mode its output, and an error exits non-zero
 * (a script running `pi -p /oracle-...` must see it failed). */
function show(ctx: ExtensionContext, result: ToolResult): void {
  if (ctx.hasUI) ctx.ui.notify(result.text, result.isError ? "error" : "info");
  else process.stderr.write(`${result.text}\n`);
  if (result.isError && !ctx.hasUI) process.exitCode = 1;
}

function warn(ctx: ExtensionContext, text: string): void {
  if (ctx.hasUI) ctx.ui.notify(text, "warning");
  else process.stderr.write(`Warning: ${text}\n`);
}

function registerCommands(pi: ExtensionAPI, callTool: CallTool, executable: () => string): void {
  const tools: Array<[string, string, string, (args: string) => Record<string, unknown> | undefined]> = [
    ["oracle-auth", "oracle_auth", "Sign the oracle browser in: /oracle-auth [chatgpt|grok|gemini]", (a) =>
      a.trim() ? { provider: a.trim() } : {}],
    ["oracle-read", "oracle_read", "Read an oracle job's answer: /oracle-read [job]", jobArguments],
    ["oracle-status", "oracle_status", "Oracle job status, or recent jobs: /oracle-status [job]", jobArguments],
    ["oracle-council", "oracle_council",
      "Ask several models, one wake-up: /oracle-council <provider:preset,...> <question>", councilArguments],
    ["oracle-cancel", "oracle_cancel", "Cancel an oracle job: /oracle-cancel <job>", (a) => {
      const args = jobArguments(a);
      return args.jobId ? args : undefined;
    }],
  ];
  for (const [name, tool, description, parse] of tools) {
    pi.registerCommand(name, {
      description,
      handler: async (args: string, ctx: ExtensionContext) => {
        const parsed = parse(args ?? "");
        if (parsed === undefined) {
          show(ctx, { text: `Usage: ${description.split(": ")[1]}`, data: {}, isError: true });
          return;
        }
        show(ctx, await callTool(ctx, tool, parsed));
      },
    });
  }
  pi.registerCommand("oracle-clean", {
    description: "Remove finished oracle jobs' files: /oracle-clean <job|all>",
    handler: async (args: string, ctx: ExtensionContext) => {
      const target = jobArguments(args ?? "").jobId;
      if (!target) {
        show(ctx, { text: "Usage: /oracle-clean <job|all>", data: {}, isError: true });
        return;
      }
      const document = jsonDocument(await runOraculum(executable(), ["clean", target], { cwd: ctx.cwd }));
      show(ctx, typeof document.message === "string"
        ? { text: document.message, data: document, isError: false }
        : toolResult(document));
    },
  });
}

// oraculum as a pi package: the oracle tools, the /oracle commands, a readiness footer and
// wake-ups that start a turn. Thin: every operation is one `oraculum --json ...` call.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";

import {
  dispatchRequest,
  FOOTER_KEY,
  jobArguments,
  newWarning,
  readiness,
  templateFile,
  type ToolResult,
  type Wakeup,
} from "./logic.ts";
import { jsonDocument, oraculumExecutable, runOraculum, sessionArgs } from "./oraculum.ts";
import { ChannelProcess, WakeupWatcher } from "./watcher.ts";

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
  oracle: ["Consult the oracle (ChatGPT / Grok web) as a background job", "<request>"],
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
  const executable = () => oraculumExecutable(pi.getFlag("oraculum"), process.env);

  async function callTool(ctx: ExtensionContext, tool: string, args: unknown, signal?: AbortSignal): Promise<ToolResult> {
    const argv = ["bridge", "call", tool, ...sessionArgs(sessionIdOf(ctx))];
    const run = await runOraculum(executable(), argv, { cwd: ctx.cwd, input: JSON.stringify(args ?? {}), signal });
    return toolResult(jsonDocument(run));
  }

  // The tools and prompts as oraculum describes them (the MCP server's own schemas).
  const described = await runOraculum(executable(), ["bridge", "describe"], { cwd: process.cwd() });
  const description = jsonDocument(described) as unknown as Description;
  // Without oraculum there are no tools: the session says why once, at its start.
  const unavailable = Array.isArray(description.tools) ? undefined : toolResult(description as never).text;
  for (const tool of description.tools ?? []) {
    pi.registerTool({
      name: tool.name,
      label: tool.title ?? tool.name,
      description: tool.description ?? tool.name,
      parameters: tool.inputSchema as never,
      async execute(_id: string, params: unknown, signal: AbortSignal | undefined, _update: unknown, ctx: ExtensionContext) {
        const result = await callTool(ctx, tool.name, params, signal);
        return { content: [{ type: "text", text: result.text }], details: result.data, isError: result.isError };
      },
    });
  }

  // Per live session: the wake-up watcher, the footer refresh, the warnings already shown.
  let watcher: WakeupWatcher | undefined;
  let timers: NodeJS.Timeout[] = [];
  let warned = new Set<string>();
  let pendingDispatch: string | undefined;
  let promptDir: string | undefined;

  async function refreshFooter(ctx: ExtensionContext): Promise<void> {
    const state = readiness(await callTool(ctx, "oracle_preflight", {}));
    if (!ctx.hasUI) return;
    ctx.ui.setStatus(FOOTER_KEY, state.label);
    const blocker = newWarning(state, warned);
    if (blocker) ctx.ui.notify(`${state.label} (${blocker}): run /oracle-status or oraculum doctor`, "warning");
  }

  async function startWatcher(ctx: ExtensionContext, sessionId: string): Promise<void> {
    const channel = new ChannelProcess(executable(), sessionId, ctx.cwd);
    const ready = await channel.ready;
    const current = new WakeupWatcher(channel, {
      isIdle: () => ctx.isIdle(),
      hasPendingMessages: () => ctx.hasPendingMessages(),
      deliver: (text: string, wakeups: Wakeup[]) =>
        pi.sendMessage(
          { customType: WAKEUP_TYPE, content: text, display: true, details: { wakeups } },
          { deliverAs: "followUp", triggerTurn: true },
        ),
    });
    watcher = current;
    const interval = typeof ready.intervalMs === "number" ? ready.intervalMs : 5000;
    timers.push(setInterval(() => void current.tick().catch(() => undefined), interval));
    void current.tick().catch(() => undefined);
  }

  async function stopSession(): Promise<void> {
    for (const timer of timers) clearInterval(timer);
    timers = [];
    const stopping = watcher;
    watcher = undefined;
    warned = new Set();
    if (stopping) await stopping.stop();
  }

  pi.on("session_start", async (_event, ctx) => {
    await stopSession();
    if (unavailable && ctx.hasUI) ctx.ui.notify(`oraculum tools unavailable: ${unavailable}`, "warning");
    const sessionId = sessionIdOf(ctx);
    void refreshFooter(ctx).catch(() => undefined);
    timers.push(setInterval(() => void refreshFooter(ctx).catch(() => undefined), FOOTER_REFRESH_MS));
    if (sessionId) await startWatcher(ctx, sessionId).catch(() => undefined);
  });

  pi.on("session_shutdown", async () => {
    await stopSession();
    if (promptDir) rmSync(promptDir, { recursive: true, force: true });
    promptDir = undefined;
  });

  // A settled run is the moment a deferred wake-up can go out.
  pi.on("agent_settled", async () => {
    const current = watcher;
    if (current) setTimeout(() => void current.tick().catch(() => undefined), 0);
  });

  // Print, JSON and RPC modes: /oracle and /oracle-followup are prompt templates.
  pi.on("resources_discover", async (_event, ctx) => {
    if (ctx.mode === "tui" || !description.prompts) return {};
    promptDir ??= mkdtempSync(join(tmpdir(), "oraculum-pi-"));
    const paths: string[] = [];
    for (const [name, body] of Object.entries(description.prompts)) {
      const [summary, hint] = PROMPTS[name] ?? [name, ""];
      const path = join(promptDir, `${name}.md`);
      writeFileSync(path, templateFile(summary, hint, body), { mode: 0o600 });
      paths.push(path);
    }
    return { promptPaths: paths };
  });

  // TUI: the compact request stays the visible message; the instructions go in hidden.
  pi.on("input", async (event, ctx) => {
    if (ctx.mode !== "tui" || event.source !== "interactive") return { action: "continue" };
    const request = dispatchRequest(event.text);
    if (!request) return { action: "continue" };
    const filled = jsonDocument(
      await runOraculum(executable(), ["bridge", "prompt", request.name, ...request.args], { cwd: ctx.cwd }),
    );
    if (typeof filled.text !== "string") {
      ctx.ui.notify(toolResult(filled).text, "error");
      return { action: "handled" };
    }
    pendingDispatch = filled.text;
    return { action: "continue" };
  });

  pi.on("before_agent_start", async () => {
    if (pendingDispatch === undefined) return undefined;
    const content = pendingDispatch;
    pendingDispatch = undefined;
    return { message: { customType: DISPATCH_TYPE, content, display: false } };
  });

  registerCommands(pi, callTool, executable);
}

type CallTool = (ctx: ExtensionContext, tool: string, args: unknown) => Promise<ToolResult>;

function show(ctx: ExtensionContext, result: ToolResult): void {
  if (ctx.hasUI) ctx.ui.notify(result.text, result.isError ? "error" : "info");
  else process.stderr.write(`${result.text}\n`);
}

function registerCommands(pi: ExtensionAPI, callTool: CallTool, executable: () => string): void {
  const tools: Array<[string, string, string, (args: string) => Record<string, string> | undefined]> = [
    ["oracle-auth", "oracle_auth", "Sign the oracle browser in: /oracle-auth [chatgpt|grok]", (a) =>
      a.trim() ? { provider: a.trim() } : {}],
    ["oracle-read", "oracle_read", "Read an oracle job's answer: /oracle-read [job]", jobArguments],
    ["oracle-status", "oracle_status", "Oracle job status, or recent jobs: /oracle-status [job]", jobArguments],
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

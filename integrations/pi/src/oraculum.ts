// Running the `oraculum` CLI: argv only (never a shell), `--json` on every call, the
// session passed explicitly. Nothing here knows about jobs; oraculum decides everything.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  input?: string;
  signal?: AbortSignal;
}

/** Where the CLI is: the `--oraculum` flag, else $ORACULUM_BIN, else `oraculum` on PATH. */
export function oraculumExecutable(flag: unknown, env: NodeJS.ProcessEnv): string {
  if (typeof flag === "string" && flag.trim() !== "") return flag.trim();
  const configured = env.ORACULUM_BIN?.trim();
  return configured ? configured : "oraculum";
}

export const DEFAULT_PROFILE = "oracle";

/** The capability profile whose tools the bridge offers (`oraculum mcp --list-profiles`): the
 * `--oraculum-profile` flag, else $ORACULUM_PROFILE, else `oracle`. */
export function oraculumProfile(flag: unknown, env: NodeJS.ProcessEnv): string {
  if (typeof flag === "string" && flag.trim() !== "") return flag.trim();
  const configured = env.ORACULUM_PROFILE?.trim();
  return configured ? configured : DEFAULT_PROFILE;
}

/** The child's environment: pi's own, without ORACULUM_SESSION (the session is passed as
 * `--session`, from the pi session file; a stray variable must never name another one). */
export function childEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy.ORACULUM_SESSION;
  return copy;
}

/** `--session <id>` when the pi session is persisted; nothing otherwise, so oraculum itself
 * refuses with `persisted_session_required`. */
export function sessionArgs(sessionId: string | undefined): string[] {
  return sessionId ? ["--session", sessionId] : [];
}

export function runOraculum(executable: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(executable, ["--json", ...args], {
      cwd: options.cwd,
      env: childEnvironment(process.env),
      stdio: ["pipe", "pipe", "pipe"],
      shell: false,
      signal: options.signal,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", (error: Error) => {
      resolve({ code: null, stdout: "", stderr: `${executable}: ${error.message}` });
    });
    child.on("close", (code: number | null) => {
      resolve({ code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") });
    });
    child.stdin.on("error", () => undefined); // a child that exits early closes its stdin
    child.stdin.end(options.input ?? "");
  });
}

/** The one JSON document a `--json` call prints; an `{"error": ...}` shape when it printed
 * none (the CLI could not start, or crashed before answering). */
export function jsonDocument(result: RunResult): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(result.stdout);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // fall through: no document
  }
  const tail = result.stderr.trim().slice(-500) || `exit ${result.code}`;
  return { error: { code: "internal_error", message: `oraculum did not answer: ${tail}` } };
}

/** Splits a byte stream into LF-terminated records (not on U+2028/U+2029, as readline would). */
export class LineSplitter {
  private buffer = "";

  push(chunk: string): string[] {
    this.buffer += chunk;
    const parts = this.buffer.split("\n");
    this.buffer = parts.pop() ?? "";
    return parts.map((line) => line.replace(/\r$/, "")).filter((line) => line.trim() !== "");
  }
}

const CLOSE_GRACE_MS = 5000;

/** A long-lived `oraculum ...` child speaking JSON lines: each line it prints goes to
 * `onLine`; `exited` settles with why it ended (its exit code and the end of its stderr). */
export class LineChild {
  readonly exited: Promise<string>;
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(executable: string, args: string[], cwd: string, onLine: (line: string) => void) {
    this.child = spawn(executable, args, {
      cwd,
      env: childEnvironment(process.env),
      stdio: ["pipe", "pipe", "pipe"],
      shell: false,
    });
    const splitter = new LineSplitter();
    let stderr = "";
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => {
      for (const line of splitter.push(chunk)) onLine(line);
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    this.child.stdin.on("error", () => undefined); // a child that exits early closes its stdin
    const what = `oraculum ${args.slice(0, 2).join(" ")}`;
    this.exited = new Promise((resolve) => {
      this.child.on("error", (error: Error) => resolve(`${what}: ${error.message}`));
      this.child.on("close", (code: number | null, signal: string | null) =>
        resolve(`${what} ended (${signal ?? code}): ${stderr.trim().slice(-500)}`));
    });
  }

  write(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** End of input: the child finishes what it holds and exits; killed if it lingers. */
  async close(): Promise<void> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGTERM"), CLOSE_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }
}

type Pending = { resolve: (document: Record<string, unknown>) => void; reject: (error: Error) => void };

/** The session's `oraculum bridge serve` child: every tool call of the session is one line
 * to it (no interpreter start nor SDK import per call); answers carry the call's id, since
 * calls run side by side. A call after the child ended starts no new one: the owner does. */
export class ToolServer {
  readonly ready: Promise<void>;
  private readonly child: LineChild;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private ended: string | undefined;

  constructor(executable: string, args: string[], cwd: string) {
    let markReady: () => void = () => undefined;
    this.ready = new Promise((resolve) => {
      markReady = resolve;
    });
    this.child = new LineChild(executable, ["bridge", "serve", ...args], cwd, (line) => {
      const message = parseLine(line);
      if (message?.type === "ready") markReady();
      const waiter = typeof message?.id === "number" ? this.pending.get(message.id) : undefined;
      if (message && waiter) {
        this.pending.delete(message.id as number);
        waiter.resolve(message);
      }
    });
    void this.child.exited.then((why) => {
      this.ended = why;
      markReady(); // a call now fails at once with why
      for (const waiter of this.pending.values()) waiter.reject(new Error(why));
      this.pending.clear();
    });
  }

  get alive(): boolean {
    return this.ended === undefined;
  }

  /** The call's `{text, data, isError}` document; rejects when the child ends first. */
  async call(tool: string, args: unknown, signal?: AbortSignal): Promise<Record<string, unknown>> {
    await this.ready;
    if (this.ended !== undefined) throw new Error(this.ended);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      signal?.addEventListener("abort", () => {
        // The call runs on in the child; its answer is dropped.
        if (this.pending.delete(id)) reject(new Error("aborted"));
      }, { once: true });
      this.child.write(JSON.stringify({ id, tool, arguments: args ?? {} }));
    });
  }

  close(): Promise<void> {
    return this.child.close();
  }
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

// Running the `oraculum` CLI: argv only (never a shell), `--json` on every call, the
// session passed explicitly. Nothing here knows about jobs; oraculum decides everything.
import { spawn } from "node:child_process";

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

/** The capability profile whose tools the bridge offers (`oraculum mcp --list-profiles`): the
 * `--oraculum-profile` flag, else $ORACULUM_PROFILE, else `oracle`. */
export function oraculumProfile(flag: unknown, env: NodeJS.ProcessEnv): string {
  if (typeof flag === "string" && flag.trim() !== "") return flag.trim();
  const configured = env.ORACULUM_PROFILE?.trim();
  return configured ? configured : "oracle";
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

// Wake-ups for one live pi session: a child `oraculum wakeups serve --session <id>` (the
// session's live host process in oraculum's terms) and a tick that claims from it only when
// pi is idle with nothing queued, shows the batch as one follow-up message that starts a
// turn, then commits it (or abandons it if pi got busy meanwhile). Claims, retries and
// exactly-once across sessions are oraculum's (sessions/poller.py).
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

import { wakeupMessage, type Wakeup } from "./logic.ts";
import { childEnvironment, LineSplitter } from "./oraculum.ts";

export type Op = "claim" | "commit" | "abandon";

export interface Channel {
  request(op: Op): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface Host {
  isIdle(): boolean;
  hasPendingMessages(): boolean;
  deliver(text: string, wakeups: Wakeup[]): void;
}

export type TickOutcome = "busy" | "nothing" | "delivered" | "abandoned" | "stopped";

/** Pi can take a wake-up now: idle, nothing queued. */
export function canDeliver(host: Host): boolean {
  return host.isIdle() && !host.hasPendingMessages();
}

export class WakeupWatcher {
  private running = false;
  private stopped = false;
  private readonly channel: Channel;
  private readonly host: Host;

  constructor(channel: Channel, host: Host) {
    this.channel = channel;
    this.host = host;
  }

  /** One look; overlapping ticks skip (one batch is held at a time). */
  async tick(): Promise<TickOutcome> {
    if (this.stopped) return "stopped";
    if (this.running || !canDeliver(this.host)) return "busy";
    this.running = true;
    try {
      return await this.claimAndDeliver();
    } finally {
      this.running = false;
    }
  }

  private async claimAndDeliver(): Promise<TickOutcome> {
    const claimed = await this.channel.request("claim");
    const wakeups = Array.isArray(claimed.wakeups) ? (claimed.wakeups as Wakeup[]) : [];
    if (wakeups.length === 0) return "nothing";
    // Re-checked after the claim: pi may have started a run meanwhile.
    if (this.stopped || !canDeliver(this.host)) {
      await this.channel.request("abandon");
      return "abandoned";
    }
    try {
      this.host.deliver(wakeupMessage(wakeups), wakeups);
    } catch (error) {
      await this.channel.request("abandon");
      throw error;
    }
    await this.channel.request("commit");
    return "delivered";
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.channel.close();
  }
}

const CLOSE_GRACE_MS = 5000;

/** The `oraculum wakeups serve` child: requests are answered in order, one line each. */
export class ChannelProcess implements Channel {
  readonly ready: Promise<Record<string, unknown>>;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: Array<{ resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }> = [];
  private readonly exited: Promise<void>;
  private failure: Error | undefined;

  constructor(executable: string, sessionId: string, cwd: string) {
    this.child = spawn(executable, ["wakeups", "serve", "--session", sessionId], {
      cwd,
      env: childEnvironment(process.env),
      stdio: ["pipe", "pipe", "pipe"],
      shell: false,
    });
    let markReady: (value: Record<string, unknown>) => void = () => undefined;
    let failReady: (error: Error) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    this.ready.catch(() => undefined); // a caller that never awaits it must not crash pi
    this.waiting.push({ resolve: markReady, reject: failReady });
    const splitter = new LineSplitter();
    let stderr = "";
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => {
      for (const line of splitter.push(chunk)) this.answer(line);
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    this.child.stdin.on("error", () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.on("error", (error: Error) => {
        this.fail(new Error(`oraculum wakeups serve: ${error.message}`));
        resolve();
      });
      this.child.on("close", (code: number | null) => {
        this.fail(new Error(`oraculum wakeups serve ended (${code}): ${stderr.trim().slice(-500)}`));
        resolve();
      });
    });
  }

  private answer(line: string): void {
    const waiter = this.waiting.shift();
    if (!waiter) return;
    try {
      const message = JSON.parse(line) as Record<string, unknown>;
      if (message.type === "error") waiter.reject(new Error(JSON.stringify(message.error)));
      else waiter.resolve(message);
    } catch (error) {
      waiter.reject(error as Error);
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(error);
  }

  request(op: Op): Promise<Record<string, unknown>> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ op })}\n`);
    });
  }

  /** End of input: oraculum abandons a held batch and exits; killed if it lingers. */
  async close(): Promise<void> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGTERM"), CLOSE_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }
}

// Wake-ups for one live pi session: a child `oraculum wakeups serve --session <id>` (the
// session's live host process in oraculum's terms), restarted with a bounded backoff when it
// dies, and a tick that claims from it only when pi is idle with nothing queued, shows the
// batch as one follow-up message (a turn, unless all it says is a cancellation this session
// asked for), then commits it (or abandons it if pi got busy meanwhile). Claims, retries and
// exactly-once across sessions are oraculum's (sessions/poller.py); a claim a dead child held
// expires there, so its wake-ups come again.
import { planDelivery, restartDelay, STABLE_MS, wakeupMessage, type Wakeup } from "./logic.ts";
import { LineChild } from "./oraculum.ts";

export type Op = "claim" | "commit" | "abandon";

export interface Channel {
  request(op: Op): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface Host {
  isIdle(): boolean;
  hasPendingMessages(): boolean;
  deliver(text: string, wakeups: Wakeup[], triggerTurn: boolean): void;
}

export type TickOutcome = "busy" | "nothing" | "delivered" | "settled" | "abandoned" | "stopped";

/** Pi can take a wake-up now: idle, nothing queued. */
export function canDeliver(host: Host): boolean {
  return host.isIdle() && !host.hasPendingMessages();
}

export class WakeupWatcher {
  private running = false;
  private stopped = false;
  private readonly channel: Channel;
  private readonly host: Host;
  private readonly cancelled = new Set<string>();

  constructor(channel: Channel, host: Host) {
    this.channel = channel;
    this.host = host;
  }

  /** This session cancelled the job (`/oracle-cancel`, `oracle_cancel`): its wake-up is
   * shown once without starting a turn. */
  cancelledHere(jobId: string): void {
    this.cancelled.add(jobId);
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
    // Wake-ups not worth showing again are committed unseen: oraculum counts the attempt and
    // stops after its last one.
    const plan = planDelivery(wakeups, this.cancelled);
    if (plan.show.length > 0) {
      try {
        this.host.deliver(wakeupMessage(plan.show), plan.show, plan.triggerTurn);
      } catch (error) {
        await this.channel.request("abandon");
        throw error;
      }
    }
    await this.channel.request("commit");
    return plan.show.length > 0 ? "delivered" : "settled";
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.channel.close();
  }
}

/** One `oraculum wakeups serve` child: requests are answered in order, one line each. */
export class ChannelProcess implements Channel {
  readonly ready: Promise<Record<string, unknown>>;
  readonly exited: Promise<string>;
  private readonly child: LineChild;
  private readonly waiting: Array<{ resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }> = [];
  private failure: Error | undefined;

  constructor(executable: string, sessionId: string, cwd: string) {
    let markReady: (value: Record<string, unknown>) => void = () => undefined;
    let failReady: (error: Error) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    this.ready.catch(() => undefined); // a caller that never awaits it must not crash pi
    this.waiting.push({ resolve: markReady, reject: failReady });
    this.child = new LineChild(executable, ["wakeups", "serve", "--session", sessionId], cwd, (line) =>
      this.answer(line));
    this.exited = this.child.exited;
    void this.exited.then((why) => this.fail(new Error(why)));
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
      this.child.write(JSON.stringify({ op }));
    });
  }

  /** End of input: oraculum abandons a held batch and exits. */
  close(): Promise<void> {
    return this.child.close();
  }
}

/** What a restarting channel runs: a channel that says when it is ready and when it ended. */
export interface ChannelChild extends Channel {
  readonly ready: Promise<Record<string, unknown>>;
  readonly exited: Promise<string>;
}

/** The session's wake-up channel, kept running: a child that ends unasked is replaced after
 * `delay(failures)` (a bounded backoff; a child that lived `STABLE_MS` starts it over), and
 * `onChange` hears when wake-ups stop and when they are back. Requests while none is up are
 * refused (the tick tries again later; nothing is claimed meanwhile, so nothing is lost). */
export class RestartingChannel implements Channel {
  private child: ChannelChild | undefined;
  private up = false;
  private failures = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly start: () => ChannelChild;
  private readonly onChange: (up: boolean, ready?: Record<string, unknown>) => void;
  private readonly delay: (failures: number) => number;

  constructor(
    start: () => ChannelChild,
    onChange: (up: boolean, ready?: Record<string, unknown>) => void,
    delay: (failures: number) => number = restartDelay,
  ) {
    this.start = start;
    this.onChange = onChange;
    this.delay = delay;
  }

  /** Starts a child; resolves once it is up or has ended (then a restart is scheduled). */
  launch(): Promise<void> {
    const child = this.start();
    const began = Date.now();
    this.child = child;
    const ready = child.ready.then((line) => {
      if (this.stopped || this.child !== child) return;
      this.up = true;
      this.onChange(true, line);
    }, () => undefined);
    void child.exited.then(() => {
      if (this.stopped || this.child !== child) return;
      this.up = false;
      this.failures = Date.now() - began >= STABLE_MS ? 1 : this.failures + 1;
      this.onChange(false);
      this.timer = setTimeout(() => void this.launch(), this.delay(this.failures));
    });
    return Promise.race([ready, child.exited.then(() => undefined)]);
  }

  request(op: Op): Promise<Record<string, unknown>> {
    if (!this.up || !this.child) return Promise.reject(new Error("the wake-up channel is restarting"));
    return this.child.request(op);
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.child?.close();
  }
}

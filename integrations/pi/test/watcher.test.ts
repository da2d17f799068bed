import assert from "node:assert/strict";
import { test } from "node:test";

import type { Wakeup } from "../src/logic.ts";
import { type Channel, type ChannelChild, type Host, type Op, RestartingChannel, WakeupWatcher } from "../src/watcher.ts";

// A channel that answers like `oraculum wakeups serve` from a list of due wake-ups.
class ScriptedChannel implements Channel {
  ops: Op[] = [];
  due: Wakeup[];
  closed = false;
  onClaim: () => void = () => undefined;

  constructor(due: Wakeup[]) {
    this.due = due;
  }

  async request(op: Op): Promise<Record<string, unknown>> {
    this.ops.push(op);
    if (op !== "claim") return { type: `${op}ted` };
    const wakeups = this.due;
    this.due = [];
    this.onClaim();
    return { type: "claimed", wakeups };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

class FakeHost implements Host {
  idle = true;
  queued = false;
  delivered: string[] = [];
  turns: boolean[] = [];

  isIdle(): boolean {
    return this.idle;
  }

  hasPendingMessages(): boolean {
    return this.queued;
  }

  deliver(text: string, _wakeups: Wakeup[], triggerTurn: boolean): void {
    this.delivered.push(text);
    this.turns.push(triggerTurn);
  }
}

const two: Wakeup[] = [
  { jobId: "a", text: "Oracle job a is complete." },
  { jobId: "b", text: "Oracle job b is complete." },
];

test("idle: the batch is one message, then committed", async () => {
  const channel = new ScriptedChannel(two);
  const host = new FakeHost();
  assert.equal(await new WakeupWatcher(channel, host).tick(), "delivered");
  assert.deepEqual(host.delivered, ["Oracle job a is complete.\n\nOracle job b is complete."]);
  assert.deepEqual(channel.ops, ["claim", "commit"]);
});

test("busy or queued: nothing is claimed", async () => {
  const channel = new ScriptedChannel(two);
  const host = new FakeHost();
  host.idle = false;
  const watcher = new WakeupWatcher(channel, host);
  assert.equal(await watcher.tick(), "busy");
  host.idle = true;
  host.queued = true;
  assert.equal(await watcher.tick(), "busy");
  assert.deepEqual(channel.ops, []);
  host.queued = false;
  assert.equal(await watcher.tick(), "delivered");
  assert.equal(host.delivered.length, 1);
});

test("busy by the time the claim answers: abandoned, not shown", async () => {
  const channel = new ScriptedChannel(two);
  const host = new FakeHost();
  channel.onClaim = () => {
    host.idle = false;
  };
  assert.equal(await new WakeupWatcher(channel, host).tick(), "abandoned");
  assert.deepEqual(channel.ops, ["claim", "abandon"]);
  assert.deepEqual(host.delivered, []);
});

test("nothing due: no commit; stopped: closed and no more claims", async () => {
  const channel = new ScriptedChannel([]);
  const watcher = new WakeupWatcher(channel, new FakeHost());
  assert.equal(await watcher.tick(), "nothing");
  await watcher.stop();
  assert.equal(channel.closed, true);
  assert.equal(await watcher.tick(), "stopped");
  assert.deepEqual(channel.ops, ["claim"]);
});

test("a delivery that throws abandons the batch", async () => {
  const channel = new ScriptedChannel(two);
  const host = new FakeHost();
  host.deliver = () => {
    throw new Error("pi refused");
  };
  await assert.rejects(new WakeupWatcher(channel, host).tick(), /pi refused/);
  assert.deepEqual(channel.ops, ["claim", "abandon"]);
});

test("a cancellation this session asked for is shown without a turn; its reminders settle unseen", async () => {
  const cancelled: Wakeup = { jobId: "a", status: "cancelled", attempt: 1, text: "Oracle job a is cancelled." };
  const channel = new ScriptedChannel([cancelled]);
  const host = new FakeHost();
  const watcher = new WakeupWatcher(channel, host);
  watcher.cancelledHere("a");
  assert.equal(await watcher.tick(), "delivered");
  assert.deepEqual(host.turns, [false]);
  channel.due = [{ ...cancelled, attempt: 2 }];
  assert.equal(await watcher.tick(), "settled");
  assert.deepEqual(channel.ops, ["claim", "commit", "claim", "commit"]);
  assert.equal(host.delivered.length, 1);
});

test("a third reminder is committed without a message", async () => {
  const channel = new ScriptedChannel([{ jobId: "a", status: "complete", attempt: 3, text: "a" }]);
  const host = new FakeHost();
  assert.equal(await new WakeupWatcher(channel, host).tick(), "settled");
  assert.deepEqual(host.delivered, []);
  assert.deepEqual(channel.ops, ["claim", "commit"]);
});

// A child of a restarting channel whose start and end the test decides.
class FakeChild implements ChannelChild {
  readonly ready: Promise<Record<string, unknown>>;
  readonly exited: Promise<string>;
  markReady: () => void = () => undefined;
  die: () => void = () => undefined;
  closed = false;

  constructor() {
    this.ready = new Promise((resolve) => {
      this.markReady = () => resolve({ type: "ready", intervalMs: 200 });
    });
    this.exited = new Promise((resolve) => {
      this.die = () => resolve("killed");
    });
  }

  async request(op: Op): Promise<Record<string, unknown>> {
    return { type: op === "claim" ? "claimed" : op, wakeups: [] };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.die();
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

test("a channel that dies is restarted with growing delays; the footer hears down and up", async () => {
  const children: FakeChild[] = [];
  const states: boolean[] = [];
  const delays: number[] = [];
  const channel = new RestartingChannel(
    () => {
      const child = new FakeChild();
      children.push(child);
      return child;
    },
    (up) => states.push(up),
    (failures) => {
      delays.push(failures);
      return 0;
    },
  );
  const launched = channel.launch();
  children[0].markReady();
  await launched;
  assert.deepEqual(await channel.request("claim"), { type: "claimed", wakeups: [] });
  children[0].die();
  await settle();
  await assert.rejects(channel.request("claim"), /restarting/); // nothing is claimed while down
  children[1].die(); // died again before it was ready
  await settle();
  children[2].markReady();
  await settle();
  assert.deepEqual(states, [true, false, false, true]);
  assert.deepEqual(delays, [1, 2]);
  assert.deepEqual(await channel.request("commit"), { type: "commit", wakeups: [] });
  await channel.close();
  assert.equal(children[2].closed, true);
  await settle();
  assert.equal(children.length, 3, "no restart after close");
});

import assert from "node:assert/strict";
import { test } from "node:test";

import type { Wakeup } from "../src/logic.ts";
import { type Channel, type Host, type Op, WakeupWatcher } from "../src/watcher.ts";

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

  isIdle(): boolean {
    return this.idle;
  }

  hasPendingMessages(): boolean {
    return this.queued;
  }

  deliver(text: string): void {
    this.delivered.push(text);
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

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  cancelledJob,
  councilArguments,
  dispatchRequest,
  footerLabel,
  jobArguments,
  newWarning,
  planDelivery,
  readiness,
  restartDelay,
  templateFile,
  wakeupMessage,
  WAKEUPS_STOPPED,
} from "../src/logic.ts";
import { childEnvironment, jsonDocument, LineSplitter, oraculumExecutable, oraculumProfile, sessionArgs } from "../src/oraculum.ts";

const blocked = (code: string) => ({ text: `[${code}] no`, data: { error: { code } }, isError: true });

test("the footer names each preflight outcome", () => {
  assert.equal(readiness({ text: "ok", data: {}, isError: false }).label, "oracle: ready");
  assert.equal(readiness(blocked("auth_seed_profile_missing")).label, "oracle: auth needed");
  assert.equal(readiness(blocked("browser_executable_missing")).label, "oracle: browser unavailable");
  assert.equal(readiness(blocked("oracle_config_invalid")).label, "oracle: config error");
  assert.equal(readiness(blocked("persisted_session_required")).label, "oracle: no session");
});

test("one warning per distinct browser or config blocker", () => {
  const warned = new Set<string>();
  const browser = readiness(blocked("browser_executable_missing"));
  assert.equal(newWarning(browser, warned), "browser_executable_missing");
  assert.equal(newWarning(browser, warned), undefined);
  assert.equal(newWarning(readiness(blocked("oracle_config_invalid")), warned), "oracle_config_invalid");
  assert.equal(newWarning(readiness(blocked("auth_seed_profile_missing")), warned), undefined);
});

test("wake-ups that arrive together are one message, each said once", () => {
  const text = wakeupMessage([
    { jobId: "a", text: "Oracle job a is complete.\n" },
    { jobId: "b", text: "Oracle job b is failed." },
  ]);
  assert.equal(text, "Oracle job a is complete.\n\nOracle job b is failed.");
});

test("dispatch requests and their arguments", () => {
  assert.deepEqual(dispatchRequest("/oracle why is  it slow?"), { name: "oracle", args: ["why is  it slow?"] });
  assert.deepEqual(dispatchRequest("/oracle-followup abcd and then?"), {
    name: "oracle-followup",
    args: ["abcd", "and then?"],
  });
  assert.deepEqual(dispatchRequest("/oracle"), { name: "oracle", args: [] });
  assert.equal(dispatchRequest("/oracle-read abcd"), undefined);
  assert.equal(dispatchRequest("tell the /oracle"), undefined);
  assert.deepEqual(jobArguments("  abcd  "), { jobId: "abcd" });
  assert.deepEqual(jobArguments(""), {});
});

test("a template file keeps oraculum's template as its body", () => {
  const file = templateFile("Consult", "<request>", "Request:\n$@\n");
  assert.equal(file, '---\ndescription: "Consult"\nargument-hint: "<request>"\n---\nRequest:\n$@\n');
});

test("the executable, the environment and the session argument", () => {
  assert.equal(oraculumExecutable(" /opt/oraculum ", {}), "/opt/oraculum");
  assert.equal(oraculumExecutable(undefined, { ORACULUM_BIN: "/x/oraculum" }), "/x/oraculum");
  assert.equal(oraculumExecutable("", {}), "oraculum");
  assert.deepEqual(childEnvironment({ ORACULUM_SESSION: "other", PATH: "/bin" }), { PATH: "/bin" });
  assert.deepEqual(sessionArgs("s-1"), ["--session", "s-1"]);
  assert.deepEqual(sessionArgs(undefined), []);
});

test("a call that printed no JSON is an error document", () => {
  const failed = jsonDocument({ code: null, stdout: "", stderr: "oraculum: spawn ENOENT" });
  assert.deepEqual(failed, {
    error: { code: "internal_error", message: "oraculum did not answer: oraculum: spawn ENOENT" },
  });
  assert.deepEqual(jsonDocument({ code: 0, stdout: '{"ok": 1}', stderr: "" }), { ok: 1 });
});

test("records split on LF only", () => {
  const lines = new LineSplitter();
  assert.deepEqual(lines.push('{"a":"x\u2028y"}\n{"b"'), ['{"a":"x\u2028y"}']);
  assert.deepEqual(lines.push(":1}\r\n\n"), ['{"b":1}']);
});

test("the profile comes from the flag, then $ORACULUM_PROFILE, else oracle", () => {
  assert.equal(oraculumProfile(" research ", { ORACULUM_PROFILE: "all" }), "research");
  assert.equal(oraculumProfile(undefined, { ORACULUM_PROFILE: "processes" }), "processes");
  assert.equal(oraculumProfile("", {}), "oracle");
});

test("the footer says wake-ups stopped while the channel is down, whatever the readiness", () => {
  const ready = readiness({ text: "ok", data: {}, isError: false });
  assert.equal(footerLabel(ready, false), "oracle: ready");
  assert.equal(footerLabel(ready, true), WAKEUPS_STOPPED);
  assert.equal(WAKEUPS_STOPPED, "oracle: wake-ups stopped");
  assert.equal(footerLabel(undefined, true), WAKEUPS_STOPPED);
  assert.equal(footerLabel(undefined, false), undefined);
});

test("restarts back off 1, 2, 4 ... s up to 30 s, and keep going", () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 50].map(restartDelay), [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
});

const wakeup = (jobId: string, attempt: number, status = "complete") => ({ jobId, attempt, status, text: `${jobId} ${attempt}` });

test("a wake-up and one reminder are shown; later reminders are not", () => {
  assert.deepEqual(planDelivery([wakeup("a", 1)], new Set()), { show: [wakeup("a", 1)], triggerTurn: true });
  assert.deepEqual(planDelivery([wakeup("a", 2)], new Set()), { show: [wakeup("a", 2)], triggerTurn: true });
  assert.deepEqual(planDelivery([wakeup("a", 3)], new Set()), { show: [], triggerTurn: false });
  const notice = { jobId: "n-1", noticeId: "n-1", attempt: 1, text: "page" };
  assert.deepEqual(planDelivery([notice], new Set()), { show: [notice], triggerTurn: true });
});

test("a job this session cancelled is shown once and starts no turn", () => {
  const mine = new Set(["a"]);
  const cancelled = wakeup("a", 1, "cancelled");
  assert.deepEqual(planDelivery([cancelled], mine), { show: [cancelled], triggerTurn: false });
  assert.deepEqual(planDelivery([wakeup("a", 2, "cancelled")], mine), { show: [], triggerTurn: false });
  // Cancelled elsewhere, or ending with another job: the other one's turn carries it.
  assert.equal(planDelivery([cancelled], new Set()).triggerTurn, true);
  const both = planDelivery([cancelled, wakeup("b", 1)], mine);
  assert.equal(both.show.length, 2);
  assert.equal(both.triggerTurn, true);
});

test("the job an oracle_cancel result names", () => {
  assert.equal(cancelledJob({ text: "", data: { outcome: "cancelled" }, isError: false }, { jobId: "j1" }), "j1");
  assert.equal(
    cancelledJob({ text: "", data: { error: { code: "job_not_cancellable" } }, isError: true }, { jobId: "j1" }),
    undefined,
  );
});

test("/oracle-council takes its members, then the question", () => {
  assert.deepEqual(councilArguments("chatgpt:pro_extended,grok:heavy Is this sound?\nReally?"), {
    members: ["chatgpt:pro_extended", "grok:heavy"],
    prompt: "Is this sound?\nReally?",
    files: ["."],
  });
  assert.equal(councilArguments("chatgpt:pro_extended"), undefined); // no question
  assert.equal(councilArguments(""), undefined);
  assert.equal(councilArguments("Is this sound?"), undefined); // a question is no member list
});

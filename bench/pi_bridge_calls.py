"""The pi package's per-call latency: one tool call through the bridge, as the package makes it.

Before issue 40 §5 the package ran every tool call as its own `oraculum bridge call` process
(interpreter start, MCP SDK import, schemas built, server state made: 2-7 s on a loaded
machine); now each session has one long-lived `oraculum bridge serve` child and a call is one
JSON line to it. Times both in a throwaway oraculum home, with the same call
(`oracle_status` of the project: no jobs) and the serving child already started, as it is
from the session's start. Prints medians and the ratio to the 0.5 s target.

    .venv/bin/python bench/pi_bridge_calls.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _home import startup_home
from _report import record

ORACULUM = str(Path(sys.executable).with_name("oraculum"))
TARGET_S = 0.5
SESSION = ["--session", "bench-pi-bridge"]
TOOL = "oracle_status"


def one_shot(project: Path) -> float:
    """Seconds for one `oraculum --json bridge call` process (spawn to its answer)."""
    began = time.perf_counter()
    done = subprocess.run(
        [ORACULUM, "--json", "bridge", "call", TOOL, *SESSION],
        cwd=project,
        input=b"{}",
        capture_output=True,
        check=True,
    )
    elapsed = time.perf_counter() - began
    assert json.loads(done.stdout)["isError"] is False, done.stdout
    return elapsed


def served(project: Path, runs: int) -> tuple[float, list[float]]:
    """Seconds from spawning `oraculum bridge serve` to its ready line, and per call after."""
    began = time.perf_counter()
    child = subprocess.Popen(
        [ORACULUM, "bridge", "serve", *SESSION],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        assert json.loads(child.stdout.readline())["type"] == "ready"
        ready = time.perf_counter() - began
        calls = []
        for number in range(runs + 1):
            began = time.perf_counter()
            request = {"id": number, "tool": TOOL, "arguments": {}}
            child.stdin.write(json.dumps(request).encode() + b"\n")
            child.stdin.flush()
            answer = json.loads(child.stdout.readline())
            calls.append(time.perf_counter() - began)
            assert answer["id"] == number and answer["isError"] is False, answer
    finally:
        child.stdin.close()
        child.wait(30)
    return ready, calls[1:]  # the first call makes the session's state


def report(label: str, samples: list[float]) -> float:
    median = statistics.median(samples)
    print(f"  {label:34} median {median * 1000:7.1f} ms   min {min(samples) * 1000:7.1f} ms")
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed calls of each kind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="oraculum-bench-pi-") as tmp:
        project = startup_home(Path(tmp))
        one_shot(project)  # untimed: compiles bytecode into the cache, warms the page cache
        before = [one_shot(project) for _ in range(args.runs)]
        ready, after = served(project, args.runs)
    print(f"{args.runs} `{TOOL}` calls each way:")
    old = report("one process per call (before)", before)
    new = report("long-lived bridge serve (after)", after)
    print(f"  {'bridge serve: spawn → ready':34} {ready * 1000:7.1f} ms (once per session)")
    record("pi_bridge_calls", "one-shot bridge call (median)", old * 1000, None, unit="ms")
    record("pi_bridge_calls", "call via bridge serve (median)", new * 1000, TARGET_S * 1000,
           unit="ms")  # fmt: skip
    print(f"per call: {new / TARGET_S:.2f} × the {TARGET_S:g} s target ({old / new:.0f}× faster)")


if __name__ == "__main__":
    main()

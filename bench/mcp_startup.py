"""MCP start-up: spawn `oraculum mcp` → its answer to the client's opening, as a host sees it.

A host starts the server and waits for the opening before it lists tools; some start servers
lazily, at the first tool call, so this wait is on the agent's critical path, and a 2026-07-28
client (Claude Code) that waits 2-3 s for `server/discover` falls back to `initialize`. Runs
the real command N times per opening in a throwaway oraculum home, each time writing the
opening request — `initialize` (as pi and the MCP Inspector send it) or `server/discover` (as
Claude Code and the SDK's `auto` client do) — and timing the first response line; also times
the `tools/list` that follows (the SDK has loaded by then). Prints median and min per opening,
and the ratio of each median to the 0.5 s target. Bytecode is cached in the throwaway
directory.

    .venv/bin/python bench/mcp_startup.py [--runs 15]
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
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
Message = dict[str, object]
# Each opening: its first request, then what the client sends once it has the answer.
OPENINGS: dict[str, tuple[Message, list[Message]]] = {
    "initialize": (
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        },
        [
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ],
    ),
    "server/discover": (
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": ENVELOPE}},
        [{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": ENVELOPE}}],
    ),
}


def line(message: Message) -> bytes:
    return json.dumps(message).encode() + b"\n"


def one_run(project: Path, opening: str) -> tuple[float, float]:
    """Seconds from spawn to the opening's response, and to the `tools/list` response."""
    first_request, after = OPENINGS[opening]
    began = time.perf_counter()
    server = subprocess.Popen(
        [ORACULUM, "mcp", "--session", "bench-mcp-startup"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(line(first_request))
        server.stdin.flush()
        first = json.loads(server.stdout.readline())
        answered = time.perf_counter() - began
        assert first.get("id") == 1 and "result" in first, first
        server.stdin.write(b"".join(line(m) for m in after))
        server.stdin.flush()
        tools = json.loads(server.stdout.readline())
        listed = time.perf_counter() - began
        assert tools.get("id") == 2 and tools["result"]["tools"], tools
    finally:
        server.stdin.close()
        server.wait(30)
    return answered, listed


def report(label: str, samples: list[float]) -> float:
    median = statistics.median(samples)
    print(f"  {label:38} median {median * 1000:7.1f} ms   min {min(samples) * 1000:7.1f} ms")
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs per opening")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="oraculum-bench-mcp-") as tmp:
        project = startup_home(Path(tmp))
        one_run(project, "initialize")  # untimed: compiles bytecode, warms the page cache
        # Interleaved, so a burst of load elsewhere weighs on both openings alike.
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in OPENINGS}
        for _ in range(args.runs):
            for name in OPENINGS:
                runs[name].append(one_run(project, name))
    print(f"{args.runs} runs of `oraculum mcp` per opening:")
    medians: dict[str, float] = {}
    for name, samples in runs.items():
        medians[name] = report(f"spawn → {name} response", [r[0] for r in samples])
        record(
            "mcp_startup",
            f"spawn -> {name} response (median)",
            medians[name] * 1000,
            TARGET_S * 1000,
            unit="ms",
        )
        report(f"spawn → tools/list ({name})", [r[1] for r in samples])
    for name, median in medians.items():
        print(f"{name}: {median / TARGET_S:.2f} × the {TARGET_S:g} s target")


if __name__ == "__main__":
    main()

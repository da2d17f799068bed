"""MCP start-up: spawn `oraculum mcp` → its `initialize` response, as a host sees it.

A host starts the server and waits for the handshake before it lists tools; some start
servers lazily, at the first tool call, so this wait is on the agent's critical path. Runs the
real command N times in a throwaway oraculum home, each time writing one `initialize` request
(as pi and the MCP Inspector send it) and timing the first response line; also times the
`tools/list` that follows (the SDK has loaded by then). Prints median and min, and the ratio of
the median to the 0.5 s target. Bytecode is cached in the throwaway directory.

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
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
AFTER: list[dict[str, object]] = [
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def line(message: dict[str, object]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def one_run(project: Path) -> tuple[float, float]:
    """Seconds from spawn to the `initialize` response, and to the `tools/list` response."""
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
        server.stdin.write(line(INITIALIZE))
        server.stdin.flush()
        first = json.loads(server.stdout.readline())
        initialized = time.perf_counter() - began
        assert first.get("id") == 1 and "result" in first, first
        server.stdin.write(b"".join(line(m) for m in AFTER))
        server.stdin.flush()
        tools = json.loads(server.stdout.readline())
        listed = time.perf_counter() - began
        assert tools.get("id") == 2 and tools["result"]["tools"], tools
    finally:
        server.stdin.close()
        server.wait(30)
    return initialized, listed


def report(label: str, samples: list[float]) -> float:
    median = statistics.median(samples)
    print(f"  {label:28} median {median * 1000:7.1f} ms   min {min(samples) * 1000:7.1f} ms")
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="oraculum-bench-mcp-") as tmp:
        project = startup_home(Path(tmp))
        one_run(project)  # untimed: compiles bytecode into the cache, warms the page cache
        runs = [one_run(project) for _ in range(args.runs)]
    print(f"{args.runs} runs of `oraculum mcp`:")
    median = report("spawn → initialize response", [r[0] for r in runs])
    record(
        "mcp_startup",
        "spawn -> initialize response (median)",
        median * 1000,
        TARGET_S * 1000,
        unit="ms",
    )
    report("spawn → tools/list response", [r[1] for r in runs])
    print(f"initialize: {median / TARGET_S:.2f} × the {TARGET_S:g} s target")


if __name__ == "__main__":
    main()

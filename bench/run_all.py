"""Every benchmark, then one table: figure, value, target, ratio, met.

    .venv/bin/python bench/run_all.py [--only archive,admission,...] [--quick] [--twice]

Runs each bench of bench/ as its own process (each in its own throwaway oraculum home, as when
run alone), with ``ORACULUM_BENCH_REPORT`` naming a file where the benches write their figures
(see bench/_report.py), and prints their own output as it comes, then the table. The ratio is
value / target: at or under 1.00 is met for "lower is better" figures. ``--twice`` runs the whole
set two times in a row (issue 25's "done when": every target met on two runs in a row) and
prints a table per round. Exit status 0 only when every figure of every round met its target and
every bench ran. The load average is printed with each table: the figures mean little on a
machine busy with other work. Targets are listed in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _report import ENV

HERE = Path(__file__).resolve().parent

# name -> (script, arguments, quick arguments)
BENCHES: dict[str, tuple[str, list[str], list[str]]] = {
    "archive": (
        "archive.py",
        ["--stdlib", "--skip-real", "--no-19", "--runs", "5"],
        ["--stdlib", "--skip-real", "--no-19", "--runs", "3"],
    ),
    "admission": ("admission.py", [], []),
    "scale": ("scale.py", [], ["--jobs", "2000"]),
    "e2e": ("e2e.py", ["--runs", "5"], ["--runs", "2", "--seed-mb", "50"]),
    "wait": ("wait.py", [], ["--jobs", "3"]),
    "cli_startup": ("cli_startup.py", [], ["--runs", "5"]),
    "mcp_startup": ("mcp_startup.py", [], ["--runs", "5"]),
}

__all__ = ["BENCHES", "main"]

# Benches that remove tens of thousands of files when they end (their trees, their jobs), and
# benches whose timed part makes files. On an ext4 without a journal (this project's benchmark
# machine) every new inode skips those freed in the last dirty_expire_centisecs (+5 s): right
# after 25,000 deletions a file took ~160 µs to create instead of ~16 µs, so a bench that
# makes files right after one that removed many measures the other's clean-up. A round lets
# the filesystem settle between them.
REMOVES_MANY_FILES = {"archive", "scale"}
MAKES_FILES = {"admission", "e2e", "wait"}


def settle_seconds() -> float:
    """How long freed inodes stay "recently deleted" here (see REMOVES_MANY_FILES)."""
    try:
        centisecs = int(Path("/proc/sys/vm/dirty_expire_centisecs").read_text())
    except (OSError, ValueError):
        centisecs = 3000
    return centisecs / 100 + 5


def run_bench(name: str, quick: bool, report: Path) -> int:
    script, full, short = BENCHES[name]
    print(f"\n######## {name}: {script} {' '.join(short if quick else full)}", flush=True)
    env = os.environ | {ENV: str(report)}
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(HERE / script), *(short if quick else full)], env=env, check=False
    )
    print(f"######## {name}: exit {done.returncode} in {time.perf_counter() - began:.0f} s")
    return done.returncode


def _rows(report: Path) -> list[dict[str, object]]:
    if not report.exists():
        return []
    return [json.loads(line) for line in report.read_text().splitlines() if line.strip()]


def _format_value(value: float, unit: str) -> str:
    return f"{value:.3f}{unit}" if unit == "x" else f"{value:.1f} {unit}".strip()


def table(rows: list[dict[str, object]], failed: dict[str, int]) -> tuple[str, bool]:
    """The table (pure) and whether everything held."""
    lines = [f"{'bench':12} {'figure':62} {'value':>12} {'target':>10} {'ratio':>6}  met"]
    ok = not failed
    for row in rows:
        value, target = float(str(row["value"])), float(str(row["target"]))
        unit = str(row["unit"])
        ratio = value / target if target else float("inf")
        sign = "<=" if row["better"] == "lower" else ">="
        met = bool(row["met"])
        ok = ok and met
        lines.append(
            f"{row['bench']!s:12} {row['figure']!s:62} {_format_value(value, unit):>12} "
            f"{sign + ' ' + _format_value(target, unit):>10} {ratio:6.2f}  "
            f"{'yes' if met else 'NO'}" + (f"  ({row['note']})" if row.get("note") else "")
        )
    for name, code in failed.items():
        lines.append(f"{name:12} {'bench did not finish':62} exit {code}")
    return "\n".join(lines), ok


def one_round(names: list[str], quick: bool) -> bool:
    with tempfile.TemporaryDirectory(prefix="oraculum-bench-all-") as tmp:
        report = Path(tmp) / "report.jsonl"
        failed = {}
        removed_at: float | None = None
        for name in names:
            if name in MAKES_FILES and removed_at is not None:
                pause = removed_at + settle_seconds() - time.monotonic()
                if pause > 0:
                    print(f"\n(letting the filesystem settle for {pause:.0f} s)", flush=True)
                    time.sleep(pause)
            code = run_bench(name, quick, report)
            if name in REMOVES_MANY_FILES:
                removed_at = time.monotonic()
            # A bench whose figures missed exits non-zero too: only one that wrote nothing
            # (it crashed) counts as not finished.
            if code != 0 and not any(r["bench"] == name for r in _rows(report)):
                failed[name] = code
        text, ok = table(_rows(report), failed)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\n==== summary (load average {load}; {os.cpu_count()} cores)\n{text}")
    print(f"==== {'every target met' if ok else 'NOT every target met'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(BENCHES), help="comma-separated benches")
    parser.add_argument("--quick", action="store_true", help="fewer runs (a smoke run)")
    parser.add_argument("--twice", action="store_true", help="two rounds in a row")
    args = parser.parse_args()
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        parser.error(f"unknown bench(es): {', '.join(unknown)}; known: {', '.join(BENCHES)}")
    # As installed (pip compiles a package): no bench process compiles a module it imports.
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(HERE.parent / "src" / "oraculum")],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    results = [one_round(names, args.quick) for _ in range(2 if args.twice else 1)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

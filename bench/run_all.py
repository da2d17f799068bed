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

# name -> (script, arguments, quick arguments), in the order a round runs them: the benches
# whose timed part makes files first, then those that remove tens of thousands (see below).
BENCHES: dict[str, tuple[str, list[str], list[str]]] = {
    "admission": ("admission.py", [], []),
    "e2e": ("e2e.py", ["--runs", "5"], ["--runs", "2", "--seed-mb", "50"]),
    "wait": ("wait.py", [], ["--jobs", "3"]),
    "archive": (
        "archive.py",
        ["--stdlib", "--skip-real", "--no-19", "--runs", "5"],
        ["--stdlib", "--skip-real", "--no-19", "--runs", "3"],
    ),
    "scale": ("scale.py", [], ["--jobs", "2000"]),
    "cli_startup": ("cli_startup.py", [], ["--runs", "5"]),
    "mcp_startup": ("mcp_startup.py", [], ["--runs", "5"]),
    "pi_bridge_calls": ("pi_bridge_calls.py", [], ["--runs", "5"]),
}

__all__ = ["BENCHES", "main"]

# Benches that remove tens of thousands of files when they end (their trees, their jobs), and
# benches whose timed part makes files. On an ext4 without a journal (this project's benchmark
# machine) a new inode skips every inode freed in the last 60 s, and in the last 360 s while
# that inode's table block is dirty (fs/ext4/ialloc.c: RECENTCY_MIN, RECENTCY_DIRTY), and new
# files land in their directory's block group, where the other benches' temporary files were.
# Right after a bench removed 25,000 files, making a file in /tmp took 0.2-0.9 ms against
# ~20 us in an untouched block group of the same filesystem; a bench that makes files then
# measures the other's clean-up. So a round runs the makers first, and a maker waits out that
# window after the last remover (the previous round's, with --twice).
REMOVES_MANY_FILES = {"archive", "scale"}
MAKES_FILES = {"admission", "e2e", "wait"}
RECENTLY_FREED_S = 60 + 300 + 5


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
        value, unit = float(str(row["value"])), str(row["unit"])
        met = bool(row["met"])
        ok = ok and met
        if row["target"] is None:  # reported beside the targets, never missed
            target_f, ratio_f, met_f = "-", "", "-"
        else:
            target = float(str(row["target"]))
            sign = "<=" if row["better"] == "lower" else ">="
            target_f = f"{sign} {_format_value(target, unit)}"
            ratio_f = f"{value / target if target else float('inf'):6.2f}"
            met_f = "yes" if met else "NO"
        lines.append(
            f"{row['bench']!s:12} {row['figure']!s:62} {_format_value(value, unit):>12} "
            f"{target_f:>10} {ratio_f:>6}  {met_f}"
            + (f"  ({row['note']})" if row.get("note") else "")
        )
    for name, code in failed.items():
        lines.append(f"{name:12} {'bench did not finish':62} exit {code}")
    return "\n".join(lines), ok


class Settling:
    """When the last bench that removed many files ended, and the pause a maker then needs."""

    def __init__(self) -> None:
        self.removed_at: float | None = None

    def before(self, name: str) -> None:
        if name not in MAKES_FILES or self.removed_at is None:
            return
        pause = self.removed_at + RECENTLY_FREED_S - time.monotonic()
        if pause > 0:
            print(f"\n(letting the filesystem settle for {pause:.0f} s)", flush=True)
            time.sleep(pause)

    def after(self, name: str) -> None:
        if name in REMOVES_MANY_FILES:
            self.removed_at = time.monotonic()


def one_round(names: list[str], quick: bool, settling: Settling) -> bool:
    with tempfile.TemporaryDirectory(prefix="oraculum-bench-all-") as tmp:
        report = Path(tmp) / "report.jsonl"
        failed = {}
        for name in names:
            settling.before(name)
            code = run_bench(name, quick, report)
            settling.after(name)
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
    settling = Settling()
    rounds = 2 if args.twice else 1
    results = [one_round(names, args.quick, settling) for _ in range(rounds)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

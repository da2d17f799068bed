"""CLI start-up: wall time of short `oraculum` commands run as real processes.

Agents call the CLI from shells many times a turn, so a command's cost is mostly the
interpreter and its imports. Runs each command N times in a throwaway oraculum home (one
finished dry-run job in it, for `read` and `wait`) and prints median and min wall time, next
to the floor: `python -c pass`, `python -c "import click"`, and a bare two-command click app
running a command with one string option (the CLI is a click app: this is the least any of
its commands can cost). Bytecode is cached in the throwaway directory (even under
PYTHONDONTWRITEBYTECODE), as an installed package has it.

    .venv/bin/python bench/cli_startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _home import startup_home
from _report import record

PYTHON = sys.executable
ORACULUM = str(Path(sys.executable).with_name("oraculum"))
BARE_CLICK_APP = """
import click
@click.group()
def app() -> None: pass
@app.command()
@click.option("--name", default="x")
def hello(name: str) -> None: pass
@app.command()
def other() -> None: pass
app(["hello"])
"""


def setup_home(home: Path) -> Path:
    """The throwaway home and project, in one oraculum session (for `status` to list)."""
    os.environ["ORACULUM_SESSION"] = "bench-cli-startup"
    return startup_home(home)


def finished_job(project: Path) -> str:
    """One dry-run job (test provider, a real worker) run to completion through the CLI."""
    done = subprocess.run(
        [ORACULUM, "--json", "submit", "-p", "bench", "--provider", "test", "--wait"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    job_id: str = json.loads(done.stdout)["job"]["id"]
    return job_id


def _wall_ms(argv: list[str], cwd: Path) -> float:
    began = time.perf_counter()
    subprocess.run(argv, cwd=cwd, capture_output=True, check=True)
    return (time.perf_counter() - began) * 1000


def timed(label: str, argv: list[str], cwd: Path, runs: int) -> float:
    # One untimed run first, so every timed run finds the same warm page cache.
    subprocess.run(argv, cwd=cwd, capture_output=True, check=True)
    samples = [_wall_ms(argv, cwd) for _ in range(runs)]
    median = statistics.median(samples)
    print(f"  {label:42} median {median:7.1f} ms   min {min(samples):7.1f} ms")
    return median


def timed_against_floor(label: str, argv: list[str], cwd: Path, runs: int) -> tuple[float, float]:
    """Medians of ``argv`` and of the bare click app, run in alternation: this machine's speed
    moves by 20-40 % within a minute, so a command compared with a floor measured a minute
    before reads that drift as its own cost."""
    subprocess.run(argv, cwd=cwd, capture_output=True, check=True)
    mine: list[float] = []
    floor: list[float] = []
    pair = [(argv, mine), ([PYTHON, "-c", BARE_CLICK_APP], floor)]
    for run in range(runs):
        for command, samples in pair if run % 2 == 0 else pair[::-1]:
            samples.append(_wall_ms(command, cwd))
    median, floor_median = statistics.median(mine), statistics.median(floor)
    print(
        f"  {label:42} median {median:7.1f} ms   min {min(mine):7.1f} ms   "
        f"(bare click app beside it: {floor_median:.1f} ms)"
    )
    return median, floor_median


def import_time_ms(module: str, cwd: Path, runs: int) -> float:
    """Median cumulative `-X importtime` of ``module`` (the last line reports the top module)."""
    samples = []
    for _ in range(runs):
        done = subprocess.run(
            [PYTHON, "-X", "importtime", "-c", f"import {module}"],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
        )
        last = done.stderr.strip().splitlines()[-1]
        samples.append(int(last.split("|")[1]) / 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs per command")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="oraculum-bench-startup-") as tmp:
        project = setup_home(Path(tmp))
        job_id = finished_job(project)
        print(f"{args.runs} runs each, in {tmp}\nfloor:")
        timed("python -c pass", [PYTHON, "-c", "pass"], project, args.runs)
        timed('python -c "import click"', [PYTHON, "-c", "import click"], project, args.runs)
        timed("bare click app, one command", [PYTHON, "-c", BARE_CLICK_APP], project, args.runs)
        print("commands, each run in alternation with the bare click app:")
        for command in (
            ["--version"],
            ["status", "--json"],
            ["status"],
            ["status", "--json", job_id],
            ["read", "--json", job_id],
            ["wait", "--json", job_id],
            ["presets", "--json"],
            ["config", "show", "--json"],
        ):
            label = "oraculum " + " ".join("<id>" if part == job_id else part for part in command)
            median, floor = timed_against_floor(label, [ORACULUM, *command], project, args.runs)
            # Reported, not targeted (issue 39 §2: one parser is worth some tens of ms of a
            # start). The ratio to a bare click app run beside it is what oraculum's own
            # imports (the job model and config through pydantic, mostly) add to the least a
            # click CLI costs.
            record(
                "cli_startup",
                f"{label} / bare click app",
                median / floor,
                None,
                unit="x",
                note=f"{median:.0f} ms vs {floor:.0f} ms",
            )
        cumulative = import_time_ms("oraculum.cli", project, args.runs)
        print(f"import oraculum.cli: {cumulative:.1f} ms cumulative (-X importtime, median)")


if __name__ == "__main__":
    main()

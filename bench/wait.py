"""How long after a job finishes does `oraculum wait` return? (target: < 2 s)

Submits dry-run jobs (test provider, real workers) in a throwaway oraculum home, runs
`oraculum wait <id>` as a separate process for each, and reports the time from the job's
recorded completion (`completedAt`) to the wait process exiting.

    .venv/bin/python bench/wait.py [--jobs 10] [--delay-ms 1500]
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
from datetime import datetime
from pathlib import Path

from _report import record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10)
    parser.add_argument("--delay-ms", type=int, default=1500, help="how long each job runs")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="oraculum-bench-wait-"))
    for name in ("jobs", "state", "config", "data"):
        os.environ[f"ORACULUM_{name.upper()}_DIR"] = str(home / name)
    os.environ["ORACULUM_SESSION"] = "bench-wait"
    project = home / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("")
    os.chdir(project)

    from oraculum.service.submit import submit

    oraculum = str(Path(sys.executable).with_name("oraculum"))
    latencies = []
    for _ in range(args.jobs):
        extras = {"delayMs": args.delay_ms}
        job = submit("bench", ["."], provider="test", selection_extras=extras).job
        done = subprocess.run(
            [oraculum, "--json", "wait", job["id"]], capture_output=True, text=True, check=True
        )
        exited = time.time()
        completed = json.loads(done.stdout)["job"]["completedAt"]
        finished = datetime.fromisoformat(completed.replace("Z", "+00:00")).timestamp()
        latencies.append(exited - finished)
    record("wait", "wake-up latency after completion (max)", max(latencies), 2.0, unit="s")
    print(
        json.dumps(
            {
                "jobs": args.jobs,
                "latencySeconds": {
                    "median": round(statistics.median(latencies), 3),
                    "max": round(max(latencies), 3),
                    "min": round(min(latencies), 3),
                },
                "targetSeconds": 2.0,
                "ok": max(latencies) < 2.0,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()

"""Hot paths with 10,000 finished jobs on disk: `status`, `read`, one reconcile pass.

Target (DESIGN): each under 50 ms. Run: `.venv/bin/python bench/scale.py [--jobs N]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from _report import record

from oraculum.service.caller import Caller


def setup_home(home: Path) -> None:
    from oraculum.core.paths import private_home_environment

    os.environ.update(private_home_environment(home))


def populate(count: int, projects: list[Path]) -> list[str]:
    """Finished jobs spread over several projects, written the way the engine writes them."""
    from oraculum.core.config import Config
    from oraculum.core.project import project_id
    from oraculum.jobs import indexes, transitions
    from oraculum.jobs.ids import new_job_id
    from oraculum.jobs.model import Phase, utc_now
    from oraculum.jobs.store import JobStore

    store = JobStore()
    snapshot = Config().to_json_dict()
    start = utc_now() - timedelta(days=1)
    ids = []
    for n in range(count):
        job_id = new_job_id()
        root = projects[n % len(projects)]
        paths = store.paths(job_id)
        fields = {
            "project_root": str(root),
            "project_id": project_id(root),
            "session_id": "bench",
            "provider": "test",
            "selection": {"provider": "test"},
            "prompt_path": str(paths.prompt),
            "archive_path": str(paths.archive(job_id, "chatgpt")),
            "response_path": str(paths.response),
            "artifacts_manifest_path": str(paths.artifacts_manifest),
            "logs_dir": str(paths.logs_dir),
            "runtime_id": f"rt{n}",
            "runtime_profile_dir": f"/nonexistent/rt{n}",
            "config": snapshot,
        }
        at = start + timedelta(seconds=n)
        job = transitions.create(job_id=job_id, at=at, queued=False, source="bench", fields=fields)
        for phase in (Phase.AWAITING_RESPONSE, Phase.COMPLETE):
            job = transitions.transition(job, phase, at=at, source="bench")
        job = transitions.update(
            job, at=at, source="bench", patch={"wakeup_settled_at": at, "last_cleanup_at": at}
        )
        store.create(job, "prompt")
        paths.response.write_text(f"answer {n}\n")
        indexes.mark(indexes.project(job.project_id), job_id)
        ids.append(job_id)
    return ids


def timed(label: str, action: Callable[[], object], runs: int = 20) -> float:
    samples = []
    for _ in range(runs):
        began = time.perf_counter()
        action()
        samples.append((time.perf_counter() - began) * 1000)
    median = statistics.median(samples)
    worst = max(samples)
    verdict = "ok" if median < 50 else "SLOW"
    record("scale", f"{label} (median)", median, 50, unit="ms")
    print(f"  {verdict:4} {label:40} median {median:7.2f} ms   max {worst:7.2f} ms")
    return median


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="oraculum-scale-") as tmp:
        home = Path(tmp)
        setup_home(home)
        projects = [home / f"project-{i}" for i in range(5)]
        for project in projects:
            project.mkdir()
            (project / "pyproject.toml").write_text("")
        began = time.perf_counter()
        ids = populate(args.jobs, projects)
        print(f"{len(ids)} finished jobs written in {time.perf_counter() - began:.1f} s")

        from oraculum.core.project import project_id
        from oraculum.jobs.reconcile import reconcile
        from oraculum.jobs.store import JobStore
        from oraculum.service.read import read
        from oraculum.service.status import status
        from oraculum.sessions.poller import Poller

        store = JobStore()
        medians = [
            timed(
                "status (recent jobs of a project)", lambda: status(caller=Caller(cwd=projects[0]))
            ),
            timed(
                "status <id>", lambda: status(ids[len(ids) // 2], caller=Caller(cwd=projects[0]))
            ),
            timed("reconcile pass", lambda: reconcile(store)),
        ]
        medians.append(
            timed("read <id>", lambda: read(ids[len(ids) // 2], caller=Caller(cwd=projects[0])))
        )
        medians.append(
            timed("read (newest of the project)", lambda: read(caller=Caller(cwd=projects[0])))
        )
        poller = Poller(project_id(projects[0]), "bench", lambda _wakeup: None, store=store)
        medians.append(timed("one poll (reconcile + wake-up scan)", poller.scan))
        return 0 if all(m < 50 for m in medians) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Admission under contention: 200 submits from 8 processes at capacity 2.

Checks that exactly 2 are admitted, the other 198 are queued in submit order, and nothing is
lost or duplicated; prints p50/p99 submit latency. Run: `.venv/bin/python bench/admission.py`.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

PROCESSES = 8
SUBMITS = 200
CAPACITY = 2


def setup_home(home: Path) -> None:
    from oraculum.core.paths import private_home_environment

    os.environ.update(private_home_environment(home))
    config_dir = home / "config"
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.json").write_text(
        json.dumps(
            {
                "browser": {"maxConcurrentJobs": CAPACITY},
                "queue": {"maxQueuedPerSlot": SUBMITS, "maxQueuedArchiveBytes": 10**9},
            }
        )
    )


def submitter(home: str, index: int, count: int, start, results) -> None:
    setup_home(Path(home))
    from oraculum.core.config import load_config
    from oraculum.jobs.admission import JobRequest, submit_job

    config = load_config().config
    project = Path(home) / "project"
    staging = Path(home) / "staging"
    start.wait()
    out = []
    for n in range(count):
        payload = f"archive {index}-{n}".encode()
        archive = staging / f"{index}-{n}.tar.zst"
        archive.write_bytes(payload)
        request = JobRequest(
            project_root=project,
            prompt=f"prompt {index}-{n}",
            provider="test",
            selection={"provider": "test", "outcome": "hang"},
            config=config,
            archive=archive,
            archive_sha256=hashlib.sha256(payload).hexdigest(),
            archive_bytes=len(payload),
            session_id="bench",
        )
        began = time.perf_counter()
        job = submit_job(request)
        out.append((job.id, job.status.value, index, n, time.perf_counter() - began))
    results.put(out)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="oraculum-admission-") as tmp:
        home = Path(tmp)
        setup_home(home)
        (home / "project").mkdir()
        (home / "staging").mkdir()
        ctx = multiprocessing.get_context("spawn")
        start = ctx.Event()
        results = ctx.Queue()
        per = SUBMITS // PROCESSES
        procs = [
            ctx.Process(target=submitter, args=(str(home), i, per, start, results))
            for i in range(PROCESSES)
        ]
        for proc in procs:
            proc.start()
        time.sleep(2.0)  # let every process import before the gun
        start.set()
        rows = [row for _ in procs for row in results.get(timeout=600)]
        for proc in procs:
            proc.join()

        from oraculum.jobs import indexes
        from oraculum.jobs.cancel import cancel_job
        from oraculum.jobs.store import JobStore

        store = JobStore()
        ids = [row[0] for row in rows]
        admitted = [row for row in rows if row[1] == "submitted"]
        queued = sorted(row for row in rows if row[1] == "queued")
        on_disk = store.list_ids()
        queue = indexes.members(indexes.QUEUE)
        per_process_in_order = all(
            [r[3] for r in queued if r[2] == p] == sorted(r[3] for r in queued if r[2] == p)
            for p in range(PROCESSES)
        )
        latencies = sorted(row[4] for row in rows)
        checks = {
            "submits": len(rows) == SUBMITS,
            "no duplicates": len(set(ids)) == SUBMITS,
            "none lost (dirs on disk)": sorted(on_disk) == sorted(ids),
            f"exactly {CAPACITY} admitted": len(admitted) == CAPACITY,
            "rest queued": len(queued) == SUBMITS - CAPACITY,
            "queue in submit order": queue == [r[0] for r in queued],
            "each process's submits queued in its order": per_process_in_order,
        }
        print(f"submits: {len(rows)} from {PROCESSES} processes at capacity {CAPACITY}")
        print(f"admitted: {len(admitted)}  queued: {len(queued)}  on disk: {len(on_disk)}")
        print(
            f"submit latency p50 {statistics.median(latencies) * 1000:.1f} ms, "
            f"p99 {latencies[int(len(latencies) * 0.99) - 1] * 1000:.1f} ms, "
            f"max {latencies[-1] * 1000:.1f} ms"
        )
        for name, ok in checks.items():
            print(f"  {'ok  ' if ok else 'FAIL'} {name}")
        for row in admitted:
            cancel_job(row[0], store=store)
        for row in queued:
            cancel_job(row[0], store=store)
        return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

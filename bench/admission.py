"""Admission under contention: 200 submits from 8 processes at capacity 2.

Checks that exactly 2 are admitted, the other 198 are queued in submit order, and nothing is
lost or duplicated; prints p50/p99 submit latency (target: p99 < 100 ms) and the load average
it ran under. Run: `.venv/bin/python bench/admission.py`.
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

from _report import record

PROCESSES = 8
SUBMITS = 200
CAPACITY = 2


def use_home(home: Path) -> None:
    from oraculum.core.paths import private_home_environment

    os.environ.update(private_home_environment(home))


def setup_home(home: Path) -> None:
    """Point this process at ``home`` and write its config (once, before any submitter)."""
    use_home(home)
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
    use_home(Path(home))  # not setup_home: rewriting the config would race the others' reads
    from oraculum.core.config import load_config
    from oraculum.jobs.admission import JobRequest, submit_job
    from oraculum.jobs.model import JobSelection

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
            selection=JobSelection(provider="test"),
            options={"outcome": "hang"},
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


def run_submitters(home: Path) -> tuple[list[tuple], float]:
    """All submits, from PROCESSES processes started together; (rows, seconds for all)."""
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
    began = time.perf_counter()
    rows = [row for _ in procs for row in results.get(timeout=600)]
    elapsed = time.perf_counter() - began
    for proc in procs:
        proc.join()
    return rows, elapsed


def checks(rows: list[tuple], on_disk: list[str], queue: list[str]) -> dict[str, bool]:
    ids = [row[0] for row in rows]
    admitted = [row for row in rows if row[1] == "submitted"]
    queued = sorted(row for row in rows if row[1] == "queued")
    per_process_in_order = all(
        [r[3] for r in queued if r[2] == p] == sorted(r[3] for r in queued if r[2] == p)
        for p in range(PROCESSES)
    )
    return {
        "submits": len(rows) == SUBMITS,
        "no duplicates": len(set(ids)) == SUBMITS,
        "none lost (dirs on disk)": sorted(on_disk) == sorted(ids),
        f"exactly {CAPACITY} admitted": len(admitted) == CAPACITY,
        "rest queued": len(queued) == SUBMITS - CAPACITY,
        "queue in submit order": queue == [r[0] for r in queued],
        "each process's submits queued in its order": per_process_in_order,
    }


def report(rows: list[tuple], elapsed: float, passed: dict[str, bool], on_disk: int) -> None:
    admitted = sum(1 for row in rows if row[1] == "submitted")
    latencies = sorted(row[4] for row in rows)
    p99 = latencies[int(len(latencies) * 0.99) - 1]
    print(f"submits: {len(rows)} from {PROCESSES} processes at capacity {CAPACITY}")
    print(f"admitted: {admitted}  queued: {len(rows) - admitted}  on disk: {on_disk}")
    print(
        f"submit latency p50 {statistics.median(latencies) * 1000:.1f} ms, "
        f"p99 {p99 * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms; "
        f"all {SUBMITS} in {elapsed:.2f} s (load average {os.getloadavg()[0]:.1f})"
    )
    for name, ok in passed.items():
        print(f"  {'ok  ' if ok else 'FAIL'} {name}")
    record("admission", "submit latency p99", p99 * 1000, 100, unit="ms")
    record(
        "admission",
        "order/loss/duplicate checks passed",
        sum(passed.values()),
        len(passed),
        better="higher",
    )


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="oraculum-admission-") as tmp:
        home = Path(tmp)
        setup_home(home)
        (home / "project").mkdir()
        (home / "staging").mkdir()
        rows, elapsed = run_submitters(home)

        from oraculum.jobs import indexes
        from oraculum.jobs.cancel import cancel_job
        from oraculum.jobs.store import JobStore

        store = JobStore()
        on_disk = store.list_ids()
        passed = checks(rows, on_disk, indexes.members(indexes.QUEUE))
        report(rows, elapsed, passed, len(on_disk))
        # The admitted first: cancelling a queued job first would promote the next one.
        for row in sorted(rows, key=lambda r: r[1] != "submitted"):
            cancel_job(row[0], store=store)
        return 0 if all(passed.values()) else 1


if __name__ == "__main__":
    sys.exit(main())

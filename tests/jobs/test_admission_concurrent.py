"""Admission from several real processes at once, and the deferred durability of new jobs.

Each submit now writes its job without fsync under the admission lock and makes it durable
(and starts an admitted job's worker) after releasing it; these check that nothing about the
outcome changed: exactly the capacity is admitted, the rest is queued in submit order, and
nothing is lost or duplicated.
"""

from __future__ import annotations

import multiprocessing
import shutil
from pathlib import Path

import pytest

from oraculum.core.config import Config
from oraculum.core.errors import OracleError
from oraculum.jobs import indexes
from oraculum.jobs.admission import submit_job
from oraculum.jobs.cancel import cancel_job
from oraculum.jobs.model import Status
from oraculum.jobs.store import JobStore

from .engine_support import make_request, write_global_config

CTX = multiprocessing.get_context("fork")
PROCESSES = 4
EACH = 5


def _submitter(project: str, config: Config, index: int, start, results) -> None:
    start.wait(30)
    rows = []
    for n in range(EACH):
        request = make_request(Path(project), config, knobs={"outcome": "hang"})
        job = submit_job(request)
        rows.append((job.id, job.status.value, index, n))
    results.put(rows)


def _submit_from_processes(project: Path, config: Config) -> list[tuple[str, str, int, int]]:
    start, results = CTX.Event(), CTX.Queue()
    procs = [
        CTX.Process(target=_submitter, args=(str(project), config, i, start, results))
        for i in range(PROCESSES)
    ]
    for proc in procs:
        proc.start()
    start.set()
    rows = [row for _ in procs for row in results.get(timeout=120)]
    for proc in procs:
        proc.join(30)
        assert proc.exitcode == 0
    return rows


def test_concurrent_submits_admit_capacity_and_queue_the_rest_in_order(
    project: Path, store: JobStore
) -> None:
    config = write_global_config({"queue": {"maxQueuedPerSlot": PROCESSES * EACH}}, capacity=1)
    rows = _submit_from_processes(project, config)
    try:
        ids = [row[0] for row in rows]
        assert len(set(ids)) == PROCESSES * EACH
        assert sorted(store.list_ids()) == sorted(ids)
        admitted = [row for row in rows if row[1] == Status.SUBMITTED.value]
        queued = sorted(row for row in rows if row[1] == Status.QUEUED.value)
        assert len(admitted) == 1
        assert len(queued) == PROCESSES * EACH - 1
        assert indexes.members(indexes.QUEUE) == [row[0] for row in queued]
        for index in range(PROCESSES):  # each process's submits queue in its own order
            mine = [row[3] for row in queued if row[2] == index]
            assert mine == sorted(mine)
        for job_id in ids:  # every job is complete on disk, prompt and archive in place
            job = store.load(job_id)
            assert Path(job.prompt_path).read_text() == "What is the answer?"
            assert Path(job.archive_path).is_file()
    finally:
        for row in sorted(rows, key=lambda r: r[1] != Status.SUBMITTED.value):
            cancel_job(row[0], store=store)


def test_a_job_created_without_sync_is_readable_then_made_durable(
    project: Path, store: JobStore
) -> None:
    config = write_global_config(capacity=1)
    active = submit_job(make_request(project, config, knobs={"outcome": "hang"}), store=store)
    queued = submit_job(make_request(project, config), store=store)
    try:
        loaded = store.load(queued.id)
        assert (loaded.id, loaded.status, loaded.archive_sha256) == (
            queued.id,
            Status.QUEUED,
            queued.archive_sha256,
        )
        store.sync_created(queued.id)  # idempotent: submit already did it
        shutil.rmtree(store.paths(queued.id).dir)
        with pytest.raises(OracleError) as info:
            store.sync_created(queued.id)
        assert info.value.code == "io_error"
    finally:
        cancel_job(active.id, store=store)

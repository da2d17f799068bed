"""Upstream acceptance scenarios (numbers from the behaviour inventory, §11) that the other
engine tests do not already name, with real processes, real locks and real files."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest

from oraculum.jobs import leases, transitions
from oraculum.jobs.admission import conversation_holder, promote_queue, submit_job
from oraculum.jobs.cancel import cancel_job
from oraculum.jobs.locks import named_lock
from oraculum.jobs.model import Phase, Status, WorkerIdentity, utc_now
from oraculum.jobs.process import Liveness, liveness, process_start_time
from oraculum.jobs.reconcile import reconcile, recover_stale
from oraculum.jobs.rules import EngineSettings
from oraculum.jobs.runtime import job_settings_config

from .engine_support import make_request, wait_for, write_global_config

pytestmark = pytest.mark.slow


def finished(job) -> bool:
    return job.is_terminal and not job.cleanup_pending and liveness(job.worker) != Liveness.ALIVE


def sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True
    )


def test_s2_reconcile_repairs_a_finished_job_stuck_with_cleanup(project, store) -> None:
    config = write_global_config()
    job = wait_for(
        store,
        submit_job(make_request(project, config, conversation_id="c2"), store=store).id,
        finished,
    )
    # A crash left it claiming cleanup and holding both leases.
    leases.write_lease(leases.RUNTIME, job.runtime_id, job.id)
    leases.write_lease(leases.CONVERSATION, "c2", job.id)
    store.update(
        job.id,
        lambda j: transitions.update(j, at=utc_now(), source="t", patch={"cleanup_pending": True}),
    )
    assert job.id in reconcile(store).cleaned
    repaired = store.load(job.id)
    assert not repaired.cleanup_pending and repaired.cleanup_warnings is None
    assert leases.read_lease(leases.RUNTIME, job.runtime_id) is None
    assert leases.read_lease(leases.CONVERSATION, "c2") is None


def test_s3_a_live_but_stale_cleanup_worker_is_killed_then_cleaned(project, store) -> None:
    config = write_global_config()
    job = wait_for(store, submit_job(make_request(project, config), store=store).id, finished)
    stuck = sleeper()
    try:
        started = process_start_time(stuck.pid)
        identity = WorkerIdentity(pid=stuck.pid, start_time=started, nonce="n")
        old = utc_now() - timedelta(minutes=5)
        store.update(
            job.id,
            lambda j: j.model_copy(
                update={
                    "worker": identity,
                    "cleanup_pending": True,
                    "last_cleanup_at": old,
                    "heartbeat_at": old,
                }
            ),
        )
        assert job.id in reconcile(store).cleaned
        stuck.wait(10)
        assert stuck.returncode is not None  # terminated
        assert not store.load(job.id).cleanup_pending
    finally:
        stuck.kill()
        stuck.wait()


def test_s29_reconcile_never_overwrites_a_job_that_finished_while_it_waited(project, store) -> None:
    config = write_global_config()
    job = submit_job(make_request(project, config, knobs={"outcome": "hang"}), store=store)
    running = wait_for(store, job.id, lambda j: j.phase == Phase.AWAITING_RESPONSE)
    settings = EngineSettings.from_config(job_settings_config(running))
    outcome: list[bool] = []
    with named_lock("job", job.id):
        recovering = threading.Thread(
            target=lambda: outcome.append(
                recover_stale(store, running, "test says stale", settings)
            )
        )
        recovering.start()
        time.sleep(3)  # it has terminated the worker and now waits for the job lock
        done = transitions.transition(
            transitions.transition(
                store.load(job.id), Phase.EXTRACTING_RESPONSE, at=utc_now(), source="t"
            ),
            Phase.COMPLETE,
            at=utc_now(),
            source="t",
        )
        store.save(done)  # we hold the lock: the completion lands first
    recovering.join(30)
    assert outcome == [False]
    assert store.load(job.id).status == Status.COMPLETE


def test_s35_promotion_uses_the_jobs_config_snapshot(project, store) -> None:
    config = write_global_config(capacity=1)
    running = submit_job(make_request(project, config, knobs={"outcome": "hang"}), store=store)
    queued = submit_job(make_request(project, config), store=store)
    write_global_config(capacity=5)  # today's config would admit it; its snapshot says 1
    assert promote_queue(store) == []
    assert store.load(queued.id).status == Status.QUEUED
    cancel_job(running.id, store=store)
    assert wait_for(store, queued.id, finished).status == Status.COMPLETE
    assert store.load(queued.id).config["browser"]["maxConcurrentJobs"] == 1


def test_s41_cancel_of_an_unverifiable_worker_fails_truthfully(project, store) -> None:
    config = write_global_config()
    job = submit_job(make_request(project, config, knobs={"outcome": "hang"}), store=store)
    running = wait_for(store, job.id, lambda j: j.phase == Phase.AWAITING_RESPONSE)
    bystander = sleeper()
    try:
        impostor = WorkerIdentity(
            pid=bystander.pid, start_time=process_start_time(bystander.pid) - 50, nonce="x"
        )
        store.update(job.id, lambda j: j.model_copy(update={"worker": impostor}))
        result = cancel_job(job.id, store=store)
        assert result.outcome == "cancel_failed"
        assert result.message == f"Oracle job {job.id} failed during cancellation."
        final = store.load(job.id)
        assert final.status == Status.FAILED and final.error_code == "cancel_failed"
        assert "could not be terminated safely" in final.cleanup_warnings[0]
        assert bystander.poll() is None  # never signalled
    finally:
        bystander.kill()
        bystander.wait()
        cancel_job(job.id, store=store)
        from oraculum.jobs.process import terminate

        terminate(running.worker, grace_s=2)


def test_s43_promotion_whose_spawn_fails_fails_the_job_and_leaks_nothing(project, store) -> None:
    config = write_global_config(capacity=1, extra={"queue": {"maxQueuedPerSlot": 2}})
    running = submit_job(make_request(project, config, knobs={"outcome": "hang"}), store=store)
    broken = submit_job(make_request(project, config), store=store)
    after = submit_job(make_request(project, config), store=store)
    logs = store.paths(broken.id).logs_dir
    assert not logs.exists()  # a queued job's logs/ is made when its worker starts
    logs.write_text("not a directory")  # the worker log cannot be opened
    cancel_job(running.id, store=store)
    failed = wait_for(store, broken.id, lambda j: j.is_terminal)
    assert failed.status == Status.FAILED
    assert failed.error.startswith("Queued promotion failed")
    assert wait_for(store, after.id, finished).status == Status.COMPLETE
    assert not list(leases.list_leases(leases.RUNTIME))


def test_s46_a_jobs_own_conversation_lease_is_idempotent(store) -> None:
    leases.write_lease(leases.CONVERSATION, "c46", "0000000000abc")
    assert conversation_holder(store, "c46", "0000000000abc") is None
    # A lease whose owner does not exist any more is dropped for the next taker.
    assert conversation_holder(store, "c46", "0000000000xyz") is None
    assert leases.read_lease(leases.CONVERSATION, "c46") is None


def chattr(flag: str, path: Path) -> bool:
    """Make a file undeletable even for root (ext4's immutable bit); False when unsupported."""
    done = subprocess.run(["chattr", flag, str(path)], capture_output=True, check=False)
    return done.returncode == 0


def test_s38_s39_s40_an_archive_that_cannot_be_deleted_is_retried_and_counted(
    project, store
) -> None:
    from oraculum.core.errors import OracleError
    from oraculum.jobs import indexes

    config = write_global_config(
        capacity=1, extra={"queue": {"maxQueuedPerSlot": 5, "maxQueuedArchiveBytes": 100}}
    )
    running = submit_job(make_request(project, config, knobs={"outcome": "hang"}), store=store)
    stuck = submit_job(make_request(project, config), store=store)
    archive = Path(stuck.archive_path)
    if not chattr("+i", archive):
        pytest.skip("this filesystem has no immutable bit")
    try:
        outcome = cancel_job(stuck.id, store=store)  # S38: cancelled, with a warning
        assert outcome.outcome == "cancelled"
        kept = store.load(stuck.id)
        assert kept.status == Status.CANCELLED
        assert "Failed to remove queued archive" in kept.cleanup_warnings[0]
        assert kept.error == "Cancelled by user"  # warnings never become the error
        assert archive.exists() and stuck.id in indexes.members(indexes.STRANDED)
        # S40: the stranded archive still counts against the queued-bytes cap.
        submit_job(make_request(project, config), store=store)  # 40 queued + 40 stranded
        with pytest.raises(OracleError) as info:  # 80 + 40 > 100; without the stranded 40 it fits
            submit_job(make_request(project, config), store=store)
        assert info.value.code == "queue_full"
        assert "retained pre-submit archives" in info.value.message
        # S39: reconcile retries while it fails, keeping the warning...
        store.update(stuck.id, lambda j: j.model_copy(update={"cleanup_retry_at": utc_now()}))
        reconcile(store)
        assert store.load(stuck.id).cleanup_warnings
    finally:
        chattr("-i", archive)
    # ...and clears it once the archive can go.
    store.update(stuck.id, lambda j: j.model_copy(update={"cleanup_retry_at": utc_now()}))
    assert stuck.id in reconcile(store).cleaned
    cleared = store.load(stuck.id)
    assert cleared.cleanup_warnings is None and not archive.exists()
    assert stuck.id not in indexes.members(indexes.STRANDED)
    cancel_job(running.id, store=store)


def test_s6_a_clone_past_its_deadline_stops_and_leaves_nothing(tmp_path: Path) -> None:
    from oraculum.browser.profile import clone_profile
    from oraculum.core.errors import OracleError

    seed = tmp_path / "seed"
    (seed / "Default").mkdir(parents=True)
    for n in range(50):
        (seed / "Default" / f"f{n}").write_bytes(b"x" * 1024)
    target = tmp_path / "runtime"
    with pytest.raises(OracleError) as info:
        clone_profile(seed, target, timeout_s=0)
    assert info.value.code == "profile_clone_timeout" and info.value.retryable
    assert not target.exists()


def test_s44_a_handoff_whose_identity_cannot_be_saved_kills_the_worker(project, store) -> None:
    import psutil

    from oraculum.core.errors import OracleError
    from oraculum.jobs.admission import _hand_off, _job_fields
    from oraculum.jobs.ids import new_job_id

    config = write_global_config()
    request = make_request(project, config)
    job_id = new_job_id()
    job = transitions.create(
        job_id=job_id,
        at=utc_now(),
        queued=False,
        source="t",
        fields=_job_fields(request, store, job_id),
    )
    paths = store.create(job, "p")
    paths.job_file.unlink()
    paths.job_file.mkdir()  # job.json can no longer be written or read
    with pytest.raises(OracleError) as info:
        _hand_off(
            store, job, source="t", failure_prefix="Submission failed before durable worker handoff"
        )
    assert info.value.code == "oracle_submit_failed"
    assert "before durable worker handoff" in info.value.message
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        orphans = [
            p
            for p in psutil.process_iter(["cmdline"])
            if p.info["cmdline"] and str(paths.dir) in " ".join(p.info["cmdline"])
        ]
        if not orphans:
            break
        time.sleep(0.1)
    assert not orphans  # the worker spawned for it was stopped, not left running

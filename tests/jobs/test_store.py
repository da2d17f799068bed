"""The job store on a real filesystem: atomic writes under SIGKILL, ids, corruption, lookup."""

from __future__ import annotations

import json
import os
import random
import signal
import stat
import time
from pathlib import Path

import pytest

from oraculum.core.config import Config, load_config
from oraculum.core.errors import OracleError
from oraculum.jobs import runtime, transitions
from oraculum.jobs.ids import JOB_ID_PATTERN, new_job_id, validate_job_id
from oraculum.jobs.model import Job, Phase
from oraculum.jobs.runtime import snapshot_config
from oraculum.jobs.store import JobStore

from .conftest import T0, build_job, job_fields


def test_create_is_private_and_round_trips(store: JobStore) -> None:
    job = build_job()
    paths = store.create(job, "What is 2+2?")
    assert stat.S_IMODE(paths.dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(paths.job_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(paths.prompt.stat().st_mode) == 0o600
    assert paths.prompt.read_text() == "What is 2+2?"
    assert store.load(job.id) == job
    with pytest.raises(FileExistsError):
        store.create(job, "again")  # never overwrites an existing job


def test_a_prepared_directory_becomes_the_job_whole_or_stays_aside(store: JobStore) -> None:
    job = build_job()
    prepared = store.prepare("the prompt")
    assert prepared.parent == store.staging_root and store.list_ids() == []
    assert stat.S_IMODE(prepared.stat().st_mode) == 0o700
    paths = store.adopt(job, prepared)
    assert not prepared.exists() and store.list_ids() == [job.id]
    assert paths.prompt.read_text() == "the prompt"
    assert store.load(job.id) == job
    # Adopting onto an existing job refuses and leaves both as they were.
    again = store.prepare("another prompt")
    with pytest.raises(FileExistsError):
        store.adopt(job, again)
    assert paths.prompt.read_text() == "the prompt"
    assert (again / "prompt.md").read_text() == "another prompt"


def test_adopting_makes_no_file_it_writes_into_the_prepared_one(store: JobStore) -> None:
    """Admission adopts under its lock: making an inode there is what made a hold slow."""
    prepared = store.prepare("the prompt")
    placeholder = prepared / "job.json"
    assert placeholder.read_bytes() == b""
    inode = placeholder.stat().st_ino
    job = build_job()
    paths = store.adopt(job, prepared)
    assert paths.job_file.stat().st_ino == inode
    assert stat.S_IMODE(paths.job_file.stat().st_mode) == 0o600
    assert store.load(job.id) == job


def test_a_job_file_is_the_json_every_state_file_is() -> None:
    from oraculum.core.fsio import json_bytes

    plain = build_job()
    assert plain.to_json_bytes() == json_bytes(plain.to_json_dict())
    odd = plain.model_copy(update={"options": {"s": 'héllo ✓ \u2028 "q" \\', "f": 1e-7}})
    assert json.loads(odd.to_json_bytes()) == odd.to_json_dict()
    assert odd.to_json_bytes().decode().count("\n") == json_bytes(
        odd.to_json_dict()
    ).decode().count("\n")


def test_ids_sort_by_creation_time() -> None:
    ids = [new_job_id(now_ms=ms) for ms in (1, 1_000, 1_700_000_000_000, 1_800_000_000_000)]
    ids += [new_job_id() for _ in range(1000)]
    assert ids == sorted(ids)
    assert all(JOB_ID_PATTERN.fullmatch(i) for i in ids)
    assert len({new_job_id() for _ in range(1000)}) == 1000


@pytest.mark.parametrize(
    "bad",
    ["../x", "/etc", "", "a" * 500, "abc\x00def12345", "jöb0123456789", "..", "iiiiilllllooo", 42],
)
def test_bad_ids_are_refused_before_any_path(bad: object, store: JobStore, tmp_path: Path) -> None:
    before = set(tmp_path.rglob("*"))
    with pytest.raises(OracleError) as info:
        validate_job_id(bad)
    assert info.value.code == "invalid_job_id"
    for call in (store.paths, store.load):
        with pytest.raises(OracleError) as info:
            call(bad)  # type: ignore[arg-type]
        assert info.value.code == "invalid_job_id"
    with pytest.raises(OracleError) as info:
        store.resolve(bad)  # type: ignore[arg-type]
    assert info.value.code == "invalid_job_id"
    assert set(tmp_path.rglob("*")) == before


def test_corrupt_job_is_reported_without_affecting_others(store: JobStore) -> None:
    good, bad, invalid = build_job(), build_job(), build_job()
    for job in (good, bad, invalid):
        store.create(job, "p")
    store.paths(bad.id).job_file.write_text("{not json")
    raw = json.loads(store.paths(invalid.id).job_file.read_text())
    raw["status"] = "complete"  # phase says submitted: breaks an invariant
    store.paths(invalid.id).job_file.write_text(json.dumps(raw))
    for broken in (bad, invalid):
        with pytest.raises(OracleError) as info:
            store.load(broken.id)
        assert info.value.code == "job_corrupt"
        assert str(store.paths(broken.id).job_file) in info.value.message
    assert store.load(good.id) == good
    results = list(store.iter_jobs())
    assert sum(isinstance(r, Job) for r in results) == 1
    assert sorted(r.rejected_value for r in results if isinstance(r, OracleError)) == sorted(
        str(store.paths(j.id).job_file) for j in (bad, invalid)
    )


def test_resolve_by_unique_prefix(store: JobStore) -> None:
    a = build_job(job_id="0000000000aaa")
    b = build_job(job_id="0000000000abb")
    c = build_job(job_id="1111111111ccc")
    for job in (a, b, c):
        store.create(job, "p")
    assert store.resolve("1111") == c.id
    assert store.resolve("0000000000ab") == b.id
    assert store.resolve(a.id.upper()) == a.id
    with pytest.raises(OracleError) as info:
        store.resolve("0000")
    assert info.value.code == "job_id_ambiguous"
    assert set(info.value.allowed_values or []) == {a.id, b.id}
    with pytest.raises(OracleError) as info:
        store.resolve("2222")
    assert info.value.code == "job_not_found"


def test_update_under_lock_applies_change(store: JobStore) -> None:
    job = build_job()
    store.create(job, "p")
    updated = store.update(
        job.id,
        lambda j: transitions.transition(j, Phase.CLONING_RUNTIME, at=T0, source="t"),
    )
    assert updated.phase == Phase.CLONING_RUNTIME
    assert store.load(job.id).phase == Phase.CLONING_RUNTIME


def _writer_loop(store: JobStore, versions: list[Job]) -> None:
    i = 0
    while True:
        store.save(versions[i % len(versions)])
        i += 1


def test_atomic_write_survives_sigkill_200_times(store: JobStore) -> None:
    base = build_job()
    store.create(base, "p")
    # Large versions widen the window in which a kill lands mid-write.
    versions = [
        transitions.update(base, at=T0, source="t", patch={"error": str(n) * 200_000})
        for n in range(3)
    ]
    allowed = {json.dumps(v.to_json_dict(), sort_keys=True) for v in [base, *versions]}
    rng = random.Random(1234)
    job_file = store.paths(base.id).job_file
    for _ in range(200):
        pid = os.fork()
        if pid == 0:  # child: write until killed
            try:
                _writer_loop(store, versions)
            finally:
                os._exit(0)
        time.sleep(rng.uniform(0, 0.01))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        on_disk = json.loads(job_file.read_text())  # always parses
        assert json.dumps(on_disk, sort_keys=True) in allowed
        assert Job.model_validate(on_disk).id == base.id
    leftovers = [p for p in job_file.parent.iterdir() if p.name.endswith(".tmp")]
    # A killed writer may leave its temp file; it is never mistaken for the job file.
    assert all(p.name.startswith(".job.json.") for p in leftovers)


def test_list_ignores_foreign_entries(store: JobStore) -> None:
    job = build_job()
    store.create(job, "p")
    (store.root / "oracle-not-a-job").mkdir()
    (store.root / "something-else").mkdir()
    (store.root / f"oracle-{new_job_id()}").write_text("a file, not a dir")
    assert store.list_ids() == [job.id]


def test_job_fields_helper_is_schema_valid() -> None:
    job_id = new_job_id()
    job = transitions.create(
        job_id=job_id, at=T0, queued=True, source="t", fields=job_fields(job_id)
    )
    assert Job.model_validate(job.to_json_dict()) == job


def test_ids_can_be_forced_after_another() -> None:
    future = new_job_id(now_ms=1_900_000_000_000)
    later = new_job_id(after=future)
    assert later > future
    assert later[:9] > future[:9]


def test_unreadable_job_file_is_corrupt_not_a_crash(store: JobStore) -> None:
    job = build_job()
    paths = store.create(job, "p")
    paths.job_file.unlink()
    paths.job_file.mkdir()
    with pytest.raises(OracleError) as info:
        store.load(job.id)
    assert info.value.code == "job_corrupt"
    assert [r.code for r in store.iter_jobs() if isinstance(r, OracleError)] == ["job_corrupt"]


def test_a_reread_of_unchanged_bytes_is_the_same_job_and_a_change_is_seen(store: JobStore) -> None:
    job = build_job()
    paths = store.create(job, "prompt")
    first = store.load(job.id)
    assert store.load(job.id) is first  # the same bytes: not parsed again
    changed = transitions.update(first, at=T0, source="test", patch={"session_id": "other"})
    store.save(changed)
    assert store.load(job.id) == changed and store.load(job.id) is not first
    paths.job_file.write_text("{ not json")
    with pytest.raises(OracleError) as info:
        store.load(job.id)
    assert info.value.code == "job_corrupt"


def test_a_snapshot_made_from_a_config_is_remembered_as_that_config(
    oraculum_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Admission remembers the new job's own config for its snapshot (validating it again
    would only give it back: see test_snapshot_round_trip); a stored snapshot is validated."""
    monkeypatch.setattr(runtime, "_SNAPSHOTS", {})
    config = load_config().config
    snapshot = config.to_json_dict()
    assert snapshot_config(snapshot, known=config) is config
    assert snapshot_config(json.loads(json.dumps(snapshot))) is config  # nothing validated
    stored = Config().to_json_dict()
    stored["browser"]["maxConcurrentJobs"] = 99  # a snapshot no valid config could make
    with pytest.raises(OracleError) as caught:
        snapshot_config(stored)
    assert caught.value.code == "oracle_config_invalid"

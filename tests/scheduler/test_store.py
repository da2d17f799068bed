"""The store on disk: private JSON records, the O_EXCL claim (one winner among processes), a
torn claim read as running, validated ids, and the removed SQL store option refused."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from oraculum.core.errors import OracleError
from oraculum.scheduler.store import REMOVED_STORE_ENV, Store, occurrence_stamp, scheduler_dir

WHEN = datetime(2026, 12, 1, 9, 0, 0, 250_000, tzinfo=UTC)
SID = "0123456789abc"


def _schedule(schedule_id: str = SID) -> dict[str, object]:
    return {
        "id": schedule_id,
        "project_id": "p",
        "session_id": "s",
        "prompt": "later",
        "payload": None,
        "timing": {"kind": "once", "start": WHEN.isoformat()},
        "state": "new",
        "created_at": "2026-12-01T08:00:00+00:00",
    }


def _mode(path: Path) -> str:
    return oct(path.stat().st_mode & 0o777)


def test_records_are_private_json_files(oraculum_home: Path) -> None:
    store = Store()
    store.add_schedule(_schedule())
    occurrence = store.claim_occurrence(SID, WHEN, "running")
    assert occurrence == occurrence_stamp(WHEN) == "20261201T090000250000Z"
    root = scheduler_dir()
    schedule_file = root / "schedules" / f"{SID}.json"
    occurrence_file = root / "occurrences" / SID / f"{occurrence}.json"
    assert json.loads(schedule_file.read_text())["state"] == "new"
    assert json.loads(occurrence_file.read_text())["outcome"] == "running"
    for directory in (root, root / "schedules", root / "occurrences", occurrence_file.parent):
        assert _mode(directory) == "0o700", directory
    assert _mode(schedule_file) == _mode(occurrence_file) == "0o600"

    assert store.set_state(SID, "active", only_from=("new",)) is True
    assert store.set_state(SID, "active", only_from=("new",)) is False
    assert store.set_state(SID, "cancelled", only_from=("new", "active")) is True
    row = store.schedule(SID)
    assert row["state"] == "cancelled" and row["ended_at"]
    store.finish_occurrence(SID, occurrence, "exit", {"exit_code": 0}, "woke")
    store.mark_woken(SID, occurrence, "n-1")
    [done] = store.occurrences(SID)
    assert (done["outcome"], done["detail"], done["wake"]) == ("exit", {"exit_code": 0}, "woke")
    assert done["notice_id"] == "n-1" and done["woken_at"] and done["ended_at"]
    assert done["scheduled_for"] == WHEN.isoformat()
    assert store.last_fire_time(SID) == WHEN


_CLAIM = """
import sys
from datetime import datetime
from oraculum.scheduler.store import Store
won = Store().claim_occurrence(sys.argv[1], datetime.fromisoformat(sys.argv[2]), "running")
print("won" if won else "lost")
"""


def test_exactly_one_process_claims_a_fire_time(oraculum_home: Path) -> None:
    Store().add_schedule(_schedule())
    claimers = [
        subprocess.Popen(
            [sys.executable, "-c", _CLAIM, SID, WHEN.isoformat()],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    results = sorted(proc.communicate(timeout=60)[0].strip() for proc in claimers)
    assert results == ["lost"] * 5 + ["won"]
    assert len(Store().occurrences(SID)) == 1
    assert Store().claim_occurrence(SID, WHEN, "missed") is None  # and never again


def test_a_torn_claim_reads_as_running_and_so_becomes_unknown(oraculum_home: Path) -> None:
    store = Store()
    store.add_schedule(_schedule())
    occurrence = store.claim_occurrence(SID, WHEN, "running")
    assert occurrence is not None
    path = scheduler_dir() / "occurrences" / SID / f"{occurrence}.json"
    path.write_bytes(b'{"id": "2026')  # the runner died while writing its claim
    [torn] = store.occurrences(SID, outcome="running")
    assert torn["scheduled_for"] == WHEN.isoformat() and torn["schedule_id"] == SID
    store.finish_occurrence(SID, occurrence, "unknown", {"runner_pid": None}, "wake")
    assert [r["outcome"] for r in store.occurrences(SID)] == ["unknown"]


@pytest.mark.parametrize("bad", ["../../etc", "0123456789ABC", "x" * 200, "", None])
def test_bad_schedule_ids_are_refused_before_any_path_is_built(
    oraculum_home: Path, bad: object
) -> None:
    with pytest.raises(OracleError) as refused:
        Store().schedule(bad)  # type: ignore[arg-type]
    assert refused.value.code.value == "schedule_not_found"
    with pytest.raises(OracleError):
        Store().claim_occurrence(bad, WHEN, "running")  # type: ignore[arg-type]
    assert not (scheduler_dir() / "occurrences").exists()


def test_unknown_schedule_is_not_found(oraculum_home: Path) -> None:
    with pytest.raises(OracleError) as missing:
        Store().schedule(SID)
    assert missing.value.code.value == "schedule_not_found"
    assert Store().schedules() == [] and Store().occurrences() == []


def test_the_removed_sql_store_option_is_refused(
    oraculum_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REMOVED_STORE_ENV, "postgresql+psycopg://user@db/oraculum")
    with pytest.raises(OracleError) as refused:
        Store()
    assert refused.value.code.value == "oracle_config_invalid"
    assert REMOVED_STORE_ENV in refused.value.message
    assert refused.value.suggested_next_step and "Unset" in refused.value.suggested_next_step


def test_the_cli_refuses_the_removed_sql_store_option(sched, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(REMOVED_STORE_ENV, "sqlite:////tmp/x.db")
    code, out = sched.cli("schedule", "submit", "--prompt", "later", "--in", "1h")
    assert (code, out["error"]["code"]) == (4, "oracle_config_invalid"), out  # a setup error
    assert REMOVED_STORE_ENV in out["error"]["message"]
    monkeypatch.delenv(REMOVED_STORE_ENV)
    assert Store().schedules() == []

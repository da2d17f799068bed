"""The one context a service takes: what it resolves, when, and what building one costs."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from homes import write_fast_config
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.project import project_id
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller


def test_a_caller_resolves_its_project_from_where_it_calls(project: Path, tmp_path: Path) -> None:
    here = Caller()
    assert here.root == project
    assert here.project_id == project_id(project)
    nested = project / "src"
    assert Caller(cwd=nested).root == project  # named from below, the same project
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "AGENTS.md").write_text("x\n")
    assert Caller(cwd=other).root == other


def test_a_caller_resolves_each_fact_once_and_only_when_asked(project: Path) -> None:
    caller = Caller()
    assert vars(caller).keys() == {"cwd", "session", "overrides", "jobs"}  # nothing resolved yet
    config = caller.config
    assert caller.config is config  # loaded once for the whole call
    assert {"root", "config"} <= vars(caller).keys()
    assert caller.store is caller.store
    with pytest.raises(dataclasses.FrozenInstanceError):
        caller.session = "other"  # type: ignore[misc]


def test_a_caller_keeps_the_store_it_is_given(tmp_path: Path, oraculum_home: Path) -> None:
    store = JobStore(tmp_path / "jobs")
    assert Caller(jobs=store).store is store
    assert Caller().store.root != store.root


def test_its_overrides_are_the_top_config_layer(project: Path) -> None:
    base = Caller().config
    wanted = base.poller.interval_ms + 1
    assert Caller(overrides={"poller": {"intervalMs": wanted}}).config.poller.interval_ms == wanted


def test_the_session_is_given_or_the_environment_s_and_always_validated(
    oraculum_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Caller().session_id("read", required=False) is None
    with pytest.raises(OracleError) as refused:
        Caller().session_id("submit oracle jobs")
    assert refused.value.code == ErrorCode.PERSISTED_SESSION_REQUIRED
    assert "to submit oracle jobs" in refused.value.message
    monkeypatch.setenv("ORACULUM_SESSION", "from-env")
    assert Caller().session_id("read") == "from-env"
    assert Caller(session="given").session_id("read") == "given"
    with pytest.raises(OracleError) as bad:
        Caller(session="no spaces").session_id("read", required=False)
    assert bad.value.code == ErrorCode.INVALID_SESSION_ID


def test_an_mcp_server_gives_each_tool_call_a_caller_of_its_own(project: Path) -> None:
    from oraculum.mcp.state import OracleMcp

    state = OracleMcp("server-s", cwd=project / "src")
    first, second = state.caller(), state.caller()
    assert first is not second
    assert first.root == project and first.project_id == state.project_id
    assert first.session_id("submit oracle jobs") == "server-s"
    assert first.store is state.store
    # A long-lived server's calls read the config files as they are at each call.
    before = first.config.poller.interval_ms
    write_fast_config({"poller": {"intervalMs": before + 7}})
    assert first.config.poller.interval_ms == before
    assert second.config.poller.interval_ms == before + 7


def test_building_a_caller_loads_neither_the_config_nor_the_job_engine(tmp_path: Path) -> None:
    listing = tmp_path / "modules.json"
    code = (
        "import json, sys\n"
        "from oraculum.service.caller import Caller\n"
        "caller = Caller(session='s1')\n"
        "assert caller.session_id('read') == 's1' and caller.project_id\n"
        "open(sys.argv[1], 'w').write(json.dumps(list(sys.modules)))"
    )
    subprocess.run([sys.executable, "-c", code, str(listing)], check=True, timeout=60)
    modules = json.loads(listing.read_text())
    heavy = ("oraculum.core.config", "oraculum.jobs", "pydantic")
    assert [m for m in modules if m.startswith(heavy)] == []

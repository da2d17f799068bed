"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from homes import stop_scheduler_runner, write_fast_config
from oraculum.core.errors import OracleError
from oraculum.core.paths import private_home_environment
from oraculum.jobs.process import terminate
from oraculum.jobs.store import JobStore


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under `--dist loadgroup` (as `scripts/test` runs it) each module is one unit of work on
    one worker: its module fixtures (a simulator, a signed-in seed, a Chromium) start once, not
    once per worker. xdist hands out the units biggest first. Explicit groups stay as marked."""
    if config.getoption("dist", "no") != "loadgroup":
        return
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


@pytest.fixture
def oraculum_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point every oraculum location (jobs, state, config, data) into a fresh temp tree."""
    home = tmp_path / "oraculum-home"
    for name, value in private_home_environment(home).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ORACULUM_SESSION", raising=False)
    yield home
    _stop_workers()
    stop_scheduler_runner()


def _stop_workers() -> None:
    """Stop every worker a test left running (a job told to hang, say): no process outlives
    the test that started it (nor does the home's scheduler runner: `stop_scheduler_runner`).
    Identity-checked, like every signal the engine sends."""
    store = JobStore()
    for job_id in store.list_ids():
        try:
            job = store.load(job_id)
        except OracleError:
            continue  # a test that corrupted its job on purpose
        if job.worker is not None:
            terminate(job.worker, grace_s=2.0)


@pytest.fixture
def project(tmp_path: Path, oraculum_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small project (the current directory) in a fresh home with fast engine timings."""
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (root / "src" / "app.py").write_text("print('hello')\n")
    write_fast_config()
    monkeypatch.chdir(root)
    return root

"""Named flock locks with real processes."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path

import pytest

from oraculum.core.errors import OracleError
from oraculum.jobs.locks import is_locked, named_lock


def _hold_forever(root: str, ready) -> None:
    with named_lock("admission", root=Path(root)):
        ready.set()
        time.sleep(600)


def test_sigkilled_holder_frees_the_lock_at_once(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    ready = ctx.Event()
    child = ctx.Process(target=_hold_forever, args=(str(tmp_path), ready))
    child.start()
    assert ready.wait(10)
    assert is_locked("admission", root=tmp_path)
    with pytest.raises(OracleError) as info, named_lock("admission", root=tmp_path, timeout=0.2):
        pass
    assert info.value.code == "lock_timeout"
    assert info.value.retryable
    os.kill(child.pid, signal.SIGKILL)
    child.join(5)
    started = time.monotonic()
    with named_lock("admission", root=tmp_path, timeout=1.0):
        acquired_after = time.monotonic() - started
    assert acquired_after < 0.5
    assert not is_locked("admission", root=tmp_path)


def _increment(root: str, counter: str, times: int) -> None:
    path = Path(counter)
    for _ in range(times):
        with named_lock("counter", "shared", root=Path(root), timeout=60):
            value = int(path.read_text())
            path.write_text(str(value + 1))


def test_eight_processes_lose_no_update(tmp_path: Path) -> None:
    counter = tmp_path / "counter"
    counter.write_text("0")
    ctx = multiprocessing.get_context("fork")
    workers = [
        ctx.Process(target=_increment, args=(str(tmp_path), str(counter), 500)) for _ in range(8)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    assert int(counter.read_text()) == 8 * 500


def test_different_keys_do_not_block(tmp_path: Path) -> None:
    with named_lock("job", "a", root=tmp_path), named_lock("job", "b", root=tmp_path, timeout=0.1):
        assert is_locked("job", "a", root=tmp_path)


def test_lock_files_are_private(tmp_path: Path) -> None:
    with named_lock("auth", root=tmp_path):
        pass
    (lock_file,) = (tmp_path / "locks").iterdir()
    assert oct(lock_file.stat().st_mode & 0o777) == oct(0o600)
    assert oct((tmp_path / "locks").stat().st_mode & 0o777) == oct(0o700)

"""The runner's doorbell: a ring reaches a listening runner, and costs nothing without one."""

from __future__ import annotations

import stat
import threading
from pathlib import Path

from oraculum.scheduler.doorbell import Doorbell, doorbell_path, ring


def test_a_ring_without_a_runner_does_nothing(oraculum_home: Path) -> None:
    assert ring() is False  # no doorbell yet
    doorbell = Doorbell()
    doorbell.close()
    assert stat.S_ISFIFO(doorbell_path().lstat().st_mode)
    assert oct(doorbell_path().lstat().st_mode & 0o777) == "0o600"
    assert ring() is False  # a doorbell nobody listens at (a runner that died)


def test_a_ring_wakes_the_sleeping_runner(oraculum_home: Path) -> None:
    doorbell = Doorbell()
    try:
        assert doorbell.wait(0.01) is False
        assert ring() is True and ring() is True
        assert doorbell.wait(60) is True  # both rings at once
        assert doorbell.wait(0.01) is False
        # From another thread while it sleeps (a payload that ended).
        threading.Timer(0.2, doorbell.ring).start()
        assert doorbell.wait(60) is True
    finally:
        doorbell.close()


def test_something_else_at_the_doorbell_path_is_never_written(oraculum_home: Path) -> None:
    path = doorbell_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    assert ring() is False and path.read_bytes() == b""
    doorbell = Doorbell()  # the runner makes its own FIFO in its place
    try:
        assert ring() is True and doorbell.wait(60) is True
    finally:
        doorbell.close()

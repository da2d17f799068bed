"""The fair admission lock (``named_lock(..., fair=True)``) with real processes.

Waiters must enter in the order they asked, a process that releases and asks again at once
must not overtake one already waiting, fair and plain holders of one name still exclude each
other, and a waiter that dies or gives up in the queue never blocks those behind it.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path

import pytest

from oraculum.core.errors import OracleError
from oraculum.jobs.locks import lock_path, named_lock

CTX = multiprocessing.get_context("fork")


def _queue(root: Path) -> Path:
    main = lock_path("admission", "global", root)
    return main.with_name(main.stem + ".queue")


def _tickets_taken(root: Path) -> int:
    try:
        return int((_queue(root) / "counter").read_bytes() or b"0")
    except FileNotFoundError:
        return 0


def _wait_until(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.005)


def _hold_until(root: str, ready, release) -> None:
    with named_lock("admission", root=Path(root), fair=True):
        ready.set()
        release.wait(60)


def _enter_and_log(root: str, log: str, name: str, timeout: float = 60.0) -> None:
    with (
        named_lock("admission", root=Path(root), fair=True, timeout=timeout),
        open(log, "a") as handle,
    ):
        handle.write(name + "\n")


def _start_holder(root: Path) -> tuple[multiprocessing.Process, object]:
    ready, release = CTX.Event(), CTX.Event()
    holder = CTX.Process(target=_hold_until, args=(str(root), ready, release))
    holder.start()
    assert ready.wait(20)
    return holder, release


def _queue_up(root: Path, log: Path, names: list[str]) -> list[multiprocessing.Process]:
    """Start one waiter per name, each only once the one before holds its ticket."""
    waiters = []
    for name in names:
        taken = _tickets_taken(root)
        waiter = CTX.Process(target=_enter_and_log, args=(str(root), str(log), name))
        waiter.start()
        _wait_until(lambda taken=taken: _tickets_taken(root) > taken)
        waiters.append(waiter)
    return waiters


def test_waiters_enter_in_the_order_they_asked(tmp_path: Path) -> None:
    log = tmp_path / "order.log"
    holder, release = _start_holder(tmp_path)
    names = [f"w{i}" for i in range(6)]
    waiters = _queue_up(tmp_path, log, names)
    release.set()
    for proc in [holder, *waiters]:
        proc.join(30)
        assert proc.exitcode == 0
    assert log.read_text().split() == names


def _greedy(root: str, log: str, holding, go, stop) -> None:
    """Hold the lock until ``go``, then release and ask again at once, turn after turn."""
    first = True
    while not stop.is_set():
        with named_lock("admission", root=Path(root), fair=True):
            with open(log, "a") as handle:
                handle.write("greedy\n")
            if first:
                holding.set()
                go.wait(60)
                first = False


def test_a_process_asking_again_at_once_does_not_overtake_a_waiter(tmp_path: Path) -> None:
    log = tmp_path / "order.log"
    holding, go, stop = CTX.Event(), CTX.Event(), CTX.Event()
    greedy = CTX.Process(target=_greedy, args=(str(tmp_path), str(log), holding, go, stop))
    greedy.start()
    assert holding.wait(20)
    # The greedy process holds the lock and takes no ticket until `go`: the next ticket is the
    # waiter's.
    (waiter,) = _queue_up(tmp_path, log, ["waiter"])
    go.set()
    waiter.join(30)
    _wait_until(lambda: log.read_text().count("greedy") >= 3)
    stop.set()
    greedy.join(30)
    assert waiter.exitcode == 0 and greedy.exitcode == 0
    # Plain flock lets the releasing process win again and again; fair, the waiter is next.
    assert log.read_text().split()[:3] == ["greedy", "waiter", "greedy"]


def _increment(root: str, counter: str, times: int, fair: bool) -> None:
    path = Path(counter)
    for _ in range(times):
        with named_lock("admission", root=Path(root), timeout=60, fair=fair):
            value = int(path.read_text())
            path.write_text(str(value + 1))


def test_fair_and_plain_holders_exclude_each_other(tmp_path: Path) -> None:
    counter = tmp_path / "counter"
    counter.write_text("0")
    workers = [
        CTX.Process(target=_increment, args=(str(tmp_path), str(counter), 200, i % 2 == 0))
        for i in range(6)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    assert int(counter.read_text()) == 6 * 200
    # 600 tickets, and the files reused: about one per process that queued at once.
    assert len(_ticket_files(tmp_path)) <= 6


def _ticket_files(root: Path) -> list[str]:
    return sorted(p.name for p in _queue(root).iterdir() if p.name != "counter")


def test_ticket_files_are_reused_not_made_each_time(tmp_path: Path) -> None:
    inodes = set()
    for _ in range(50):
        with named_lock("admission", root=tmp_path, fair=True):
            inodes.update(p.stat().st_ino for p in _queue(tmp_path).iterdir())
    assert _tickets_taken(tmp_path) == 50
    assert len(inodes) == 3  # the counter, and two ticket files taking turns
    assert _ticket_files(tmp_path) == [f"{49:020d}", f"spare-{48:020d}"]


def test_a_ticket_file_whose_successor_died_is_removed_later(tmp_path: Path) -> None:
    queue = _queue(tmp_path)
    with named_lock("admission", root=tmp_path, fair=True):
        pass
    (queue / f"{0:020d}").rename(queue / f"{3:020d}")  # as left by a waiter killed behind it
    (queue / "counter").write_text("40")
    for _ in range(2):  # the first leaves ticket 40 named, the second sees 3 far behind it
        with named_lock("admission", root=tmp_path, fair=True):
            pass
    assert f"{3:020d}" not in _ticket_files(tmp_path)
    assert _ticket_files(tmp_path) == [f"{41:020d}", f"spare-{40:020d}"]


def test_a_waiter_killed_in_the_queue_does_not_block_the_next(tmp_path: Path) -> None:
    log = tmp_path / "order.log"
    holder, release = _start_holder(tmp_path)
    doomed, survivor = _queue_up(tmp_path, log, ["doomed", "survivor"])
    os.kill(doomed.pid, signal.SIGKILL)
    doomed.join(10)
    release.set()
    holder.join(30)
    survivor.join(30)
    assert survivor.exitcode == 0
    assert log.read_text().split() == ["survivor"]


def test_a_waiter_that_times_out_leaves_the_queue_working(tmp_path: Path) -> None:
    log = tmp_path / "order.log"
    holder, release = _start_holder(tmp_path)
    impatient = CTX.Process(target=_enter_and_log, args=(str(tmp_path), str(log), "x", 0.3))
    impatient.start()
    _wait_until(lambda: _tickets_taken(tmp_path) >= 2)
    (patient,) = _queue_up(tmp_path, log, ["patient"])
    impatient.join(10)
    assert impatient.exitcode != 0  # it raised lock_timeout
    with (
        pytest.raises(OracleError) as info,
        named_lock("admission", root=tmp_path, fair=True, timeout=0.2),
    ):
        pass
    assert info.value.code == "lock_timeout"
    release.set()
    holder.join(30)
    patient.join(30)
    assert patient.exitcode == 0
    assert log.read_text().split() == ["patient"]


def test_a_sigkilled_fair_holder_frees_the_lock(tmp_path: Path) -> None:
    holder, _release = _start_holder(tmp_path)
    assert holder.pid is not None
    os.kill(holder.pid, signal.SIGKILL)
    holder.join(10)
    with named_lock("admission", root=tmp_path, fair=True, timeout=5.0):
        entered = True
    assert entered


def test_queue_files_are_private(tmp_path: Path) -> None:
    with named_lock("admission", root=tmp_path, fair=True):
        ticket_files = [p for p in _queue(tmp_path).iterdir() if p.name != "counter"]
        assert len(ticket_files) == 1
    queue = _queue(tmp_path)
    assert oct(queue.stat().st_mode & 0o777) == oct(0o700)
    assert oct((queue / "counter").stat().st_mode & 0o777) == oct(0o600)


def test_a_lost_counter_never_hands_out_a_held_ticket_again(tmp_path: Path) -> None:
    """Tickets are made nameless and named under the counter lock: a name in use is never
    replaced, so a waiter whose counter restarted queues behind the holder of that ticket."""
    log = tmp_path / "order.log"
    holder, release = _start_holder(tmp_path)
    (_queue(tmp_path) / "counter").unlink()  # lost: the next ticket would be 0 again
    (waiter,) = _queue_up(tmp_path, log, ["waiter"])
    time.sleep(0.3)
    assert not log.exists()  # still behind the holder
    release.set()
    holder.join(30)
    waiter.join(30)
    assert waiter.exitcode == 0
    assert log.read_text().split() == ["waiter"]
    # The waiter took ticket 1 (0 was held); its file stays named for the next ticket.
    assert _ticket_files(tmp_path) == [f"{1:020d}", f"spare-{0:020d}"]


@pytest.mark.usefixtures("nameless_files_cannot_be_named")
def test_without_nameless_files_tickets_are_made_by_name(tmp_path: Path) -> None:
    """Where a nameless file cannot be named (no /proc, say), a ticket is created by name."""
    with named_lock("admission", root=tmp_path, fair=True, timeout=5.0):
        tickets = [p.name for p in _queue(tmp_path).iterdir() if p.name != "counter"]
        assert tickets == [f"{0:020d}"]
    with named_lock("admission", root=tmp_path, fair=True, timeout=5.0):
        pass
    # The spare could not be named as ticket 1 either: made by name, and kept as a spare.
    assert _ticket_files(tmp_path) == [f"{1:020d}", f"spare-{0:020d}"]
    assert _tickets_taken(tmp_path) == 2


def test_a_spare_still_named_as_a_ticket_is_not_taken(tmp_path: Path) -> None:
    """As left by a taker that died between naming its spare as its ticket and dropping the
    spare's name: the file is a ticket (a waiter may hold it next), so it is not reused."""
    with named_lock("admission", root=tmp_path, fair=True):
        pass
    queue = _queue(tmp_path)
    ticket = queue / f"{0:020d}"
    os.link(ticket, queue / "spare-x")
    first = ticket.stat().st_ino
    with named_lock("admission", root=tmp_path, fair=True):
        assert (queue / f"{1:020d}").stat().st_ino != first
    assert _ticket_files(tmp_path) == [f"{1:020d}", f"spare-{0:020d}"]  # the extra name went

"""A process group's end: SIGTERM, a bounded grace, SIGKILL, then proof that it is gone.

A managed child leads its own process group (``start_new_session``), so one ``killpg`` reaches
it and every descendant that stayed in the group. "Gone" means ``killpg(pgid, 0)`` finds no
process, or only zombies (killed members whose parent has not reaped them yet). A permission
failure, a member that outlives SIGKILL, or a leader whose exit status never arrived is a
cleanup failure, reported, never hidden. A descendant that made its own session or group
(``setsid``) is out of reach of the group signal: :func:`escaped` names it.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = ["GroupEnd", "descendants", "end_group", "escaped", "group_alive", "wait_until"]

_POLL_S = 0.025


@dataclass(frozen=True)
class GroupEnd:
    ok: bool
    killed: bool  # SIGKILL was needed
    error: str | None = None


def _members(pgid: int) -> list[int]:
    """Pids in the group that are not zombies."""
    import psutil

    found = []
    for proc in psutil.process_iter(["status"]):
        try:
            if os.getpgid(proc.pid) == pgid and proc.info["status"] != psutil.STATUS_ZOMBIE:
                found.append(proc.pid)
        except (ProcessLookupError, PermissionError, psutil.Error):
            continue
    return found


def group_alive(pgid: int) -> bool:
    """Whether any non-zombie process is left in the group (PermissionError propagates)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return bool(_members(pgid))


def _signal(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass  # already gone


def wait_until(done: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while True:
        if done():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S)


def end_group(
    pgid: int, leader_done: Callable[[], bool], *, grace_s: float, verify_s: float
) -> GroupEnd:
    """Stop every process of the group and verify it; ``leader_done`` says whether the leader's
    exit status is known (its waiter reaped it)."""

    def finished() -> bool:
        return leader_done() and not group_alive(pgid)

    try:
        _signal(pgid, signal.SIGTERM)
        if wait_until(finished, grace_s):
            return GroupEnd(ok=True, killed=False)
        _signal(pgid, signal.SIGKILL)
        if wait_until(finished, verify_s):
            return GroupEnd(ok=True, killed=True)
        if group_alive(pgid):
            return GroupEnd(False, True, f"process group {pgid} survived SIGKILL")
        return GroupEnd(False, True, "the leader's exit status never arrived")
    except PermissionError:
        return GroupEnd(False, False, f"not permitted to signal process group {pgid}")


def descendants(pid: int) -> dict[int, float]:
    """The live descendants of ``pid`` (pid → start time), for :func:`escaped` later."""
    import psutil

    try:
        children = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return {}
    found = {}
    for child in children:
        try:
            found[child.pid] = child.create_time()
        except psutil.Error:
            continue
    return found


def escaped(known: Mapping[int, float], pgid: int) -> list[int]:
    """Descendants seen earlier that still run outside the group (same pid and start time)."""
    import psutil

    left = []
    for pid, started in known.items():
        try:
            proc = psutil.Process(pid)
            if proc.create_time() != started or proc.status() == psutil.STATUS_ZOMBIE:
                continue
            if os.getpgid(pid) != pgid:
                left.append(pid)
        except (psutil.Error, ProcessLookupError):
            continue
    return sorted(left)

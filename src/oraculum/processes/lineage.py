"""A started process's whole lineage, wherever it went: found by a mark, stopped by identity.

A process group reaches only the descendants that stayed in it. One that made its own session
(``setsid``, or ``setsid -f``, which double-forks so the intermediate exits at once) is out of
the group's reach and, its parent gone, reparented. Two things keep it in view:

- the **mark**: every started process gets ``ORACULUM_PROCESS_MARK=<mark>`` in its environment,
  which its descendants inherit whatever sessions they make; :func:`marked` finds them all;
- the **subreaper** (Linux ``PR_SET_CHILD_SUBREAPER``): the owner (the `proc` supervisor, the
  scheduler runner) becomes the parent of every orphaned descendant instead of init, so they
  stay its children and it reaps their exit (:func:`reap_orphans`).

A process is only ever signalled as (pid, start time): :func:`stop_identified` checks the start
time again before each signal, so a reused pid is never hit.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping

from oraculum.core.process_group import escalate
from oraculum.jobs.process import process_start_time

__all__ = [
    "MARK_ENV",
    "alive",
    "become_subreaper",
    "marked",
    "marked_env",
    "reap_orphans",
    "spawning",
    "stop_identified",
    "waited",
]

MARK_ENV = "ORACULUM_PROCESS_MARK"
_PR_SET_CHILD_SUBREAPER = 36
_START_TOLERANCE_S = 0.05
# Held while a child is being spawned and while orphans are reaped: a child that died at once
# is never reaped before it is known to have a waiter of its own.
_SPAWN_LOCK = threading.Lock()
_WAITED: set[int] = set()  # children whose own waiter (a Popen) collects their exit


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux); False elsewhere or
    when the kernel refuses."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def marked_env(mark: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (this process's environment by default) with the mark set."""
    return {**(os.environ if base is None else base), MARK_ENV: mark}


def marked(mark: str) -> dict[int, float]:
    """Every live (not zombie) process of this user carrying ``mark``: pid → start time."""
    found: dict[int, float] = {}
    for pid in _carrying(mark):
        started = process_start_time(pid)
        if started is not None and alive(pid, started):
            found[pid] = started
    return found


def _carrying(mark: str) -> list[int]:
    """The pids whose environment holds the mark: read from /proc directly on Linux (a stop
    looks through every process, so it must stay cheap), by psutil elsewhere."""
    me = os.getpid()
    if not os.path.isdir("/proc/self"):
        import psutil

        return [p.pid for p in psutil.process_iter() if p.pid != me and _environ_has(p, mark)]
    wanted = f"{MARK_ENV}={mark}".encode()
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as environ:
                if wanted in environ.read().split(b"\0"):
                    pids.append(int(name))
        except OSError:
            continue  # gone, or not ours to read
    return pids


def _environ_has(proc: object, mark: str) -> bool:
    import psutil

    try:
        return bool(proc.environ().get(MARK_ENV) == mark)  # type: ignore[attr-defined]
    except (psutil.Error, OSError):
        return False


def alive(pid: int, start_time: float) -> bool:
    """Whether ``pid`` still is the process that started at ``start_time`` (and not a zombie)."""
    from oraculum.jobs.model import WorkerIdentity
    from oraculum.jobs.process import Liveness, liveness

    return liveness(WorkerIdentity(pid=pid, start_time=start_time, nonce="-")) == Liveness.ALIVE


def _signal_identified(found: Mapping[int, float], sig: signal.Signals) -> None:
    for pid, started in found.items():
        now_started = process_start_time(pid)
        if now_started is None or abs(now_started - started) > _START_TOLERANCE_S:
            continue  # gone, or its pid is another process's now
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def stop_identified(found: Mapping[int, float], *, grace_s: float, verify_s: float) -> list[int]:
    """SIGTERM each process, SIGKILL what outlives ``grace_s``; the pids still running after
    ``verify_s`` more (none, normally)."""

    def left() -> dict[int, float]:  # a zombie counts as gone: its reaper collects it
        return {pid: at for pid, at in found.items() if alive(pid, at)}

    if not left():
        return []
    escalate(
        lambda sig: _signal_identified(left(), sig),
        lambda: not left(),
        grace_s=grace_s,
        verify_s=verify_s,
    )
    return sorted(left())


@contextlib.contextmanager
def spawning() -> Iterator[Callable[[int], None]]:
    """Hold around a spawn; call what it yields with the child's pid, and :func:`waited` once
    its waiter has collected it, so :func:`reap_orphans` never takes its exit status."""
    with _SPAWN_LOCK:
        yield _WAITED.add


def waited(pid: int) -> None:
    with _SPAWN_LOCK:
        _WAITED.discard(pid)


def reap_orphans() -> list[int]:
    """Collect the exit of every zombie child of ours that has no waiter of its own: the
    descendants a subreaper inherited. Returns the reaped pids."""
    import psutil

    reaped = []
    with _SPAWN_LOCK:
        try:
            children = psutil.Process().children()
        except psutil.Error:
            return []
        for child in children:
            if child.pid in _WAITED:
                continue
            try:
                if child.status() != psutil.STATUS_ZOMBIE:
                    continue
                pid, _ = os.waitpid(child.pid, os.WNOHANG)
            except (psutil.Error, ChildProcessError):
                continue
            if pid:
                reaped.append(pid)
    return reaped

"""A child in its own process group: started one way, ended one way (TERM, grace, KILL, proof).

Every part of oraculum that runs a child apart from itself (a job's worker and its watchdog,
the managed browser, scheduler payloads, codex_search, pi RPC children, managed processes, the
`proc` supervisor, a wake-up hook, ``notify-send``, the browser left open for a sign-in)
starts it with :func:`spawn_group`: a literal argv (never a shell), its own session and process
group (no controlling terminal; a terminal's Ctrl-C or hang-up never reaches it), stdin from
/dev/null unless it is fed, no inherited descriptors but ``pass_fds``, and output to a pipe,
/dev/null or a private log file. Its own group means one ``killpg`` reaches it and every
descendant that stayed in the group.

:func:`end_group` stops such a group. "Gone" means ``killpg(pgid, 0)`` finds no process, or
only zombies (killed members whose parent has not reaped them yet). A permission failure, a
member that outlives SIGKILL, or a leader whose exit status never arrived is a cleanup failure,
reported, never hidden. A descendant that made its own session or group (``setsid``) is out of
reach of the group signal: :func:`escaped` names it. :func:`escalate` is the one TERM → grace →
KILL → verify sequence, for a group or for processes named one by one.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from oraculum.core.fsio import FILE_MODE

__all__ = [
    "GroupEnd",
    "Output",
    "descendants",
    "end_group",
    "escalate",
    "escaped",
    "group_alive",
    "hurry_group",
    "signal_group",
    "spawn_group",
    "wait_until",
]

_POLL_S = 0.025
_LOG_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC

# Where a stream goes: subprocess.PIPE, subprocess.DEVNULL, an open descriptor, or a log file
# (appended to, created 0600).
Output = int | Path


def spawn_group(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    stdin: int = subprocess.DEVNULL,
    stdout: Output = subprocess.DEVNULL,
    stderr: Output = subprocess.DEVNULL,
    pass_fds: Collection[int] = (),
) -> subprocess.Popen[bytes]:
    """Start ``argv`` as the leader of its own session and process group.

    ``env`` None inherits this process's environment. ``stdin`` is /dev/null unless the caller
    asks for a pipe (``subprocess.PIPE``) to feed it. A log file named for both streams is
    opened once, so their lines interleave in order. OSError when it cannot start."""
    opened: dict[Path, int] = {}

    def target(output: Output) -> int:
        if isinstance(output, int):
            return output
        if output not in opened:
            opened[output] = os.open(output, _LOG_FLAGS, FILE_MODE)
        return opened[output]

    try:
        out, err = target(stdout), target(stderr)
        return subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdin=stdin,
            stdout=out,
            stderr=err,
            pass_fds=tuple(pass_fds),
            close_fds=True,
            shell=False,
            start_new_session=True,
        )
    finally:
        for fd in opened.values():
            os.close(fd)


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


def signal_group(pgid: int, sig: signal.Signals) -> None:
    """``sig`` to every process of the group; nothing when it is gone (PermissionError
    propagates)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


def hurry_group(pgid: int) -> None:
    """SIGTERM the group at once, without waiting: when many children must end together
    (a session's end), every one is signalled before any is waited for."""
    with contextlib.suppress(PermissionError):
        signal_group(pgid, signal.SIGTERM)


def wait_until(done: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while True:
        if done():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S)


def escalate(
    send: Callable[[signal.Signals], None],
    gone: Callable[[], bool],
    *,
    grace_s: float,
    verify_s: float,
) -> GroupEnd:
    """``send`` SIGTERM and wait up to ``grace_s`` for ``gone``; then SIGKILL and wait up to
    ``verify_s`` more. ``ok``: it is gone."""
    send(signal.SIGTERM)
    if wait_until(gone, grace_s):
        return GroupEnd(ok=True, killed=False)
    send(signal.SIGKILL)
    return GroupEnd(ok=wait_until(gone, verify_s), killed=True)


def end_group(
    pgid: int, leader_done: Callable[[], bool], *, grace_s: float, verify_s: float
) -> GroupEnd:
    """Stop every process of the group and verify it; ``leader_done`` says whether the leader's
    exit status is known (its waiter reaped it)."""

    def finished() -> bool:
        return leader_done() and not group_alive(pgid)

    try:
        end = escalate(
            lambda sig: signal_group(pgid, sig), finished, grace_s=grace_s, verify_s=verify_s
        )
        if end.ok:
            return end
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

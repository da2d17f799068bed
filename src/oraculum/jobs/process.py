"""Worker processes: detached spawn, identity, liveness and safe termination.

A process is identified by pid + start time (+ the nonce the worker checks itself). Nothing is
ever signalled on a pid alone: a recycled pid has another start time and is left alone.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import signal
import subprocess
import sys
import time
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from oraculum.core.fsio import ensure_private_dir
from oraculum.core.ownenv import apply_own_defaults
from oraculum.core.process_group import end_group, escalate, spawn_group
from oraculum.jobs.model import WorkerIdentity

if TYPE_CHECKING:
    import psutil

NONCE_ENV = "ORACULUM_WORKER_NONCE"
# psutil's create_time is a float derived from clock ticks; allow for its rounding.
_START_TIME_TOLERANCE_S = 0.05


class Liveness(StrEnum):
    ALIVE = "alive"
    DEAD = "dead"
    MISMATCH = "mismatch"  # the pid runs, but it is another process


# On Linux the kernel is asked through /proc directly: the same numbers psutil computes (the
# start in clock ticks since boot, plus the boot time), without importing psutil (~10–15 ms) in
# every process that checks a worker: a submit, `status`, `wait`, the watchdog. Elsewhere
# psutil answers, imported on first use (`status` and `read` load this module for its
# vocabulary on every CLI call).
_PROC_STAT = "/proc/{pid}/stat"
_USE_PROC = sys.platform.startswith("linux") and os.path.exists("/proc/self/stat")
_GONE_STATES = frozenset({"Z", "X", "x"})  # zombie, dead
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if _USE_PROC else 100


@functools.cache
def _boot_time() -> float:
    with open("/proc/stat", "rb") as stat:
        for line in stat:
            if line.startswith(b"btime"):
                return float(line.split()[1])
    raise OSError("no btime line in /proc/stat")


def _proc_state(pid: int) -> tuple[str, float] | None:
    """(state letter, start time in seconds since the epoch) of ``pid``, from /proc; None when
    there is no such process. PermissionError when /proc hides it (mounted ``hidepid``)."""
    try:
        with open(_PROC_STAT.format(pid=pid), "rb") as stat:
            data = stat.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # The name (field 2) is in parentheses and may hold anything, ")" and spaces included.
    fields = data[data.rfind(b")") + 2 :].split()
    return fields[0].decode("ascii"), int(fields[19]) / _CLOCK_TICKS + _boot_time()


def process_start_time(pid: int) -> float | None:
    if _USE_PROC:
        try:
            found = _proc_state(pid)
        except PermissionError:
            return None
        return found[1] if found is not None else None
    import psutil

    try:
        return psutil.Process(pid).create_time()
    except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
        return None


def load_liveness() -> None:
    """Load what :func:`liveness` needs now (the boot time on Linux, psutil elsewhere), so that a
    caller about to take the admission lock does not pay for it while every other submit
    waits."""
    if _USE_PROC:
        _boot_time()
    else:
        import psutil  # noqa: F401


def liveness(identity: WorkerIdentity) -> Liveness:
    started = (_proc_start if _USE_PROC else _psutil_start)(identity.pid)
    if isinstance(started, Liveness):
        return started
    if abs(started - identity.start_time) > _START_TIME_TOLERANCE_S:
        return Liveness.MISMATCH
    return Liveness.ALIVE


def _proc_start(pid: int) -> float | Liveness:
    """The start time of a running ``pid`` from /proc, or the verdict when it is not one."""
    try:
        found = _proc_state(pid)
    except PermissionError:
        return Liveness.MISMATCH  # not ours to judge, so never ours to signal
    if found is None or found[0] in _GONE_STATES:
        return Liveness.DEAD
    return found[1]


def _psutil_start(pid: int) -> float | Liveness:
    """The start time of a running ``pid`` by psutil, or the verdict when it is not one."""
    import psutil

    try:
        proc = psutil.Process(pid)
        started = proc.create_time()
        if proc.status() == psutil.STATUS_ZOMBIE:
            return Liveness.DEAD
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return Liveness.DEAD
    except psutil.AccessDenied:
        return Liveness.MISMATCH
    return float(started)


def spawn_worker(
    argv_tail: list[str],
    *,
    log_path: Path,
    env_extra: dict[str, str] | None = None,
    module: str = "oraculum.worker",
) -> WorkerIdentity:
    """Start ``python -m <module> <argv_tail>`` (the job worker unless told otherwise, e.g. the
    scheduler's runner) detached from us.

    The child gets its own session and process group (so no controlling terminal, and a
    terminal's hang-up never reaches it), stdin from /dev/null, and its output in the job log.
    """
    nonce = secrets.token_hex(16)
    env = dict(os.environ)
    apply_own_defaults(env)
    env.update({NONCE_ENV: nonce, **(env_extra or {})})
    ensure_private_dir(log_path.parent)
    child = spawn_group(
        [sys.executable, "-m", module, *argv_tail], env=env, stdout=log_path, stderr=log_path
    )
    # We never wait() for the worker; a reaper thread keeps it from lingering as a zombie of
    # this process if this process outlives it.
    _reap_in_background(child)
    start_time = process_start_time(child.pid)
    if start_time is None:  # it died at once; record what we know so reconcile can explain
        start_time = time.time()
    return WorkerIdentity(pid=child.pid, start_time=start_time, nonce=nonce)


def _reap_in_background(child: subprocess.Popen[bytes]) -> None:
    import threading

    threading.Thread(target=child.wait, name=f"reap-{child.pid}", daemon=True).start()


def terminate(identity: WorkerIdentity, *, grace_s: float = 5.0, kill_wait_s: float = 2.0) -> bool:
    """SIGTERM the verified worker's process group, then SIGKILL after ``grace_s``.

    Returns True when the worker is gone (or was already gone), its group with it, False when
    it could not be terminated safely — including when its pid now belongs to another process.
    """
    state = liveness(identity)
    if state == Liveness.DEAD:
        return True
    if state == Liveness.MISMATCH:
        return False

    def gone() -> bool:
        return liveness(identity) != Liveness.ALIVE

    try:
        leads = os.getpgid(identity.pid) == identity.pid
    except ProcessLookupError:
        return True
    if leads:  # what it started in its group (Playwright's driver) ends with it
        end = end_group(identity.pid, gone, grace_s=grace_s, verify_s=kill_wait_s)
    else:  # not started by spawn_worker: only the pid itself is ours to stop

        def send(sig: signal.Signals) -> None:
            if not gone():  # checked again before each signal: a reused pid is never hit
                with contextlib.suppress(ProcessLookupError):
                    os.kill(identity.pid, sig)

        end = escalate(send, gone, grace_s=grace_s, verify_s=kill_wait_s)
    return end.ok


def kill_profile_processes(
    profile_dir: Path, *, search: bool = False, wait_s: float = 3.0
) -> list[str]:
    """SIGKILL the browser still running on ``profile_dir`` (one whose worker died), and its
    children. Returns warnings for what survived.

    Chromium is started in its own process group, so a worker's death does not take it along.
    It names its pid in the profile's ``SingletonLock`` link (``<host>-<pid>``) once it is up
    and removes the link as it exits. Without the link there may still be a browser: one still
    starting (its worker died while launching it), which would write the profile again after it
    is removed. So then, and always with ``search`` (a browser that is still exiting), every
    process of ours is looked through for one on this very profile. A pid is trusted only if
    that process runs on this profile.
    """
    import psutil

    flag = f"--user-data-dir={profile_dir}"
    victims: list[psutil.Process] = []
    for proc in _profile_browsers(profile_dir, search):
        try:
            if flag in proc.cmdline():
                victims += [proc, *proc.children(recursive=True)]
        except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
            continue
    for proc in victims:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
            proc.kill()
    _, alive = psutil.wait_procs(victims, timeout=wait_s)
    return [f"Browser process {p.pid} on {profile_dir} survived SIGKILL." for p in alive]


def _profile_browsers(profile_dir: Path, search: bool) -> list[psutil.Process]:
    import psutil

    if not search:
        try:
            pid = int(os.readlink(profile_dir / "SingletonLock").rsplit("-", 1)[1])
            return [psutil.Process(pid)]
        except (OSError, ValueError, IndexError, psutil.Error):
            pass  # no browser up on it: look for one still starting
    uid = os.getuid()
    return [p for p in psutil.process_iter(["uids"]) if p.info["uids"].real == uid]

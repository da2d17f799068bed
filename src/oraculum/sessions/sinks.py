"""Where a wake-up goes once a poller has claimed it: a sink is a callable taking a Wakeup.

A sink raises only when the wake-up did not go out at all (the claim is then released and a
later scan retries). A configured hook command is best-effort on top of the primary sink: its
failure is logged, never retried in a loop, and it runs for a job's first wake-up only (an agent
is reminded until it reads the answer; the person the hook notifies is told once).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from oraculum.processes.run import run_helper
from oraculum.sessions.wakeup import Wakeup

Sink = Callable[[Wakeup], None]

log = logging.getLogger("oraculum.sessions")


@dataclass(frozen=True)
class HookResult:
    argv: tuple[str, ...]
    returncode: int | None  # None: it did not start, or timed out
    error: str | None = None


def _run_hook(argv: Sequence[str], wakeup: Wakeup, *, timeout_s: float = 10.0) -> HookResult:
    """Run the configured hook: argv as given (no shell), the wake-up text on stdin, job facts
    in the environment."""
    env = {
        **os.environ,
        "ORACULUM_JOB_ID": wakeup.job_id,
        "ORACULUM_JOB_STATUS": wakeup.status,
        "ORACULUM_SESSION": wakeup.session_id,
        "ORACULUM_RESPONSE_PATH": wakeup.response_path,
        "ORACULUM_WAKEUP_KIND": wakeup.kind,  # "oracle", or a background task's kind
    }
    command = tuple(argv)
    # Its own group (a terminal's Ctrl-C must not reach the hook mid-send), stopped whole when
    # it overruns.
    code, error = run_helper(
        "hook", command, stdin=wakeup.text.encode("utf-8"), env=env, timeout_s=timeout_s
    )
    return HookResult(command, code, error)


def hook_sink(argv: Sequence[str], *, timeout_s: float = 10.0) -> Sink:
    def deliver(wakeup: Wakeup) -> None:
        if wakeup.attempt > 1:  # a reminder to the agent, not news to the person
            return
        result = _run_hook(argv, wakeup, timeout_s=timeout_s)
        if result.error:
            log.warning("wake-up hook for job %s: %s", wakeup.job_id, result.error)

    return deliver


def fan_out(primary: Sink, *extra: Sink | None) -> Sink:
    """The primary sink decides delivery; extras (the hook) run after it, best-effort."""
    others = [sink for sink in extra if sink is not None]

    def deliver(wakeup: Wakeup) -> None:
        primary(wakeup)
        for sink in others:
            try:
                sink(wakeup)
            except Exception:  # an extra sink never turns a delivered wake-up into a retry
                log.exception("extra wake-up sink failed for job %s", wakeup.job_id)

    return deliver


@dataclass
class Inbox:
    """A thread-safe list of delivered wake-ups waiting to be shown (MCP results, `wait`)."""

    _items: list[Wakeup] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _arrived: threading.Condition | None = None

    def __post_init__(self) -> None:
        self._arrived = threading.Condition(self._lock)

    def __call__(self, wakeup: Wakeup) -> None:
        assert self._arrived is not None
        with self._arrived:
            self._items.append(wakeup)
            self._arrived.notify_all()

    def drain(self) -> list[Wakeup]:
        with self._lock:
            items, self._items = self._items, []
        return items

    def wait(self, timeout: float) -> bool:
        """Block until something is pending or ``timeout`` passes; True if something is."""
        assert self._arrived is not None
        with self._arrived:
            return self._arrived.wait_for(lambda: bool(self._items), timeout=timeout)

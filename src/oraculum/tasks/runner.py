"""One background-task path: "return now, deliver exactly one completion or failure later, at
most N at once" for any finite tool (browser_fetch's background mode, codex_search, …).

:meth:`BackgroundTasks.start` runs ``work`` on a daemon thread and returns its task id at
once. Whatever happens to the work — a :class:`TaskResult`, an exception, a cancel — exactly
one durable notice is posted for its owner (:func:`oraculum.tasks.notices.post_notice`), and
the session's pollers deliver it through the wake-up machinery. The limit is per owner and per
runner (one runner per tool kind), counted in this process: the tasks run in it.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.tasks.notices import Notice, NoticeStore, Owner, post_notice

__all__ = ["BackgroundTasks", "TaskResult", "Work"]

log = logging.getLogger("oraculum.tasks")


@dataclass(frozen=True)
class TaskResult:
    """What a finished task tells its session."""

    ok: bool
    title: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)
    error_code: ErrorCode | None = None


Work = Callable[[threading.Event], TaskResult]


@dataclass
class _Running:
    task_id: str
    owner: Owner
    title: str
    cancel: threading.Event
    thread: threading.Thread | None = None


def _failure(title: str, error: BaseException) -> TaskResult:
    """The result of work that raised: its OracleError's code, else internal_error."""
    if isinstance(error, OracleError):
        # An OracleError holds a member (it takes ErrorCode only, and refuses unknown strings).
        return TaskResult(False, title, f"[{error.code}] {error}", {}, error.code)
    text = f"[internal_error] {type(error).__name__}: {error}"
    return TaskResult(False, title, text, {}, ErrorCode.INTERNAL_ERROR)


def _cancelled(title: str) -> TaskResult:
    return TaskResult(False, title, "The task was cancelled.", {}, ErrorCode.TASK_CANCELLED)


class BackgroundTasks:
    """In-process runner of one kind of background task, at most ``limit`` per owner."""

    def __init__(self, kind: str, limit: int, *, store: NoticeStore | None = None) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.kind = kind
        self.limit = limit
        self.store = store
        self._lock = threading.Lock()
        self._running: dict[str, _Running] = {}

    def running(self, owner: Owner) -> list[str]:
        """The ids of ``owner``'s tasks still running, oldest first."""
        with self._lock:
            return [t.task_id for t in self._running.values() if t.owner == owner]

    def start(self, owner: Owner, title: str, work: Work) -> str:
        """Start ``work`` in the background; its task id at once. ``background_limit`` when
        ``owner`` already runs ``limit`` tasks of this kind."""
        task = _Running(f"{self.kind}-{secrets.token_hex(6)}", owner, title, threading.Event())
        with self._lock:
            count = sum(1 for t in self._running.values() if t.owner == owner)
            if count >= self.limit:
                raise OracleError(
                    ErrorCode.BACKGROUND_LIMIT,
                    f"This session already runs {count} background {self.kind} task(s) "
                    f"(at most {self.limit} at once).",
                    details={"kind": self.kind, "limit": self.limit, "running": count},
                    suggested_next_step="Wait for one to finish (its notice arrives), then retry.",
                )
            self._running[task.task_id] = task
            task.thread = threading.Thread(
                target=self._run, args=(task, work), name=f"oraculum-{task.task_id}", daemon=True
            )
        try:
            task.thread.start()
        except BaseException:
            with self._lock:
                self._running.pop(task.task_id, None)
            raise
        return task.task_id

    def cancel(self, task_id: str) -> bool:
        """Ask one task to stop; False when it is not running."""
        with self._lock:
            task = self._running.get(task_id)
        if task is None:
            return False
        task.cancel.set()
        return True

    def cancel_owner(self, owner: Owner, *, join_s: float = 0.0) -> list[str]:
        """Cancel every task of ``owner`` (its session ended); wait up to ``join_s`` for them
        to post their notices. The ids cancelled."""
        with self._lock:
            tasks = [t for t in self._running.values() if t.owner == owner]
        for task in tasks:
            task.cancel.set()
        for task in tasks:
            if join_s > 0 and task.thread is not None:
                task.thread.join(join_s)
        return [t.task_id for t in tasks]

    def _run(self, task: _Running, work: Work) -> None:
        try:
            result = self._outcome(task, work)
            self._post(task, result)
        finally:
            with self._lock:
                self._running.pop(task.task_id, None)

    def _outcome(self, task: _Running, work: Work) -> TaskResult:
        try:
            result = work(task.cancel)
        except BaseException as error:  # any failure becomes the one notice
            if task.cancel.is_set():
                return _cancelled(task.title)
            if not isinstance(error, Exception):
                log.warning("background task %s ended by %r", task.task_id, error)
            return _failure(task.title, error)
        if not isinstance(result, TaskResult):
            return _failure(task.title, TypeError(f"work returned {type(result).__name__}"))
        if task.cancel.is_set() and result.ok:
            return TaskResult(
                result.ok, result.title, result.text, {**result.data, "cancelled": True}
            )
        return result

    def _post(self, task: _Running, result: TaskResult) -> Notice | None:
        data = {
            **result.data,
            "taskId": task.task_id,
            "ok": result.ok,
            "errorCode": result.error_code.value if result.error_code else None,
        }
        try:
            return post_notice(
                task.owner,
                kind=self.kind,
                source_id=task.task_id,
                title=result.title or task.title,
                text=result.text,
                data=data,
                store=self.store,
            )
        except Exception:  # nothing else can tell the session; the log must
            log.exception("posting the notice of background task %s failed", task.task_id)
            return None

"""Managed processes of one owner (a session): start, list, output, stop, stop all.

Each child runs its literal argv (no shell), stdin closed, no TTY, stdout and stderr read
continuously into bounded tails, and leads its own process group. A monitor thread per child
reaps the leader, keeps a snapshot of its descendants, and when the leader exits on its own,
ends the rest of its group too. Each child carries a mark its descendants inherit
(:mod:`oraculum.processes.lineage`), so one that left the group (``setsid``, ``setsid -f``) is
still found when the group ends: named in ``escapedPids`` and stopped with it. State is in
this process's memory: the owner is the process hosting the manager (the MCP server, or the
per-session supervisor of the CLI), and its end stops everything (:meth:`stop_all`). With a
:class:`~oraculum.processes.journal.Journal` (the supervisor's) each process is also recorded
durably, and :meth:`adopt` takes over what a killed predecessor left running.
"""

from __future__ import annotations

import itertools
import logging
import os
import secrets
import signal
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from oraculum.core import process_group
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.process_group import GroupEnd
from oraculum.jobs.model import iso, utc_now
from oraculum.jobs.process import process_start_time
from oraculum.processes import limits, lineage
from oraculum.processes.journal import Entry, Journal
from oraculum.processes.tail import Tail, read_into

log = logging.getLogger("oraculum.processes")

__all__ = ["TERMINAL", "ProcessManager", "ProcessRecord", "refuse_windows"]

TERMINAL = frozenset({"exited", "signaled", "start_failed", "cleanup_failed"})
_MONITOR_POLL_S = 0.2
# Listing descendants walks every process: once a second is enough to know the escapees.
_DESCENDANTS_EVERY = 5
_ID_PATTERN_PREFIX = "proc-"


@dataclass
class ProcessRecord:
    """One managed process and what is known about it (guarded by its manager's lock)."""

    id: str
    argv: list[str]
    cwd: str | None
    started_at: datetime
    state: str = "starting"
    pid: int | None = None
    exit_code: int | None = None
    signal: str | None = None
    ended_at: datetime | None = None
    stop_reason: str | None = None
    cleanup_error: str | None = None
    escaped_pids: list[int] = field(default_factory=list)
    stdout: Tail = field(default_factory=lambda: Tail(limits.TAIL_BYTES))
    stderr: Tail = field(default_factory=lambda: Tail(limits.TAIL_BYTES))
    popen: subprocess.Popen[bytes] | None = None
    known: dict[int, float] = field(default_factory=dict)  # descendants seen (pid → start)
    mark: str = ""  # inherited by every descendant (see lineage)
    start_time: float | None = None  # the leader's, for its identity
    adopted: bool = False  # taken over from a predecessor: no pipes, no exit status
    leader_done: threading.Event = field(default_factory=threading.Event)
    cleaning: bool = False  # someone (stop or the monitor) owns the group's end

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL

    def to_json(self) -> dict[str, Any]:
        adopted = {"adopted": True} if self.adopted else {}
        return adopted | {
            "id": self.id,
            "executable": self.argv[0],
            "args": self.argv[1:],
            "cwd": self.cwd,
            "state": self.state,
            "pid": self.pid,
            "exitCode": self.exit_code,
            "signal": self.signal,
            "startedAt": iso(self.started_at),
            "endedAt": iso(self.ended_at) if self.ended_at else None,
            "stopReason": self.stop_reason,
            "cleanupError": self.cleanup_error,
            "escapedPids": list(self.escaped_pids),
            "stdoutBytes": self.stdout.total_bytes,
            "stderrBytes": self.stderr.total_bytes,
        }


def refuse_windows(system: str = os.name) -> None:
    """Process groups and the supervisor's Unix socket are the ownership contract: no
    Windows."""
    if system == "nt":
        raise OracleError(
            ErrorCode.PROCESS_UNSUPPORTED,
            "Managed processes need Unix process groups; they are refused on Windows.",
        )


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except (ProcessLookupError, PermissionError):
        return None


class ProcessManager:
    """The managed processes of one owner, in this process."""

    def __init__(
        self,
        *,
        grace_s: float = limits.STOP_GRACE_S,
        verify_s: float = limits.VERIFY_DEADLINE_S,
        journal: Journal | None = None,
    ) -> None:
        self.grace_s = grace_s
        self.verify_s = verify_s
        self.journal = journal
        self._owner = secrets.token_hex(8)  # this manager's part of each mark
        self._lock = threading.Lock()
        self._records: dict[str, ProcessRecord] = {}
        self._ids = itertools.count(1)
        self._closed = False

    # Start -------------------------------------------------------------------------------

    def start(self, executable: str, args: Sequence[str] = (), cwd: str | None = None) -> dict:
        """Spawn the process; returns its record once the OS accepted the spawn."""
        refuse_windows()
        argv = limits.check_start(executable, list(args), cwd)
        record = self._admit(argv, cwd)
        try:
            with lineage.spawning() as own:
                popen = process_group.spawn_group(
                    argv,
                    cwd=cwd,
                    env=lineage.marked_env(record.mark),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
                own(popen.pid)
                self._started(record, popen)
        except OSError as exc:
            self._start_failed(record, exc)
            raise OracleError(
                ErrorCode.PROCESS_START_FAILED,
                f"Could not start {executable}: {exc.strerror or exc}.",
                details={"process": record.to_json()},
                suggested_next_step=limits.shell_hint(executable),
            ) from None
        return record.to_json()

    def _journal_add(self, record: ProcessRecord) -> None:
        """Record the process durably before anything can end it. Should that fail (a full
        disk), it stays managed here; only a successor could not adopt it."""
        if self.journal is None or record.pid is None or record.start_time is None:
            return
        entry = Entry(
            record.id,
            record.pid,
            record.start_time,
            record.mark,
            record.argv,
            record.cwd,
            iso(record.started_at),
        )
        try:
            self.journal.add(entry)
        except (OracleError, OSError):
            log.exception("could not record %s in the session's journal", record.id)

    def _admit(self, argv: list[str], cwd: str | None) -> ProcessRecord:
        with self._lock:
            if self._closed:
                raise OracleError(
                    ErrorCode.PROCESS_UNSUPPORTED, "This session's processes were stopped."
                )
            active = [r for r in self._records.values() if not r.terminal]
            if len(active) >= limits.MAX_ACTIVE:
                raise OracleError(
                    ErrorCode.PROCESS_LIMIT,
                    f"{len(active)} managed processes already run (at most {limits.MAX_ACTIVE}).",
                    details={"active": len(active), "limit": limits.MAX_ACTIVE},
                    suggested_next_step="Stop one with managed_process_stop, then start again.",
                )
            self._evict()
            record = ProcessRecord(f"{_ID_PATTERN_PREFIX}{next(self._ids)}", argv, cwd, utc_now())
            record.mark = f"{self._owner}:{record.id}"
            self._records[record.id] = record
            return record

    def _evict(self) -> None:
        """Keep at most MAX_RECORDS - 1 before adding one: the oldest finished go first."""
        finished = [r for r in self._records.values() if r.terminal]
        while len(self._records) >= limits.MAX_RECORDS and finished:
            del self._records[finished.pop(0).id]

    def _start_failed(self, record: ProcessRecord, exc: OSError) -> None:
        with self._lock:
            record.state = "start_failed"
            record.ended_at = utc_now()
            record.cleanup_error = None
            record.stop_reason = "process_error"
        record.stdout.close()
        record.stderr.close()
        record.leader_done.set()

    def _started(self, record: ProcessRecord, popen: subprocess.Popen[bytes]) -> None:
        started = process_start_time(popen.pid)
        with self._lock:
            record.popen, record.pid, record.state = popen, popen.pid, "running"
            record.start_time = started
        self._journal_add(record)
        assert popen.stdout is not None and popen.stderr is not None
        read_into(popen.stdout, record.stdout)
        read_into(popen.stderr, record.stderr)
        threading.Thread(
            target=self._monitor, args=(record,), name=f"oraculum-{record.id}", daemon=True
        ).start()

    # Leader exit ---------------------------------------------------------------------------

    def _monitor(self, record: ProcessRecord) -> None:
        popen = record.popen
        assert popen is not None and record.pid is not None
        for tick in itertools.count():
            if tick % _DESCENDANTS_EVERY == 0:
                seen = process_group.descendants(record.pid)
                with self._lock:
                    record.known.update(seen)
            try:
                code = popen.wait(_MONITOR_POLL_S)
                break
            except subprocess.TimeoutExpired:
                continue
        lineage.waited(popen.pid)
        with self._lock:
            record.exit_code = code if code >= 0 else None
            record.signal = signal.Signals(-code).name if code < 0 else None
            record.leader_done.set()
            mine = not record.cleaning
            record.cleaning = True
        if mine:  # the leader ended on its own: its group goes with it
            self._finish(record, "leader_exit_cleanup")

    def _finish(self, record: ProcessRecord, reason: str) -> None:
        """End the group, verify it, and record the outcome."""
        assert record.pid is not None
        with self._lock:
            if record.state == "running":
                record.state = "stopping"
            record.stop_reason = record.stop_reason or reason
        if record.adopted:
            end, escapees = self._end_adopted(record)
        else:
            end = process_group.end_group(
                record.pid, record.leader_done.is_set, grace_s=self.grace_s, verify_s=self.verify_s
            )
            # What outlived the group left it: seen earlier, or found by its mark.
            left = process_group.escaped(record.known, record.pid)
            escapees = {pid: record.known[pid] for pid in left} | lineage.marked(record.mark)
        survivors = lineage.stop_identified(escapees, grace_s=self.grace_s, verify_s=self.verify_s)
        with self._lock:
            record.ended_at = utc_now()
            record.escaped_pids = sorted(escapees)
            if not end.ok:
                record.state, record.cleanup_error = "cleanup_failed", end.error
            elif survivors:
                record.state = "cleanup_failed"
                record.cleanup_error = f"escaped descendant(s) {survivors} survived SIGKILL"
            else:
                record.state = "signaled" if record.signal else "exited"
            verified = record.state != "cleanup_failed"
        if verified and self.journal is not None:
            self.journal.drop(record.id)

    def _end_adopted(self, record: ProcessRecord) -> tuple[GroupEnd, dict[int, float]]:
        """Stop an adopted process and its lineage one by one, each by its identity (no group
        signal: its leader may be gone, and a pid alone is never trusted); returns the end and
        the descendants that had left the leader's group."""
        assert record.pid is not None and record.start_time is not None
        found = lineage.marked(record.mark)
        if lineage.alive(record.pid, record.start_time):
            found[record.pid] = record.start_time
        escapees = {pid: at for pid, at in found.items() if _pgid(pid) not in (record.pid, None)}
        survivors = lineage.stop_identified(found, grace_s=self.grace_s, verify_s=self.verify_s)
        if survivors:
            return GroupEnd(False, True, f"processes {survivors} survived SIGKILL"), {}
        return GroupEnd(True, False), escapees

    # Adoption --------------------------------------------------------------------------------

    def adopt(self) -> list[dict]:
        """Take over what the journal records and still runs (a killed predecessor's); entries
        with nothing left are dropped. Returns the adopted records."""
        if self.journal is None:
            return []
        adopted: list[ProcessRecord] = []
        for entry in self.journal.entries():
            if not entry.lineage():
                self.journal.drop(entry.id)
                continue
            record = ProcessRecord(
                entry.id,
                entry.argv,
                entry.cwd,
                datetime.fromisoformat(entry.started_at),
                state="running",
                pid=entry.pid,
                mark=entry.mark,
                start_time=entry.start_time,
                adopted=True,
            )
            record.stdout.close()  # its pipes went with its first owner
            record.stderr.close()
            adopted.append(record)
        with self._lock:
            for record in adopted:
                self._records[record.id] = record
            numbers = [int(r.id.removeprefix(_ID_PATTERN_PREFIX)) for r in self._records.values()]
            self._ids = itertools.count(max(numbers, default=0) + 1)
        for record in adopted:
            threading.Thread(
                target=self._watch_adopted,
                args=(record,),
                name=f"oraculum-{record.id}",
                daemon=True,
            ).start()
        return [record.to_json() for record in adopted]

    def _watch_adopted(self, record: ProcessRecord) -> None:
        """An adopted leader is not our child: watch its identity instead of waiting for it."""
        assert record.pid is not None and record.start_time is not None
        while lineage.alive(record.pid, record.start_time):
            record.leader_done.wait(_MONITOR_POLL_S)
        with self._lock:
            record.leader_done.set()
            mine = not record.cleaning
            record.cleaning = True
        if mine:
            self._finish(record, "leader_exit_cleanup")

    # Stop ------------------------------------------------------------------------------------

    def stop(self, process_id: str, *, reason: str = "explicit") -> dict:
        """Stop one process (and its group); returns its final record."""
        record = self._get(process_id)
        seen = process_group.descendants(record.pid) if record.pid is not None else {}
        with self._lock:
            mine = not record.terminal and not record.cleaning and record.pid is not None
            if mine:
                record.cleaning = True
                record.stop_reason = reason
                record.known.update(seen)
        if mine:
            self._finish(record, reason)
        else:
            self._await_end(record)
        with self._lock:
            return record.to_json()

    def _await_end(self, record: ProcessRecord) -> None:
        """Someone else is ending it (the monitor): wait for their verdict, bounded."""
        process_group.wait_until(lambda: record.terminal, self.grace_s + self.verify_s + 1.0)

    def stop_all(self, *, reason: str = "session_shutdown") -> list[dict]:
        """Stop everything and refuse new starts (the owner's session ended)."""
        with self._lock:
            self._closed = True
            ids = [r.id for r in self._records.values() if not r.terminal]
        results: list[dict] = []
        threads = [
            threading.Thread(target=lambda i=i: results.append(self.stop(i, reason=reason)))
            for i in ids
        ]
        for thread in threads:  # in parallel: each may wait its grace
            thread.start()
        for thread in threads:
            thread.join()
        return results

    # Reading ---------------------------------------------------------------------------------

    def _get(self, process_id: str) -> ProcessRecord:
        with self._lock:
            record = self._records.get(process_id) if isinstance(process_id, str) else None
        if record is None:
            raise OracleError(
                ErrorCode.PROCESS_NOT_FOUND,
                f"No managed process {process_id!s:.40} in this session.",
                suggested_next_step="List them with managed_process_list.",
            )
        return record

    def list_records(self) -> list[dict]:
        with self._lock:
            return [r.to_json() for r in self._records.values()]

    def output(self, process_id: str, max_bytes: int = limits.OUTPUT_CALL_BYTES) -> dict:
        """The newest output of each stream: at most ``max_bytes`` (≤ 20 KiB) each, with the
        count of earlier bytes not shown."""
        record = self._get(process_id)
        size = max(0, min(int(max_bytes), limits.OUTPUT_CALL_BYTES))
        out, err = record.stdout.snapshot(size), record.stderr.snapshot(size)
        with self._lock:
            summary = record.to_json()
        return {
            "process": summary,
            "stdout": out.text,
            "stderr": err.text,
            "stdoutOmittedBytes": out.omitted_bytes,
            "stderrOmittedBytes": err.omitted_bytes,
        }

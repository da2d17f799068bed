"""The durable record of a session's managed processes, so a supervisor that was SIGKILLed
leaves nothing unlistable: the next one (started by `proc list`, `proc shutdown` or a `proc
start` of the session) adopts what still runs.

One JSON file per session beside its socket (``<state>/processes/<digest>.journal.json``,
0600), written atomically by the session's supervisor only (it holds the session's flock). An
entry is added once a process is spawned and dropped once its end is verified; each names the
process by pid and start time and by the mark its descendants inherit
(:mod:`oraculum.processes.lineage`).
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from oraculum.core.fsio import atomic_write_json
from oraculum.processes import lineage

__all__ = ["Entry", "Journal"]


@dataclass(frozen=True)
class Entry:
    id: str
    pid: int
    start_time: float
    mark: str
    argv: list[str]
    cwd: str | None
    started_at: str

    @classmethod
    def from_json(cls, data: Any) -> Entry | None:
        try:
            return cls(
                id=str(data["id"]),
                pid=int(data["pid"]),
                start_time=float(data["start_time"]),
                mark=str(data["mark"]),
                argv=[str(a) for a in data["argv"]],
                cwd=None if data["cwd"] is None else str(data["cwd"]),
                started_at=str(data["started_at"]),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def lineage(self) -> dict[int, float]:
        """What still runs of it: the leader (by identity) and every marked descendant."""
        found = lineage.marked(self.mark)
        if lineage.alive(self.pid, self.start_time):
            found[self.pid] = self.start_time
        return found


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def entries(self) -> list[Entry]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return []
        found = [Entry.from_json(item) for item in data] if isinstance(data, list) else []
        return [entry for entry in found if entry is not None]

    def add(self, entry: Entry) -> None:
        with self._lock:
            kept = [e for e in self.entries() if e.id != entry.id]
            self._write([*kept, entry])

    def drop(self, process_id: str) -> None:
        with self._lock:
            entries = self.entries()
            kept = [e for e in entries if e.id != process_id]
            if len(kept) != len(entries):
                self._write(kept)

    def _write(self, entries: list[Entry]) -> None:
        atomic_write_json(self.path, [asdict(e) for e in entries])

    def anything_running(self) -> bool:
        """Whether any recorded process (or a descendant of one) still runs."""
        return any(entry.lineage() for entry in self.entries())

"""Values derived from files, remembered until one of the files changes.

Loading the config validates every section through pydantic, which costs a start-up more than
some commands' whole work (``oraculum archive`` needs four numbers from it). A command can
instead ask :func:`remembered` for what it derives from the config: the value is recomputed
whenever a source file appears, disappears, or changes (inode, size or modification time), or
oraculum's version changes, and is otherwise read back from a small private file in the state
directory. Only plain JSON values are remembered, and a remembered file that does not parse is
recomputed, never trusted.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from oraculum import __version__
from oraculum.core.errors import OracleError
from oraculum.core.fsio import atomic_write_json, ensure_private_dir
from oraculum.core.paths import state_dir

__all__ = ["remembered", "sources_key"]

# Entries kept per name: one per project and provider a user switches between.
MAX_ENTRIES = 16


def sources_key(sources: Sequence[Path]) -> str:
    """What ``sources`` are right now: each path with its inode, size and modification time
    (or absence), and oraculum's version."""
    parts: list[Any] = [__version__]
    for path in sources:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            parts.append([str(path), None])
            continue
        parts.append([str(path), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns])
    return json.dumps(parts, separators=(",", ":"))


def remembered(
    name: str, sources: Sequence[Path], compute: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """``compute()``, or what it returned before while ``sources`` were as they are now."""
    key = sources_key(sources)
    path = state_dir() / "memo" / f"{name}.json"
    entries = _read(path)
    if key in entries:
        return dict(entries[key])
    value = compute()
    kept = dict(list(entries.items())[-(MAX_ENTRIES - 1) :]) | {key: value}
    # Remembering is an optimisation, never the command's failure; a lost write only costs a
    # recompute next time.
    with contextlib.suppress(OSError, OracleError):
        ensure_private_dir(path.parent)
        atomic_write_json(path, kept, sync=False)
    return value


def _read(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, dict)}

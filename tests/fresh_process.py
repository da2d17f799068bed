"""What a fresh interpreter loads: the one probe behind every "this start stays light" test.

A test process has long since imported everything, so each probe runs its code in a new
interpreter and reads back the names in its ``sys.modules``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["loaded_modules", "present"]


def loaded_modules(tmp_path: Path, code: str, *, timeout: float = 60) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    listing = tmp_path / "modules.json"
    probe = f"{code}\nimport json, sys\nopen(sys.argv[1], 'w').write(json.dumps(list(sys.modules)))"
    subprocess.run(
        [sys.executable, "-c", probe, str(listing)],
        check=True,
        capture_output=True,
        timeout=timeout,
    )
    return set(json.loads(listing.read_text()))


def present(modules: set[str], names: Sequence[str]) -> list[str]:
    """Which of ``names`` (packages count with their submodules) ``modules`` holds."""
    return [n for n in names if any(m == n or m.startswith(f"{n}.") for m in modules)]

"""One auth run's private diagnostics directory: the log, and the last page's URL, accessibility
snapshot, body text and screenshot. Cookie values never reach it; names and domains do.

The directories live in oraculum's log directory (`<state dir>/logs/auth-<time>-…`), never in
the system's temporary directory, and only the newest :data:`KEEP_RUNS` are kept.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from playwright.async_api import Page

from oraculum.browser.diagnostics import capture_diagnostics
from oraculum.core.crashlog import log_dir
from oraculum.core.fsio import ensure_private_dir

LOG_NAME = "auth.log"
CAPTURE_REASON = "auth"  # files: auth.url.txt, auth.aria.txt, auth.text.txt, auth.png
RUN_PREFIX = "auth-"
KEEP_RUNS = 10


def prune_runs(parent: Path, keep: int = KEEP_RUNS) -> None:
    """Remove all but the newest ``keep`` run directories (their names sort by time)."""
    runs = sorted(p for p in parent.glob(f"{RUN_PREFIX}*") if p.is_dir())
    for old in runs[:-keep]:
        shutil.rmtree(old, ignore_errors=True)


class AuthRunLog:
    def __init__(self, progress: Callable[[str], None] | None = None) -> None:
        parent = ensure_private_dir(log_dir())
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        # mkdtemp creates the directory 0700 with an unguessable name.
        self.dir = Path(tempfile.mkdtemp(prefix=f"{RUN_PREFIX}{stamp}-", dir=parent))
        prune_runs(parent)
        self.path = self.dir / LOG_NAME
        self._progress = progress
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        os.close(fd)

    def log(self, message: str) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime())
        with self.path.open("a", encoding="utf-8") as out:
            out.write(f"{stamp} {message}\n")

    def say(self, message: str) -> None:
        """Log, and tell the person running `oraculum auth`."""
        self.log(message)
        if self._progress is not None:
            self._progress(message)

    async def capture(self, page: Page) -> None:
        written = await capture_diagnostics(page, self.dir, CAPTURE_REASON)
        if written:
            self.log("captured " + ", ".join(p.name for p in written))

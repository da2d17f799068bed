"""The start-up hook of every oraculum command: restart the runner when work is pending.

It costs one ``stat`` when nothing is scheduled, and imports nothing beyond the standard
library and :mod:`oraculum.core.paths` until the pending marker exists (CLI start-up stays
light; ``tests/cli/test_startup.py``, ``bench/cli_startup.py``).
"""

from __future__ import annotations

import os

from oraculum.core.paths import state_dir

__all__ = ["restart_runner_if_pending"]


def restart_runner_if_pending() -> bool:
    """Start a runner if the store may hold work and none lives; True if one was started.
    Never raises: a command must not fail because the scheduler could not be started."""
    if not os.path.exists(state_dir() / "scheduler" / "pending"):
        return False
    try:
        from oraculum.scheduler.control import ensure_runner

        return ensure_runner()
    except Exception:  # the command itself comes first; the next one tries again
        import logging

        logging.getLogger("oraculum.scheduler").debug("runner restart failed", exc_info=True)
        return False

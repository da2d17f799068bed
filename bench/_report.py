"""What each bench reports to `bench/run_all.py`: one line per figure, with its target.

A bench calls :func:`record` for every figure it checks against a target. Run alone it only
prints as before; under `run_all.py` (which sets ``ORACULUM_BENCH_REPORT`` to a file) each call
also appends one JSON line there, and run_all prints them all as one table.
"""

from __future__ import annotations

import json
import os
from typing import Literal

ENV = "ORACULUM_BENCH_REPORT"

__all__ = ["ENV", "record"]


def record(
    bench: str,
    figure: str,
    value: float,
    target: float | None,
    *,
    unit: str = "",
    better: Literal["lower", "higher"] = "lower",
    note: str = "",
) -> bool:
    """Report ``value`` against ``target`` (met when at or under it, or at or over it with
    ``better="higher"``); returns whether it is met. A ``target`` of None reports a figure
    that is shown beside the targeted ones and never missed."""
    met = target is None or (value <= target if better == "lower" else value >= target)
    path = os.environ.get(ENV)
    if path:
        row = {
            "bench": bench,
            "figure": figure,
            "value": value,
            "target": target,
            "unit": unit,
            "better": better,
            "met": met,
            "note": note,
        }
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
    return met

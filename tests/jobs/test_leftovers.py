"""What killed jobs leave on disk (issue 41 §3): which runtime profiles are left over, and the
periodic, rate-limited reconcile pass that removes them."""

from __future__ import annotations

import os
import time
from pathlib import Path

from oraculum.jobs.leftovers import orphan_candidates, orphan_profiles
from oraculum.jobs.reconcile import reconcile_due
from oraculum.jobs.store import JobStore

HOUR = 3600.0


def test_a_profile_is_left_over_when_no_live_lease_names_it_and_it_is_old() -> None:
    entries = [
        ("aaaa", 0.0),  # old, unleased: left over
        ("bbbb", 0.0),  # old, but its job runs
        ("bbbb-recollect-12ab", 0.0),  # its job's recollection
        ("cccc", HOUR - 5),  # unleased, but touched a moment ago
        ("doctor-1234", 0.0),  # doctor's throwaway, left by a killed doctor
    ]
    assert orphan_candidates(entries, {"bbbb"}, now=HOUR, min_age_s=600) == [
        "aaaa",
        "doctor-1234",
    ]


def _profile(runtime_dir: Path, name: str, age_s: float) -> Path:
    path = runtime_dir / name
    (path / "Default").mkdir(parents=True)
    then = time.time() - age_s
    os.utime(path, (then, then))
    return path


def test_the_periodic_pass_removes_left_over_profiles_at_most_once_per_interval(
    store: JobStore, tmp_path: Path
) -> None:
    runtime_dir = tmp_path / "runtime"
    old = _profile(runtime_dir, "0" * 32, HOUR)
    young = _profile(runtime_dir, "1" * 32, 0)
    assert orphan_profiles(store, runtime_dir) == [old]

    report = reconcile_due(store, every_s=60, runtime_dir=runtime_dir)
    assert report is not None and report.cleaned == [old.name]
    assert not old.exists() and young.is_dir()

    again = _profile(runtime_dir, "2" * 32, HOUR)
    # Any process's pass less than every_s ago (the shared stamp): this one is skipped.
    assert reconcile_due(store, every_s=60, runtime_dir=runtime_dir) is None
    assert again.is_dir()
    report = reconcile_due(store, every_s=0, runtime_dir=runtime_dir)
    assert report is not None and not again.exists()

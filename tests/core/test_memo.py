"""Values remembered until their source files change (``oraculum.core.memo``)."""

from __future__ import annotations

import os
from pathlib import Path

from oraculum.core.memo import MAX_ENTRIES, remembered
from oraculum.core.paths import state_dir


class Counter:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> dict[str, int]:
        self.calls += 1
        return {"n": self.calls}


def test_computed_once_while_the_sources_stay_as_they_are(
    tmp_path: Path, oraculum_home: Path
) -> None:
    source = tmp_path / "config.json"
    source.write_text("{}")
    compute = Counter()
    assert remembered("t", [source], compute) == {"n": 1}
    assert remembered("t", [source], compute) == {"n": 1}
    assert compute.calls == 1


def test_recomputed_when_a_source_changes_appears_or_goes(
    tmp_path: Path, oraculum_home: Path
) -> None:
    source, absent = tmp_path / "a.json", tmp_path / "b.json"
    source.write_text("{}")
    compute = Counter()
    assert remembered("t", [source, absent], compute) == {"n": 1}
    source.write_text('{"x": 1}')  # changed (size and time)
    assert remembered("t", [source, absent], compute) == {"n": 2}
    absent.write_text("{}")  # appeared
    assert remembered("t", [source, absent], compute) == {"n": 3}
    absent.unlink()  # gone again: a state seen before, so its value comes back
    assert remembered("t", [source, absent], compute) == {"n": 2}
    stamp = source.stat().st_mtime_ns
    source.write_text('{"x": 2}')  # same size, rewritten: its times change
    os.utime(source, ns=(stamp + 10**9, stamp + 10**9))
    assert remembered("t", [source, absent], compute) == {"n": 4}


def test_a_damaged_memo_is_recomputed_and_files_are_private(
    tmp_path: Path, oraculum_home: Path
) -> None:
    compute = Counter()
    remembered("t", [tmp_path / "none"], compute)
    memo = state_dir() / "memo" / "t.json"
    assert memo.stat().st_mode & 0o777 == 0o600
    assert memo.parent.stat().st_mode & 0o777 == 0o700
    memo.write_text("[not a memo")
    assert remembered("t", [tmp_path / "none"], compute) == {"n": 2}


def test_keeps_a_bounded_number_of_states(tmp_path: Path, oraculum_home: Path) -> None:
    compute = Counter()
    sources = [tmp_path / f"s{i}" for i in range(MAX_ENTRIES + 4)]
    for source in sources:
        remembered("t", [source], compute)
    assert remembered("t", [sources[-1]], compute) == {"n": MAX_ENTRIES + 4}
    assert remembered("t", [sources[0]], compute) == {"n": MAX_ENTRIES + 5}  # dropped, redone

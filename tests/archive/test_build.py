"""build_archive on real trees, checked by extracting with the system tar.

Reference acceptance scenarios 59 and 63-67, byte-for-byte extraction, determinism, ceilings,
pruning, the oversize report, timeouts and clean failure.
"""

from __future__ import annotations

import hashlib
import os
import random
import stat
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from oraculum.archive import build as build_module
from oraculum.archive import build_archive, select_entries
from oraculum.archive import selection as selection_module
from oraculum.archive.selection import Entry, SelectionStream, stream_entries
from oraculum.archive.writer import write_archive
from oraculum.core.errors import OracleError
from oraculum.core.providers import REGISTRY

from .support import extract, git_init, link, tar_names, tar_read, tree_listing, write

MIB = 1024 * 1024


def _random(n: int, seed: int = 1) -> bytes:
    return random.Random(seed).randbytes(n)


def _rich_tree(root: Path) -> None:
    write(root, "README.md", b"# readme\n" * 50)
    write(root, "src/app.py", b"print('hi')\n" * 100)
    write(root, "src/empty.txt", b"")
    write(root, "src/block.bin", _random(512, 2))
    write(root, "src/big.bin", _random(3 * MIB + 17, 3))  # crosses the 1 MiB read chunk
    write(root, " leading space.txt", b"space")
    write(root, b"src/caf\xe9\xff.txt", b"not utf-8")
    write(root, "deep/" + "d" * 90 + "/" + "f" * 80 + ".txt", b"long name")
    write(root, "bin/run.sh", b"#!/bin/sh\necho run\n")
    os.chmod(root / "bin" / "run.sh", 0o755)
    link(root, "src/link.py", "app.py")
    link(root, "src/long-link", "../" + "d" * 150)
    write(root, "node_modules/x.js")  # excluded by default
    write(root, ".env", b"SECRET=1")  # excluded by default


def _expected(root: Path, inputs: list[str]) -> dict[bytes, tuple[str, bytes]]:
    full = tree_listing(root)
    return {
        os.fsencode(e.path): full[os.fsencode(e.path)] for e in select_entries(root, inputs).entries
    }


@pytest.mark.parametrize("provider", ["chatgpt", "grok"])
def test_system_tar_extracts_exactly_the_selection(
    tmp_path: Path, mode: str, provider: str
) -> None:
    root = tmp_path / "repo"
    _rich_tree(root)
    if mode == "git":
        git_init(root)
    out = tmp_path / "out"
    out.mkdir()
    result = build_archive(root, ["."], out, "job1", provider)  # type: ignore[arg-type]
    suffix = ".tar.zst" if provider == "chatgpt" else ".tar.gz"
    assert result.path == out / f"context-job1{suffix}"
    assert result.size == result.path.stat().st_size
    assert result.sha256 == hashlib.sha256(result.path.read_bytes()).hexdigest()
    assert stat.S_IMODE(result.path.stat().st_mode) == 0o600
    assert os.listdir(out) == [result.path.name]  # no temporary file left behind
    got = tree_listing(extract(result.path, tmp_path / "x"))
    expected = _expected(root, ["."])
    assert got == expected
    assert b"node_modules/x.js" not in got and b".env" not in got
    assert result.file_count == len(expected)
    assert result.symlink_count == 2
    assert result.uncompressed_bytes == sum(len(v[1]) for v in expected.values() if v[0] == "file")
    assert os.access(tmp_path / "x" / "bin" / "run.sh", os.X_OK)


def test_two_builds_are_byte_identical(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _rich_tree(root)
    a = build_archive(root, ["."], _mk(tmp_path / "a"), "j", "chatgpt")
    # Ownership-free, mtime-free, umask-free: touch and re-permission everything, then rebuild
    # the same content from a different location.
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.utime(path, (1_000_000, 1_000_000))
                mode = os.stat(path).st_mode
                os.chmod(path, (mode | 0o020) & 0o777)  # group-writable
    moved = tmp_path / "elsewhere" / "repo"
    moved.parent.mkdir()
    root.rename(moved)
    b = build_archive(moved, ["."], _mk(tmp_path / "b"), "j", "chatgpt")
    assert a.sha256 == b.sha256
    g1 = build_archive(moved, ["."], _mk(tmp_path / "g1"), "j", "grok")
    g2 = build_archive(moved, ["."], _mk(tmp_path / "g2"), "j", "grok")
    assert g1.sha256 == g2.sha256


def _mk(path: Path) -> Path:
    path.mkdir(parents=True)
    return path


def test_default_ceilings() -> None:
    ceilings = {name: REGISTRY[name].max_archive_bytes for name in ("chatgpt", "grok")}
    assert ceilings == {"chatgpt": 250 * MIB, "grok": 200 * MIB}


def test_scenario_65_whole_repo_prunes_nested_build_not_src_build(
    tmp_path: Path, mode: str
) -> None:
    root = tmp_path / "repo"
    write(root, "apps/RalphMac/build/App.bin", _random(160 * 1024, 5))
    write(root, "apps/RalphMac/Sources/main.swift", b"print(1)\n")
    write(root, "src/build/keeper.ts", _random(20 * 1024, 6))
    write(root, "src/main.ts", b"export {}\n")
    if mode == "git":
        git_init(root)
    out = _mk(tmp_path / "out")
    limit = 96 * 1024
    result = build_archive(root, ["."], out, "j65", "chatgpt", max_bytes=limit)
    assert result.size < limit
    assert [p.path for p in result.pruned_paths] == ["apps/RalphMac/build"]
    pruned = result.pruned_paths[0]
    assert pruned.bytes == 160 * 1024 and pruned.files == 1
    # Random data does not compress: the measured estimate is close to its size.
    assert 150 * 1024 < pruned.estimated_compressed_bytes < 175 * 1024
    assert result.initial_size is not None and result.initial_size >= limit
    names = set(tree_listing(extract(result.path, tmp_path / "x")))
    assert b"src/build/keeper.ts" in names
    assert b"apps/RalphMac/Sources/main.swift" in names
    assert not any(n.startswith(b"apps/RalphMac/build") for n in names)
    payload = result.to_dict()
    assert payload["autoPrunedArchivePaths"][0]["relativePath"] == "apps/RalphMac/build"
    assert payload["initialArchiveBytes"] == result.initial_size


def test_scenario_66_small_candidate_pruned_without_threshold(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, "apps/Tiny/build/out.bin", _random(12 * 1024, 7))
    write(root, "apps/Tiny/main.c", b"int main(){}\n")
    result = build_archive(root, ["."], _mk(tmp_path / "o"), "j66", "grok", max_bytes=8 * 1024)
    assert [p.path for p in result.pruned_paths] == ["apps/Tiny/build"]
    assert result.size < 8 * 1024


def test_prunes_largest_first_only_as_many_as_needed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, "a/build/x.bin", _random(40 * 1024, 8))
    write(root, "b/dist/x.bin", _random(90 * 1024, 9))
    write(root, "c/out/x.bin", _random(20 * 1024, 10))
    write(root, "keep.txt", b"keep")
    result = build_archive(root, ["."], _mk(tmp_path / "o"), "j", "chatgpt", max_bytes=80 * 1024)
    assert [p.path for p in result.pruned_paths] == ["b/dist"]
    assert result.size < 80 * 1024


def test_pruning_many_directories_takes_three_passes_in_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pruning never recompresses the repository once per pruned directory: one streaming
    pass, one measured pass and one pass without the pruned directories, however many."""
    root = tmp_path / "repo"
    for i in range(6):
        write(root, f"pkg{i}/build/x.bin", _random((30 + i) * 1024, 20 + i))
    write(root, "src/main.py", b"print(1)\n")
    passes: list[int] = []
    real_write = build_module.write_archive

    def counting_write(*args: Any, **kwargs: Any) -> Any:
        passes.append(1)
        return real_write(*args, **kwargs)

    monkeypatch.setattr(build_module, "write_archive", counting_write)
    result = build_archive(root, ["."], _mk(tmp_path / "o"), "j", "chatgpt", max_bytes=80 * 1024)
    assert len(result.pruned_paths) >= 4
    assert result.size < 80 * 1024
    assert len(passes) == 3
    names = set(tree_listing(extract(result.path, tmp_path / "x")))
    assert b"src/main.py" in names
    assert len([n for n in names if b"/build/" in n]) == 6 - len(result.pruned_paths)


def test_scenario_67_oversize_single_file(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, "data/big.bin", _random(40 * 1024, 11))
    write(root, "apps/x/build/y.bin", _random(40 * 1024, 12))
    out = _mk(tmp_path / "o")
    with pytest.raises(OracleError) as info:
        build_archive(root, ["data/big.bin"], out, "j67", "chatgpt", max_bytes=10_000)
    err = info.value
    assert err.code == "archive_too_large"
    assert err.retryable
    assert "(0.01 MiB) after default exclusions." in err.message
    assert "so submission stopped before dispatch" in err.message
    assert "Recommended retry order:" in err.message
    d = err.details
    assert d["limitBytes"] == 10_000
    assert d["sizeBytes"] > 10_000
    assert d["prunedPaths"] == []  # only a whole-repository archive is pruned
    assert d["topLevelEntries"][0]["path"] == "data/"
    assert d["topLevelEntries"][0]["bytes"] == 40 * 1024
    assert len(d["recommendedRetryOrder"]) == 3
    assert os.listdir(out) == []


def test_too_large_details_name_largest_entries(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, "assets/video.bin", _random(300 * 1024, 13))
    write(root, "docs/manual.bin", _random(100 * 1024, 14))
    write(root, "README.md", b"readme " * 2000)
    write(root, "packages/web/dist/bundle.bin", _random(30 * 1024, 15))
    out = _mk(tmp_path / "o")
    with pytest.raises(OracleError) as info:
        build_archive(root, ["."], out, "j", "chatgpt", max_bytes=200 * 1024)
    err = info.value
    assert err.exit_code == 2  # fix the call (select fewer files), not "busy" (issue 38 §5)
    d = err.details
    top = d["topLevelEntries"]
    assert [t["path"] for t in top[:3]] == ["assets/", "docs/", "packages/"]
    assert top[0]["bytes"] == 300 * 1024
    # Both ends of the big groups were measured: estimates are close to the real content.
    assert 290 * 1024 < top[0]["estimatedCompressedBytes"] < 310 * 1024
    readme = next(t for t in top if t["path"] == "README.md")
    assert readme["estimatedCompressedBytes"] < readme["bytes"] // 10
    # Pruning the only candidate could not fit: nothing pruned, the shortfall is reported.
    assert d["prunedPaths"] == []
    assert [c["path"] for c in d["remainingCandidates"]] == ["packages/web/dist/"]
    assert d["estimatedSizeAfterPruningAll"] > 200 * 1024
    assert "assets/ — 0.29 MiB" in err.message
    assert err.to_dict()["details"] == d
    assert os.listdir(out) == []


def test_scenario_58_empty_after_exclusions(tmp_path: Path) -> None:
    write(tmp_path / "repo", "build/a.js")
    out = _mk(tmp_path / "o")
    with pytest.raises(OracleError) as info:
        build_archive(tmp_path / "repo", ["."], out, "j", "chatgpt")
    assert info.value.code == "archive_empty"
    assert info.value.message == "Oracle archive inputs are empty after default exclusions"
    assert os.listdir(out) == []


def test_scenario_63_timeout_is_clean_and_prompt(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for i in range(8):
        write(root, f"blob{i}.bin", _random(8 * MIB, i))
    out = _mk(tmp_path / "o")
    started = time.monotonic()
    with pytest.raises(OracleError) as info:
        build_archive(root, ["."], out, "j", "chatgpt", timeout_s=0.05, level=19)
    assert time.monotonic() - started < 1.5
    assert info.value.code == "archive_timeout"
    assert "timed out after 50ms" in info.value.message
    assert info.value.retryable
    assert os.listdir(out) == []


def test_scenario_64_write_failure_is_a_clean_rejection(tmp_path: Path) -> None:
    write(tmp_path / "repo", "a.txt")
    with pytest.raises(OracleError) as info:
        build_archive(tmp_path / "repo", ["."], tmp_path / "missing-dir", "j", "chatgpt")
    assert info.value.code == "archive_failed"
    assert not (tmp_path / "missing-dir").exists()


def test_invalid_job_id_and_provider(tmp_path: Path) -> None:
    write(tmp_path / "repo", "a.txt")
    for job_id in ("../x", "", "a/b", ".hidden"):
        with pytest.raises(OracleError) as info:
            build_archive(tmp_path / "repo", ["."], tmp_path, job_id, "chatgpt")
        assert info.value.code == "invalid_job_id"
    with pytest.raises(OracleError) as info:
        build_archive(tmp_path / "repo", ["."], tmp_path, "j", "claude")  # type: ignore[arg-type]
    assert info.value.code == "invalid_provider"


def test_memory_stays_bounded(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, "huge.bin", _random(64 * MIB, 21))
    tracemalloc.start()
    try:
        result = build_archive(root, ["."], _mk(tmp_path / "o"), "j", "chatgpt")
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.uncompressed_bytes == 64 * MIB
    assert peak < 12 * MIB  # reads and batches in ~1 MiB chunks, never the whole file


@pytest.mark.slow
def test_scenario_59_120k_files(tmp_path: Path) -> None:
    """Two 60,000-file groups (120,000 files) keep count, order and tail (how fast: bench/)."""
    root = tmp_path / "repo"
    for group in ("a", "b"):
        for d in range(60):
            directory = root / group / f"d{d:02d}"
            directory.mkdir(parents=True)
            dfd = os.open(directory, os.O_RDONLY)
            try:
                for i in range(1000):
                    fd = os.open(f"f{i:04d}.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=dfd)
                    os.write(fd, b"%s/%d/%d\n" % (group.encode(), d, i))
                    os.close(fd)
            finally:
                os.close(dfd)
    git_init(root, commit=False)
    sel = select_entries(root, ["b", "a"])
    assert len(sel.entries) == 120_000
    assert sel.entries[0].path == "a/d00/f0000.txt"
    assert sel.entries[59_999].path == "a/d59/f0999.txt"
    assert sel.entries[-1].path == "b/d59/f0999.txt"
    paths = [e.path for e in sel.entries]
    assert paths == sorted(paths)
    result = build_archive(root, ["."], _mk(tmp_path / "o"), "j", "chatgpt", timeout_s=600)
    assert result.file_count == 120_000
    # The system tar reads it whole without unpacking 120,000 files (a third of this test's
    # time); byte-for-byte extraction is checked on the smaller trees above.
    assert sorted(tar_names(result.path)) == paths
    assert tar_read(result.path, "b/d59/f0999.txt") == b"b/59/999\n"
    assert tar_read(result.path, "a/d31/f0500.txt") == b"a/31/500\n"


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def test_files_opened_by_the_selection_give_the_same_archive_and_no_leak(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build reads the files the selection opened through those same descriptors; the
    archive is byte for byte the one built from a plain selection, and no descriptor stays
    open, whatever git listed: excluded names, a submodule, a link, a tracked file that became a
    FIFO, a tracked file deleted."""
    root = tmp_path / "repo"
    _rich_tree(root)
    write(root, "sub/inner.txt", b"inner")
    write(root, "became-fifo.txt", b"was a file")
    write(root, "deleted.txt", b"gone soon")
    git_init(root)
    (root / "became-fifo.txt").unlink()
    os.mkfifo(root / "became-fifo.txt")
    (root / "deleted.txt").unlink()
    handed: list[int] = []
    real_take = selection_module._Selector.take_opened

    def counting_take(self: selection_module._Selector, entry: Entry) -> int:
        fd = real_take(self, entry)
        handed.append(fd)
        return fd

    monkeypatch.setattr(selection_module._Selector, "take_opened", counting_take)
    # git's walk for untracked files finishes first, so no entry is looked at ahead of its
    # reader (those are never opened early).
    real_stream = build_module.stream_entries

    def stream_after_git_walk(*args: Any, **kwargs: Any) -> SelectionStream:
        stream = real_stream(*args, **kwargs)
        assert stream._listing is not None
        stream._listing.untracked(None)
        return stream

    monkeypatch.setattr(build_module, "stream_entries", stream_after_git_walk)
    before = _open_fds()
    result = build_archive(root, ["."], _mk(tmp_path / "a"), "j", "chatgpt")
    assert _open_fds() == before
    assert any(fd >= 0 for fd in handed)  # files were read through the selection's descriptors
    skipped = {s["path"]: s["reason"] for s in result.skipped}
    assert skipped["became-fifo.txt"] == "special file (FIFO)"
    assert skipped["deleted.txt"].startswith("missing on disk")
    selection = select_entries(root, ["."])
    with open(tmp_path / "plain.tar.zst", "wb") as raw:
        plain = write_archive(
            str(root), selection.entries, raw, compression="zstd", level=3, threads=-1
        )
    assert plain.sha256 == result.sha256
    got = tree_listing(extract(result.path, tmp_path / "x"))
    assert got == _expected(root, ["."])


def test_an_abandoned_stream_closes_what_it_opened(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for i in range(50):
        write(root, f"f{i:02d}.txt", b"x" * i)
    git_init(root)
    before = _open_fds()
    stream = stream_entries(root, ["."], open_files=True)
    reading = iter(stream)
    taken = [next(reading) for _ in range(10)]  # nobody takes their files
    assert [e.path for e in taken] == [f"f{i:02d}.txt" for i in range(10)]
    # At most one file is held for its reader, besides git's pipe.
    assert len(_open_fds() - before) <= 2
    stream.close()
    assert _open_fds() == before
    del reading  # a stream dropped half-read closes too
    assert _open_fds() == before

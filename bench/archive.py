"""Archive benchmark: oraculum's build_archive against tar | zstd pipelines.

Usage:
    .venv/bin/python bench/archive.py [--files 20000] [--mib 200] [--real PATH] [--runs 3]
                                      [--repo GIT-WORK-TREE ...] [--no-19] [--stdlib]

Builds a generated tree (mixed text and binary, committed to git) and, when ``--real`` is given
(default: this venv's site-packages), a copy of a real tree turned into a git repository, and
each ``--repo`` git work tree as it is. ``--stdlib`` builds the tree issue 25 measured (~2,450
files, ~104 MiB, like the CPython standard library as a git repository) from this machine's
/usr/lib/python3* (topped up with the largest files of this venv until it is that big). For
each tree it prints wall time and archive size of:

* oraculum: ``build_archive(root, ["."], ..., "chatgpt")`` (zstd level 3, all cores), with and
  without the final fsync (the pipelines below never fsync);
* ``oraculum archive . --out X``: the CLI as a whole process, the way a user runs it (start-up,
  config, selection, compression and its fsync);
* ``git ls-files -z | tar --null -T - -cf - | zstd -T0 -3``;
* the same with ``zstd -19 -T0``;

and the ratios oraculum / pipeline. Timings are the median of ``--runs`` warm-cache runs, with
the contenders alternating and each starting clean (no dirty pages, no earlier output); ``-19``
runs once, at the end: it takes minutes. The load average is printed next to each tree.

Targets (DESIGN, issue 39): the in-process build as ``submit`` runs it (``build_archive``,
with its fsync) at most 1.0x the ``-3`` pipeline's wall time, its archive at most 1.05x the
pipeline's; a 20,000-file repository in well under 2 s. The whole ``oraculum archive``
process and the build without fsync are reported beside them, not targeted.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _report import record

from oraculum.archive import build_archive, select_entries

ORACULUM = str(Path(sys.executable).with_name("oraculum"))
STDLIB_FILES = 2450
STDLIB_BYTES = 104 << 20

WORDS = [
    "def",
    "class",
    "return",
    "import",
    "from",
    "self",
    "value",
    "result",
    "error",
    "path",
    "file",
    "data",
    "list",
    "dict",
    "none",
    "true",
    "false",
    "async",
    "await",
    "yield",
    "lambda",
    "config",
    "archive",
    "job",
    "state",
    "worker",
    "provider",
    "session",
    "test",
    "assert",
    "raise",
    "except",
    "finally",
    "with",
    "open",
    "read",
    "write",
    "close",
    "build",
    "select",
    "entry",
    "exclude",
    "prune",
    "size",
    "limit",
    "zstd",
    "tar",
    "header",
    "offset",
    "stream",
    "buffer",
    "chunk",
    "level",
    "thread",
    "timeout",
    "deadline",
]


def _text_corpus(rng: random.Random, size: int) -> bytes:
    lines = []
    total = 0
    while total < size:
        indent = "    " * rng.randint(0, 3)
        line = indent + " ".join(rng.choices(WORDS, k=rng.randint(3, 12))) + "\n"
        lines.append(line)
        total += len(line)
    return "".join(lines).encode()


def generate_tree(root: Path, files: int, mib: int, seed: int = 7) -> None:
    """A deterministic source-like tree: ~85 % of bytes text, the rest binary."""
    rng = random.Random(seed)
    corpus = _text_corpus(rng, 8 << 20)
    binaries = max(1, files // 200)
    text_files = files - binaries
    text_budget = int(mib * (1 << 20) * 0.85)
    bin_budget = int(mib * (1 << 20) * 0.15)
    avg_text = text_budget // text_files
    for i in range(text_files):
        d = root / f"pkg{i % 40:02d}" / f"mod{(i // 40) % 25:02d}"
        d.mkdir(parents=True, exist_ok=True)
        size = max(64, int(rng.expovariate(1 / avg_text)))
        start = rng.randrange(0, len(corpus) - size - 1) if size < len(corpus) else 0
        (d / f"file{i:05d}.py").write_bytes(corpus[start : start + size])
    for i in range(binaries):
        d = root / "assets" / f"set{i % 10}"
        d.mkdir(parents=True, exist_ok=True)
        size = bin_budget // binaries
        if i % 2:
            data = rng.randbytes(size)  # incompressible (images, archives)
        else:
            # Structured binary: mostly compressible with noise.
            block = rng.randbytes(4096)
            data = (block * (size // 4096 + 1))[:size]
            noise = bytearray(data)
            for j in range(0, size, 97):
                noise[j] = rng.randrange(256)
            data = bytes(noise)
        (d / f"blob{i:03d}.bin").write_bytes(data)


def git_init(root: Path) -> None:
    # No automatic gc: committing 20,000 loose objects would start one in the background,
    # eating a core for the first seconds of the measurements.
    g = ["git", "-c", "user.email=bench@example.invalid", "-c", "user.name=bench"]
    g += ["-c", "gc.auto=0", "-c", "maintenance.auto=false"]
    subprocess.run([*g, "init", "-q"], cwd=root, check=True)
    subprocess.run([*g, "add", "-A"], cwd=root, check=True)
    subprocess.run([*g, "commit", "-q", "-m", "bench"], cwd=root, check=True)


def _copy_tree(source: Path, dest: Path) -> tuple[int, int]:
    """Copy the regular files of ``source`` (no bytecode, no symlinks); (files, bytes)."""
    files = size = 0
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            path = Path(dirpath, name)
            if name.endswith(".pyc") or path.is_symlink() or not path.is_file():
                continue
            target = dest / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            files, size = files + 1, size + path.stat().st_size
    return files, size


def stdlib_tree(dest: Path) -> None:
    """A tree like the CPython standard library as a git repository: every
    /usr/lib/python3* (no bytecode), then this venv's largest files under 20 MiB until the
    tree holds ~2,450 files or ~104 MiB."""
    files = size = 0
    for source in sorted(Path("/usr/lib").glob("python3*")):
        got = _copy_tree(source, dest / source.name)
        files, size = files + got[0], size + got[1]
    site = next(Path(sys.prefix, "lib").glob("python3*/site-packages"))
    extra = sorted(
        (p for p in site.rglob("*") if p.is_file() and not p.is_symlink()),
        key=lambda p: (-p.stat().st_size, str(p)),
    )
    for path in extra:
        if files >= STDLIB_FILES or size >= STDLIB_BYTES:
            break
        length = path.stat().st_size
        if length >= 20 << 20 or path.suffix == ".pyc":
            continue
        target = dest / "extra" / path.relative_to(site)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        files, size = files + 1, size + length
    (dest / ".gitignore").write_text("__pycache__/\n*.pyc\n")


def cli_archive(root: Path, out: Path) -> float:
    """``oraculum archive . --out OUT`` as a whole process (its config in a private home)."""
    t0 = time.perf_counter()
    subprocess.run(
        [ORACULUM, "archive", ".", "--out", str(out)],
        cwd=root,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0


def pipeline(root: Path, out: Path, level: int) -> float:
    cmd = (
        "git ls-files -z | tar --null -T - -cf - | "
        f"zstd -q -T0 -{level} -f -o {out}"  # -q: no progress output on the terminal
    )
    t0 = time.perf_counter()
    subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=root, check=True)
    return time.perf_counter() - t0


def ours(root: Path, out_dir: Path, fsync: bool) -> tuple[float, int, int]:
    t0 = time.perf_counter()
    result = build_archive(root, ["."], out_dir, "bench", "chatgpt", fsync=fsync, timeout_s=600)
    elapsed = time.perf_counter() - t0
    return elapsed, result.size, result.file_count


Measure = Callable[[], tuple[float, int]]  # () -> (seconds, archive bytes)
CLI = "oraculum archive (CLI)"
PIPE3 = "tar|zstd -T0 -3"


def _contenders(root: Path, work: Path) -> dict[str, Measure]:
    def run_ours(fsync: bool) -> tuple[float, int]:
        elapsed, size, _count = ours(root, work, fsync)
        return elapsed, size

    def run_pipeline(level: int) -> tuple[float, int]:
        out = work / f"ref{level}.tar.zst"
        elapsed = pipeline(root, out, level)
        return elapsed, out.stat().st_size

    def run_cli() -> tuple[float, int]:
        out = work / "cli.tar.zst"
        elapsed = cli_archive(root, out)
        return elapsed, out.stat().st_size

    return {
        "oraculum": lambda: run_ours(False),
        "oraculum (fsync)": lambda: run_ours(True),
        CLI: run_cli,
        "tar|zstd -T0 -3": lambda: run_pipeline(3),
        "tar|zstd -T0 -19": lambda: run_pipeline(19),
    }


Results = tuple[dict[str, float], dict[str, int]]  # median seconds, archive bytes


def bench_tree(label: str, root: Path, runs: int, with_19: bool = True) -> Results:
    """Measure every contender on ``root``, print the medians and ratios, return them."""
    work = Path(tempfile.mkdtemp(prefix="oraculum-bench-out-"))
    try:
        tracked = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
        ).stdout.count(b"\0")
        sel = select_entries(root, ["."])
        print(f"\n== {label}: {root}  (load average {os.getloadavg()[0]:.1f})")
        print(
            f"   git ls-files: {tracked} files; oraculum selection: {len(sel.entries)} entries, "
            f"{sel.total_bytes / 2**20:.1f} MiB uncompressed"
        )
        med, sizes = _measure(root, work, runs, with_19)
        _print_results(med, sizes)
        return med, sizes
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _measure(root: Path, work: Path, runs: int, with_19: bool) -> Results:
    # Warm the page cache so every contender reads from memory.
    pipeline(root, work / "warm.tar.zst", 1)
    timings: dict[str, list[float]] = {}
    sizes: dict[str, int] = {}

    def timed(key: str, measure: Measure) -> None:
        # Every contender writes a new file (freeing the last run's output is not timed)
        # and starts with no dirty pages from the set-up or the contender before it.
        for old in work.iterdir():
            old.unlink()
        os.sync()
        elapsed, size = measure()
        timings.setdefault(key, []).append(elapsed)
        sizes[key] = size

    contenders = _contenders(root, work)
    fast = [k for k in contenders if not k.endswith("-19")]
    for run in range(runs):
        for key in fast if run % 2 == 0 else fast[::-1]:  # alternate who goes first
            timed(key, contenders[key])
    if with_19:  # -19 takes minutes: once, after the others
        timed("tar|zstd -T0 -19", contenders["tar|zstd -T0 -19"])
    return {k: statistics.median(v) for k, v in timings.items()}, sizes


def _print_results(med: dict[str, float], sizes: dict[str, int]) -> None:
    for k in med:
        print(f"   {k:24s} {med[k]:7.3f} s  {sizes[k] / 2**20:9.2f} MiB")
    for ref in [r for r in (PIPE3, "tar|zstd -T0 -19") if r in med]:
        for k in ("oraculum", "oraculum (fsync)", CLI):
            print(
                f"   {k:22s} vs {ref:17s} time ratio {med[k] / med[ref]:.3f}  "
                f"size ratio {sizes[k] / sizes[ref]:.3f}"
            )


def _record_ratios(tree: str, results: Results) -> None:
    med, sizes = results
    submit_like = "oraculum (fsync)"  # what submit runs: build_archive, fsync included
    record(
        "archive",
        f"{tree}: in-process build (as submit) / tar|zstd -3, wall",
        med[submit_like] / med[PIPE3],
        1.0,
        unit="x",
        note=f"{med[submit_like]:.2f} s vs {med[PIPE3]:.2f} s",
    )
    record(
        "archive",
        f"{tree}: size / tar|zstd -3",
        sizes[submit_like] / sizes[PIPE3],
        1.05,
        unit="x",
    )
    for key, label in (("oraculum", "in-process, no fsync"), (CLI, "CLI process")):
        record(
            "archive",
            f"{tree}: {label} / tar|zstd -3, wall",
            med[key] / med[PIPE3],
            None,  # reported, not targeted (issue 39)
            unit="x",
            note=f"{med[key]:.2f} s vs {med[PIPE3]:.2f} s",
        )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--mib", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    default_real = next(Path(sys.prefix, "lib").glob("python3*/site-packages"), None)
    parser.add_argument("--real", type=Path, default=default_real)
    parser.add_argument(
        "--repo",
        type=Path,
        action="append",
        default=[],
        help="a git work tree to measure in place, as it is (repeatable; it is only read)",
    )
    parser.add_argument("--skip-generated", action="store_true")
    parser.add_argument("--skip-real", action="store_true")
    parser.add_argument("--stdlib", action="store_true", help="measure the issue-25 tree too")
    parser.add_argument("--no-19", action="store_true", help="skip the (minutes-long) -19 runs")
    return parser


def _generated(scratch: Path, args: argparse.Namespace) -> None:
    gen = scratch / "generated"
    gen.mkdir()
    t0 = time.perf_counter()
    generate_tree(gen, args.files, args.mib)
    git_init(gen)
    print(f"generated {args.files} files in {time.perf_counter() - t0:.1f} s")
    results = bench_tree("generated", gen, args.runs, not args.no_19)
    _record_ratios(f"generated {args.files} files", results)
    record(
        "archive",
        f"generated {args.files} files: in-process build (fsync)",
        results[0]["oraculum (fsync)"],
        2.0,
        unit="s",
    )


def _real(scratch: Path, source: Path, args: argparse.Namespace) -> None:
    real = scratch / "real"
    shutil.copytree(source, real, symlinks=True)
    # The pipelines archive whatever git tracks; ignore bytecode so both sides archive
    # the same files (oraculum excludes it by default).
    (real / ".gitignore").write_text("__pycache__/\n*.pyc\n")
    for nested in real.rglob(".git"):
        shutil.rmtree(nested, ignore_errors=True)
    git_init(real)
    bench_tree(f"real tree (copy of {source})", real, args.runs, not args.no_19)


def _stdlib(scratch: Path, args: argparse.Namespace) -> None:
    tree = scratch / "stdlib"
    tree.mkdir()
    stdlib_tree(tree)
    git_init(tree)
    _record_ratios("stdlib-like tree", bench_tree("stdlib-like", tree, args.runs, not args.no_19))


def main() -> int:
    args = _parser().parse_args()
    print(f"cores: {os.cpu_count()}")
    scratch = Path(tempfile.mkdtemp(prefix="oraculum-bench-"))
    from oraculum.core.paths import private_home_environment

    # The CLI contender reads its config from a private, empty home (the defaults).
    os.environ.update(private_home_environment(scratch / "home"))
    try:
        if args.stdlib:
            _stdlib(scratch, args)
        if not args.skip_generated:
            _generated(scratch, args)
        if args.real is not None and not args.skip_real:
            _real(scratch, args.real, args)
        for repo in args.repo:
            bench_tree(f"repository {repo}", repo.resolve(), args.runs, not args.no_19)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Per-job runtime profiles: fast clones of the signed-in seed profile.

A clone copies what sign-in needs (cookies, local storage, preferences) and skips what only
speeds up a browser that has been used (HTTP and GPU caches, crash reports, model stores). On a
filesystem that supports it the copy is a reflink, so even a large seed clones in milliseconds.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import ensure_private_dir

SEED_GENERATION_FILE = ".oraculum-seed-generation"

# Directory names skipped anywhere in the profile: caches Chromium rebuilds on demand.
SKIPPED_DIRS = frozenset(
    {
        "Cache",
        "Code Cache",
        "GPUCache",
        "DawnCache",
        "DawnGraphiteCache",
        "DawnWebGPUCache",
        "GrShaderCache",
        "GraphiteDawnCache",
        "ShaderCache",
        "CacheStorage",
        "ScriptCache",
        "Crashpad",
        "Crash Reports",
        "BrowserMetrics",
        "component_crx_cache",
        "extensions_crx_cache",
        "optimization_guide_model_store",
        "OptimizationHints",
        "Safe Browsing",
        "SafetyTips",
        "segmentation_platform",
        "Subresource Filter",
        "hyphen-data",
        "WidevineCdm",
    }
)
# Files skipped: locks and sockets of a (possibly) running browser, and metrics.
SKIPPED_FILES = frozenset(
    {"SingletonLock", "SingletonSocket", "SingletonCookie", "RunningChromeVersion", "lockfile"}
)
_FICLONE = 0x40049409  # ioctl number of FICLONE on Linux


@dataclass(frozen=True)
class CloneReport:
    files: int
    bytes: int
    reflinked: int
    seconds: float
    seed_generation: str | None


def read_seed_generation(seed: Path) -> str | None:
    try:
        return (seed / SEED_GENERATION_FILE).read_text().strip() or None
    except OSError:
        return None


def _copy_file(source: Path, target: Path) -> bool:
    """Copy one file, as a reflink when the filesystem can; True when reflinked."""
    with source.open("rb") as src:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as dst:
            try:
                fcntl.ioctl(dst.fileno(), _FICLONE, src.fileno())
                return True
            except OSError as exc:
                if exc.errno not in (errno.EOPNOTSUPP, errno.EXDEV, errno.EINVAL, errno.ENOTTY):
                    raise
            shutil.copyfileobj(src, dst, 1 << 20)
            return False


def profile_entries(seed: Path) -> Iterator[tuple[Path, bool]]:
    """What a copy of ``seed`` keeps, relative to it, each directory before what it holds:
    ``(path, True)`` for a directory, ``(path, False)`` for a regular file. Caches, a running
    browser's locks and every symbolic link are left out."""
    for current, dirnames, filenames in os.walk(seed):
        relative = Path(current).relative_to(seed)
        dirnames[:] = [
            d for d in dirnames if d not in SKIPPED_DIRS and not (Path(current) / d).is_symlink()
        ]
        for name in dirnames:
            yield relative / name, True
        for name in filenames:
            source = Path(current) / name
            if name in SKIPPED_FILES or source.is_symlink() or not source.is_file():
                continue
            yield relative / name, False


def clone_profile(seed: Path, target: Path, *, timeout_s: float = 120.0) -> CloneReport:
    """Copy ``seed`` into the new directory ``target`` (which must not exist yet)."""
    if not seed.is_dir():
        raise OracleError(
            ErrorCode.AUTH_SEED_PROFILE_MISSING,
            f"The signed-in seed profile does not exist: {seed}",
            rejected_value=str(seed),
            suggested_next_step="Run `oraculum auth` to sign in.",
        )
    started = time.monotonic()
    deadline = started + timeout_s
    files = size = reflinked = 0
    ensure_private_dir(target.parent)
    target.mkdir(mode=0o700)
    try:
        for relative, is_dir in profile_entries(seed):
            if is_dir:
                (target / relative).mkdir(mode=0o700)
                continue
            if time.monotonic() > deadline:
                raise OracleError(
                    ErrorCode.PROFILE_CLONE_TIMEOUT,
                    f"Cloning the seed profile took longer than {timeout_s:.0f} s.",
                    retryable=True,
                )
            source = seed / relative
            reflinked += _copy_file(source, target / relative)
            files += 1
            size += source.stat().st_size
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return CloneReport(
        files=files,
        bytes=size,
        reflinked=reflinked,
        seconds=time.monotonic() - started,
        seed_generation=read_seed_generation(seed),
    )


def remove_profile(path: Path) -> list[str]:
    warnings: list[str] = []
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(path, onerror=lambda _f, p, e: warnings.append(f"{p}: {e[1]}"))
    return warnings

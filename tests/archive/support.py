"""Helpers for archive tests: real trees, real git repositories, real system tar."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT = ["git", "-c", "user.email=test@example.invalid", "-c", "user.name=test"]


def write(root: Path, rel: str | bytes, data: bytes = b"x") -> None:
    """Create a file (parents too); ``rel`` may be bytes for non-UTF-8 names."""
    base = os.fsencode(root)
    path = os.path.join(base, os.fsencode(rel))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)


def link(root: Path, rel: str, target: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def git_init(root: Path, *, commit: bool = True) -> None:
    subprocess.run([*GIT, "init", "-q"], cwd=root, check=True)
    if commit:
        subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
        subprocess.run([*GIT, "commit", "-q", "-m", "init", "--allow-empty"], cwd=root, check=True)


def _tar(archive: Path, mode: str, *rest: str) -> bytes:
    """The system tar's output for ``mode`` (``-xf``, ``-tf``, ``-xOf``) on ``archive``."""
    flag = "--zstd" if archive.name.endswith(".zst") else "-z"
    done = subprocess.run(["tar", flag, mode, str(archive), *rest], capture_output=True)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout


def extract(archive: Path, dest: Path) -> Path:
    """Unpack with the system tar (the way a provider's sandbox would)."""
    dest.mkdir(parents=True, exist_ok=True)
    _tar(archive, "-xf", "-C", str(dest))
    return dest


def tar_names(archive: Path) -> list[str]:
    """The non-directory members the system tar lists in ``archive``, in archive order (the
    check of a very large archive that writes no file)."""
    return [n for n in _tar(archive, "-tf").decode().splitlines() if not n.endswith("/")]


def tar_read(archive: Path, name: str) -> bytes:
    """One member's bytes as the system tar unpacks it (to stdout)."""
    return _tar(archive, "-xOf", name)


def tree_listing(root: Path) -> dict[bytes, tuple[str, bytes]]:
    """Every non-directory under ``root``: path bytes -> (kind, content or link target)."""
    out: dict[bytes, tuple[str, bytes]] = {}
    base = os.fsencode(root)
    for dirpath, dirnames, filenames in os.walk(base):
        for name in filenames + dirnames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, base)
            if os.path.islink(full):
                out[rel] = ("symlink", os.readlink(full))
            elif os.path.isfile(full):
                with open(full, "rb") as fh:
                    out[rel] = ("file", fh.read())
    return out

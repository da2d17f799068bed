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


def extract(archive: Path, dest: Path) -> Path:
    """Unpack with the system tar (the way a provider's sandbox would)."""
    dest.mkdir(parents=True, exist_ok=True)
    flag = "--zstd" if archive.name.endswith(".zst") else "-z"
    subprocess.run(["tar", flag, "-xf", str(archive), "-C", str(dest)], check=True)
    return dest


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

"""Carry a verified seed profile from the machine with a browser to the one without.

The common set-up: the agent runs on a headless or remote machine, the person signs in on a
laptop. `oraculum auth PROVIDER --export FILE` writes the laptop's signed-in seed profile (what
a job clone keeps: cookies, local storage, preferences; no caches) into one bundle, a new 0600
file that is never overwritten; `oraculum auth PROVIDER --import-seed FILE` on the other machine
checks it (our manifest, the provider, every member a plain file or directory inside the
profile, bounded sizes, a session cookie present) and swaps it in as that provider's seed under
the auth lock, keeping the old seed as `.prev` (`oraculum auth --rollback` puts it back). Seed
profiles keep their cookies under Chromium's basic password store, so they read the same on any
machine. Nothing secret ever passes through argv: only the bundle's path.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from oraculum.auth.seed import check_seed_paths, staging_dir, swap_into_place
from oraculum.auth.seed_check import seed_session_problem
from oraculum.browser.profile import profile_entries
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import FILE_MODE, ensure_private_dir, os_error

__all__ = ["MANIFEST_NAME", "BundleFacts", "export_seed", "import_seed"]

MANIFEST_NAME = "oraculum-seed.json"
BUNDLE_FORMAT = 1
MAX_MEMBERS = 20_000
MAX_BUNDLE_BYTES = 512 * 1024 * 1024  # unpacked; a seed without caches is a few MiB
_PROFILE = "profile"  # members live under this directory, beside the manifest


@dataclass(frozen=True)
class BundleFacts:
    """What a bundle holds: whose seed, and how much of it."""

    provider: str
    files: int
    bytes: int


def export_seed(seed: Path, provider: str, chat_url: str, bundle: Path) -> BundleFacts:
    """Write ``seed`` into the new file ``bundle``; refused unless the seed holds a session."""
    problem = seed_session_problem(seed, provider, chat_url) if seed.is_dir() else None
    if not seed.is_dir() or problem is not None:
        raise OracleError(
            ErrorCode.AUTH_SEED_PROFILE_UNAUTHENTICATED,
            f"There is no signed-in {provider} seed profile to export ({seed}).",
            rejected_value=str(seed),
            suggested_next_step=f"Sign in first: `oraculum auth {provider}`.",
        )
    handle = _create_private(bundle)
    try:
        with handle, tarfile.open(fileobj=handle, mode="w:gz") as tar:
            files, size = _add_profile(tar, seed)
            manifest = {"format": BUNDLE_FORMAT, "provider": provider, "files": files}
            _add_bytes(tar, MANIFEST_NAME, json.dumps(manifest).encode())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            bundle.unlink()
        raise
    return BundleFacts(provider, files, size)


def _create_private(path: Path) -> io.BufferedWriter:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    except FileExistsError:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"{path} already exists; an export never overwrites a file.",
            rejected_value=str(path),
            suggested_next_step="Name a new file, or remove that one first.",
        ) from None
    except OSError as exc:
        raise os_error(exc, path) from exc
    return os.fdopen(fd, "wb")


def _add_profile(tar: tarfile.TarFile, seed: Path) -> tuple[int, int]:
    files = size = 0
    for relative, is_dir in profile_entries(seed):
        name = str(PurePosixPath(_PROFILE) / relative.as_posix())
        source = seed / relative
        info = tar.gettarinfo(str(source), arcname=name)
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        if is_dir:
            tar.addfile(info)
            continue
        with source.open("rb") as data:
            tar.addfile(info, data)
        files += 1
        size += info.size
    return files, size


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = FILE_MODE
    tar.addfile(info, io.BytesIO(data))


def import_seed(bundle: Path, seed: Path, provider: str, chat_url: str) -> tuple[BundleFacts, str]:
    """Make ``bundle`` the seed of ``provider`` (the caller holds the auth lock); its facts and
    the new seed generation. Nothing changes unless the whole bundle checks out."""
    check_seed_paths(seed)
    ensure_private_dir(seed.parent)
    staged = staging_dir(seed)
    try:
        facts = _unpack(bundle, staged, provider)
        problem = seed_session_problem(staged, provider, chat_url)
        if problem is not None:
            raise _invalid(bundle, f"it holds no signed-in {provider} session ({problem.code})")
        generation = swap_into_place(staged, seed)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    return facts, generation


def _unpack(bundle: Path, staged: Path, provider: str) -> BundleFacts:
    try:
        with tarfile.open(bundle, mode="r:gz") as tar:
            members = _checked_members(tar, bundle)
            manifest = _manifest(tar, members, bundle)
            if manifest.get("provider") != provider:
                raise _invalid(bundle, f"it is a {manifest.get('provider')!r} seed, not {provider}")
            staged.mkdir(mode=0o700)
            return _extract(tar, members, staged, provider)
    except (tarfile.TarError, EOFError, OSError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise OracleError(
                ErrorCode.INVALID_ARGUMENT,
                f"No such bundle: {bundle}",
                rejected_value=str(bundle),
            ) from None
        raise _invalid(bundle, f"it is not a readable bundle ({exc})") from exc


def _checked_members(tar: tarfile.TarFile, bundle: Path) -> list[tarfile.TarInfo]:
    members: list[tarfile.TarInfo] = []
    total = 0
    for member in _bounded(tar, bundle):
        if not (member.isfile() or member.isdir()):
            raise _invalid(bundle, f"{member.name!r} is neither a file nor a directory")
        if _unsafe_name(member.name):
            raise _invalid(bundle, f"{member.name!r} points outside the profile")
        total += member.size
        if total > MAX_BUNDLE_BYTES:
            raise _invalid(bundle, f"it unpacks to more than {MAX_BUNDLE_BYTES >> 20} MiB")
        members.append(member)
    return members


def _bounded(tar: tarfile.TarFile, bundle: Path) -> Iterator[tarfile.TarInfo]:
    for count, member in enumerate(tar, start=1):
        if count > MAX_MEMBERS:
            raise _invalid(bundle, f"it holds more than {MAX_MEMBERS} entries")
        yield member


def _unsafe_name(name: str) -> bool:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or "\\" in name:
        return True
    return name != MANIFEST_NAME and path.parts[:1] != (_PROFILE,)


def _manifest(tar: tarfile.TarFile, members: list[tarfile.TarInfo], bundle: Path) -> Any:
    found = [m for m in members if m.name == MANIFEST_NAME and m.isfile()]
    extracted = tar.extractfile(found[0]) if len(found) == 1 else None
    if extracted is None or found[0].size > 64 * 1024:
        raise _invalid(bundle, "it has no oraculum seed manifest")
    try:
        manifest = json.loads(extracted.read())
    except ValueError:
        raise _invalid(bundle, "its manifest is not JSON") from None
    if not isinstance(manifest, dict) or manifest.get("format") != BUNDLE_FORMAT:
        raise _invalid(bundle, "its manifest is not a format this oraculum reads")
    return manifest


def _extract(
    tar: tarfile.TarFile, members: list[tarfile.TarInfo], staged: Path, provider: str
) -> BundleFacts:
    files = size = 0
    for member in members:
        parts = PurePosixPath(member.name).parts[1:]
        if member.name == MANIFEST_NAME or not parts:
            continue
        target = staged.joinpath(*parts)
        if member.isdir():
            target.mkdir(mode=0o700, parents=True, exist_ok=True)
            continue
        ensure_private_dir(target.parent)
        source = tar.extractfile(member)
        assert source is not None  # a regular member always has data
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
        with os.fdopen(fd, "wb") as out, source:
            shutil.copyfileobj(source, out, 1 << 20)
        files += 1
        size += member.size
    return BundleFacts(provider, files, size)


def _invalid(bundle: Path, why: str) -> OracleError:
    return OracleError(
        ErrorCode.AUTH_BUNDLE_INVALID,
        f"{bundle} cannot be imported: {why}.",
        rejected_value=str(bundle),
        suggested_next_step="Export it again on the signed-in machine: "
        "`oraculum auth PROVIDER --export FILE`.",
    )

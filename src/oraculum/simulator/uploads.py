"""Reading what was uploaded: size, sha256 and, for tar archives, the member list.

The default answer proves receipt from these facts, so tests can check that the bytes the
browser sent are the bytes the job packed.
"""

from __future__ import annotations

import hashlib
import io
import tarfile

import zstandard

from oraculum.simulator.state import Member, Upload, new_id

# Enough to prove receipt without building a huge answer from a huge archive.
MAX_MEMBERS = 2000


def _tar_kind(info: tarfile.TarInfo) -> str:
    if info.isdir():
        return "dir"
    if info.isfile():
        return "file"
    if info.issym() or info.islnk():
        return "symlink"
    return "other"


def _read_tar_stream(stream: io.BufferedIOBase | io.BytesIO) -> list[Member]:
    members: list[Member] = []
    # "r|" reads sequentially, so a zstd stream reader (not seekable) works.
    with tarfile.open(fileobj=stream, mode="r|") as tar:
        for info in tar:
            members.append(Member(info.name, info.size, _tar_kind(info)))
            if len(members) >= MAX_MEMBERS:
                break
    return members


def archive_members(name: str, data: bytes) -> tuple[list[Member] | None, str | None]:
    """(members, error). Not an archive by name: (None, None)."""
    lower = name.lower()
    try:
        if lower.endswith((".tar.zst", ".tzst")):
            reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data))
            return _read_tar_stream(reader), None  # type: ignore[arg-type]
        if lower.endswith((".tar.gz", ".tgz")):
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                return [Member(i.name, i.size, _tar_kind(i)) for i in tar.getmembers()], None
        if lower.endswith(".tar"):
            return _read_tar_stream(io.BytesIO(data)), None
    except (tarfile.TarError, zstandard.ZstdError, OSError, EOFError) as error:
        return None, f"{type(error).__name__}: {error}"
    return None, None


def make_upload(name: str, data: bytes, content_type: str) -> Upload:
    members, error = archive_members(name, data)
    return Upload(
        id=f"file-{new_id().replace('-', '')[:24]}",
        name=name,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        content_type=content_type or "application/octet-stream",
        data=data,
        members=members,
        archive_error=error,
    )


def tar_zst(files: dict[str, bytes]) -> bytes:
    """A small .tar.zst holding `files`: what the page shows a restored thread was sent with."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    return zstandard.ZstdCompressor().compress(raw.getvalue())

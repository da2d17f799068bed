"""What git says about a project: its candidate paths and its ignore rules.

Candidates are the tracked paths plus the untracked, not-ignored ones, so every `.gitignore`,
`.git/info/exclude` and `core.excludesFile` is honoured exactly as git does. The two come from
two ``git ls-files`` runs started together: tracked paths come from the index at once, while
untracked ones need a walk of the whole tree, which goes on in git while the caller starts on
the tracked paths.

All paths are relative to the project root (even when it is a subdirectory of the work tree),
``/``-separated ``str`` with surrogate escapes, in byte order.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import subprocess
import time

from oraculum.archive.inputs import FS_ENCODING, FS_ERRORS
from oraculum.core.errors import ErrorCode, OracleError


class SelectionTimeout(Exception):
    """The caller's deadline passed while the files to archive were being found."""


def _remaining(deadline: float | None) -> float | None:
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise SelectionTimeout
    return left


# What git's walk says about a directory it may not open (in the C locale; the path is relative
# to the top of the work tree and ends with "/").
_UNREADABLE_DIR = re.compile(rb"^warning: could not open directory '(.+)/': (.+?)\r?$", re.M)


def _c_locale() -> dict[str, str]:
    return {**os.environ, "LC_ALL": "C"}


def unreadable_dirs(stderr: bytes, prefix: str) -> dict[str, str]:
    """{directory relative to the project root: reason} from git's walk warnings (pure).

    ``prefix`` is the project root's path below the top of the work tree ("" or "sub/")."""
    out: dict[str, str] = {}
    for match in _UNREADABLE_DIR.finditer(stderr):
        path = match.group(1).decode(FS_ENCODING, FS_ERRORS)
        if path.startswith(prefix):
            out[path[len(prefix) :]] = match.group(2).decode("utf-8", "replace")
    return out


def _show_prefix(root: str) -> str:
    proc = subprocess.run(
        ["git", "-C", root, "rev-parse", "--show-prefix"], capture_output=True, check=False
    )
    return proc.stdout.rstrip(b"\n").decode(FS_ENCODING, FS_ERRORS)


def _paths(output: bytes) -> list[str]:
    """NUL-separated output as distinct paths in byte order (unmerged paths are listed once per
    stage)."""
    names = output.split(b"\0")
    if names[-1] == b"":
        names.pop()
    if not names:
        return []
    # git lists in byte order already (the index's order, and its walk's): the sort is a
    # single pass that finds one run, where sorting a set's arbitrary order costs ~5 ms more
    # on 20,000 paths. Repeats are neighbours; dict keeps the first of each, in order.
    names.sort()
    # One decode for all paths; NUL never occurs inside a path.
    return b"\0".join(dict.fromkeys(names)).decode(FS_ENCODING, FS_ERRORS).split("\0")


class GitListing:
    """The candidates of one project inside a git work tree.

    ``tracked`` is ready at once; :meth:`untracked` waits for git's walk, and :meth:`walk_done`
    says without waiting whether it has finished. Untracked nested repositories come back as
    one ``dir/`` path. Call :meth:`close` when done: it stops a walk nobody waited for.
    """

    def __init__(self, root: str, tracked: list[str], walk: subprocess.Popen[bytes]) -> None:
        self.root = root
        self.tracked = tracked
        self._walk = walk
        self._output = bytearray()
        self._untracked: list[str] | None = None
        self._unreadable: dict[str, str] = {}
        assert walk.stdout is not None
        self._fd = walk.stdout.fileno()
        os.set_blocking(self._fd, False)

    @classmethod
    def start(cls, root: str, deadline: float | None) -> GitListing | None:
        """List ``root``; None outside a work tree, or when git lists nothing at all (the
        project sits in a directory its enclosing repository ignores, like a dotfiles repo
        ignoring `*` in $HOME). Takes the listings :func:`start_early` started, if any."""
        started = _EARLY.pop(os.path.abspath(root), None) or _start_both(root)
        if started is None:
            return None
        walk, index = started
        try:
            tracked, _ = index.communicate(timeout=_remaining(deadline))
        except BaseException as exc:
            _stop(index)
            _stop(walk)
            if isinstance(exc, subprocess.TimeoutExpired):
                raise SelectionTimeout from None
            raise
        if index.returncode != 0:
            _stop(walk)
            return None
        listing = cls(root, _paths(tracked), walk)
        if not listing.tracked and not listing.untracked(deadline):
            return None
        return listing

    def walk_done(self) -> bool:
        """Whether git's walk for untracked paths has finished; reads what it wrote so far."""
        if self._untracked is not None or self._walk.poll() is not None:
            return True
        try:
            while chunk := os.read(self._fd, 1 << 16):
                self._output += chunk
        except BlockingIOError:
            return False
        return True  # end of output: the walk is over

    def untracked(self, deadline: float | None) -> list[str]:
        """The untracked, not-ignored paths (waits for git's walk)."""
        if self._untracked is None:
            os.set_blocking(self._fd, True)
            try:
                rest, warnings = self._walk.communicate(timeout=_remaining(deadline))
            except subprocess.TimeoutExpired:
                self.close()
                raise SelectionTimeout from None
            if self._walk.returncode != 0:
                raise OracleError(
                    ErrorCode.ARCHIVE_FAILED,
                    f"git could not list the untracked files of {self.root} "
                    f"(git ls-files exited with {self._walk.returncode})",
                    suggested_next_step="Run `git status` in the project to see what git says.",
                )
            self._untracked = _paths(bytes(self._output) + rest)
            self._output.clear()
            if warnings and _UNREADABLE_DIR.search(warnings):
                self._unreadable = unreadable_dirs(warnings, _show_prefix(self.root))
        return self._untracked

    def unreadable_dirs(self) -> dict[str, str]:
        """Directories git's walk could not open (their untracked files are unknown), with
        the reason; valid once :meth:`untracked` has returned."""
        return self._unreadable

    def close(self) -> None:
        _stop(self._walk)


def _start_both(root: str) -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]] | None:
    """git's walk for untracked paths and its listing of the index, started together (the
    walk first: it takes longer); None without git."""
    base = ["git", "-C", root, "ls-files", "-z"]
    try:
        # Its warnings name the directories it could not open (read once it is over:
        # `communicate` drains both pipes).
        walk = subprocess.Popen(
            [*base, "--others", "--exclude-standard"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_c_locale(),
        )
    except FileNotFoundError:
        return None
    try:
        index = subprocess.Popen(
            [*base, "--cached"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
    except BaseException:
        _stop(walk)
        raise
    for proc in (index, walk):
        _widen_pipe(proc)
    return walk, index


# A pipe holds 64 KiB; git's listing of 20,000 paths is ~600 KiB. In a pipe that can hold it
# all, git writes its listing and ends while this process is still starting, instead of
# waiting for every 64 KiB to be read once the build asks for the paths.
_LISTING_PIPE_BYTES = 1 << 20


def _widen_pipe(proc: subprocess.Popen[bytes]) -> None:
    """Let ``proc``'s stdout pipe hold a whole listing, where the system allows (Linux)."""
    if proc.stdout is not None and hasattr(fcntl, "F_SETPIPE_SZ"):
        with contextlib.suppress(OSError):  # over the system's pipe-max-size: left as it is
            fcntl.fcntl(proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, _LISTING_PIPE_BYTES)


# Listings started by start_early, by the absolute path of their root, until taken.
_EARLY: dict[str, tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]] = {}


def start_early(root: str | os.PathLike[str]) -> None:
    """Start git's listings of ``root`` now, for the :meth:`GitListing.start` of the same
    root that follows. The build cannot write its first file before git's walk of the whole
    tree is over (the untracked paths merge into the tracked ones in name order), so a
    command line starts it before importing the rest of the archive code: on a 20,000-file
    tree the walk (~30 ms) then goes on while zstandard and the writer load. Listings never
    taken end with the process (git stops at its first write to a closed pipe)."""
    key = os.path.abspath(root)
    if key not in _EARLY:
        with contextlib.suppress(OSError):
            started = _start_both(key)
            if started is not None:
                _EARLY[key] = started


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


def git_ignored(root: str, paths: list[str], deadline: float | None) -> set[str]:
    """Which of ``paths`` (or an ancestor) git ignores."""
    if not paths:
        return set()
    try:
        proc = subprocess.run(
            ["git", "-C", root, "check-ignore", "-z", "--stdin"],
            input=b"\0".join(os.fsencode(p) for p in paths) + b"\0",
            capture_output=True,
            timeout=_remaining(deadline),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise SelectionTimeout from None
    return {os.fsdecode(p) for p in proc.stdout.split(b"\0") if p}

"""Which files go into the archive: candidate listing, exclusions, entry kinds.

In a git work tree the candidates come from git itself (tracked plus untracked-not-ignored), so
every `.gitignore`, `.git/info/exclude` and `core.excludesFile` is honoured exactly as git does.
Outside git the tree is walked and `.gitignore` files are applied with `pathspec`. The default
exclusions (:mod:`oraculum.archive.exclusions`) apply on top.

Explicit inputs override: a named file is always included; a named directory that is itself
excluded (by a default rule, an excluded ancestor or a gitignore) is walked with no exclusions
except credentials (credential files, token-holding `.npmrc`/`.pypirc`, credential
directories) and `.git` metadata. Symlinks are entries, never followed; a link whose target
leaves the root is skipped and reported; FIFOs, sockets and devices are skipped.

A file that cannot be read is skipped and reported ("unreadable: <reason>"), never archived as
an empty hole or lost silently: the reader of the stream opens each file through
:meth:`SelectionStream.open_member`, which leaves one it cannot open out of the selection. The
archive writer and `--list` (:func:`select_entries`) both read the stream that way, so they
agree on every file.

Entries are found lazily and come in byte order of their paths (:class:`SelectionStream`), so the
archive writer reads each file as soon as it is decided on, and each directory's members form
one contiguous run of the archive.
"""

from __future__ import annotations

import errno
import heapq
import itertools
import os
import posixpath
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from oraculum.archive import exclusions as rules
from oraculum.archive.content import (
    CONTENT_CHECK_MAX_BYTES,
    CONTENT_REASON,
    content_exclusion_reason,
)
from oraculum.archive.git import GitListing, SelectionTimeout, git_ignored
from oraculum.archive.inputs import (
    FS_ENCODING,
    FS_ERRORS,
    MEMBER_OPEN_FLAGS,
    ResolvedInput,
    display,
    is_inside,
    resolve_inputs,
)
from oraculum.core.errors import ErrorCode, OracleError

if TYPE_CHECKING:
    import pathspec

EntryKind = Literal["file", "symlink"]

_DENIED = frozenset({errno.EACCES, errno.EPERM})


def unreadable_reason(exc: OSError) -> str:
    """The skip reason of a path the process may not read (pure)."""
    return f"unreadable: {exc.strerror}"


def open_failure_reason(exc: OSError) -> str:
    """Why a member could not be opened, as reported among the skipped paths (pure)."""
    if exc.errno in _DENIED:
        return unreadable_reason(exc)
    return f"could not open while archiving: {exc.strerror}"


def open_regular(path: str | bytes, dir_fd: int | None) -> tuple[int, os.stat_result] | str:
    """Open a member for reading: (descriptor, its fstat), or why it cannot be archived.

    The one way every reader opens a file, so a preview and a build judge it alike."""
    try:
        fd = os.open(path, MEMBER_OPEN_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        return open_failure_reason(exc)
    try:
        st = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        return open_failure_reason(exc)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return "changed type while archiving"
    return fd, st


def open_stat(path: str, dir_fd: int) -> tuple[int, int, int] | None:
    """Open a member as :func:`open_regular` does: (descriptor, size, normalised mode), or None
    when it cannot be archived as a regular file: the selection's hot path."""
    got = open_regular(path, dir_fd)
    if isinstance(got, str):
        return None
    return got[0], got[1].st_size, normalised_mode(got[1].st_mode)


def _fstat_or_close(fd: int) -> os.stat_result:
    try:
        return os.fstat(fd)
    except OSError:
        os.close(fd)
        raise


class Entry(NamedTuple):
    """One archive member. ``size`` is the content length (0 for links).

    A named tuple rather than a dataclass: one is made per file, and this is the cheapest
    immutable record to build."""

    path: str
    kind: EntryKind
    size: int
    mode: int
    target: str = ""


class Exclusion(NamedTuple):
    """A path left out by a rule. ``files`` counts the files git listed under it (None when the
    directory was pruned unwalked)."""

    path: str
    reason: str
    directory: bool
    files: int | None = None


class Skipped(NamedTuple):
    """A path that could not be archived as it is (special file, escaping link, vanished)."""

    path: str
    reason: str


class Selection(NamedTuple):
    project_root: Path
    inputs: list[str]
    whole_repo: bool
    source: Literal["git", "walk"]
    entries: list[Entry]
    excluded: list[Exclusion]
    skipped: list[Skipped]

    @property
    def total_bytes(self) -> int:
        return sum(e.size for e in self.entries)

    def excluded_summary(self, sample: int = 5) -> list[dict[str, Any]]:
        """Exclusions grouped by reason: how many paths, how many files known, a few examples."""
        groups: dict[str, list[Exclusion]] = {}
        for item in self.excluded:
            groups.setdefault(item.reason, []).append(item)
        out = []
        for reason, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            known = [i.files for i in items if i.files is not None]
            out.append(
                {
                    "reason": reason,
                    "paths": len(items),
                    "filesListed": sum(known),
                    "examples": [display(i.path) + ("/" if i.directory else "") for i in items][
                        :sample
                    ],
                }
            )
        return out

    def skipped_dicts(self) -> list[dict[str, str]]:
        return [{"path": display(s.path), "reason": s.reason} for s in self.skipped]


# Reasons a forced walk itself produces: these stay reported even under a named directory,
# as do exclusions by content (the check runs on every file but those named themselves).
_FORCED_WALK_REASONS = frozenset(
    {"credential file", "credential directory", "excluded directory .git"}
)


def normalised_mode(st_mode: int) -> int:
    """0o755 for anything executable, else 0o644: same tree, same archive, whatever the umask."""
    return 0o755 if st_mode & 0o111 else 0o644


def select_entries(
    project_root: Path,
    inputs: Sequence[str],
    *,
    deadline: float | None = None,
    include_git_dir: bool = False,
    progress: Callable[[int], None] | None = None,
) -> Selection:
    """Resolve ``inputs`` and list exactly the entries an archive of them would hold, sorted.

    Each file is opened as the archive writer would open it, so a file the build could not read
    is skipped here too, and a small one is read for the content check the writer runs on the
    bytes it reads (:meth:`SelectionStream.check_content`)."""
    stream = stream_entries(
        project_root,
        inputs,
        deadline=deadline,
        open_files=True,
        include_git_dir=include_git_dir,
        progress=progress,
    )
    for entry in stream:
        if entry.kind == "file":
            fd = stream.open_member(entry)
            if fd < 0:
                continue
            try:
                if entry.size <= CONTENT_CHECK_MAX_BYTES:
                    stream.check_content(entry, os.pread(fd, entry.size, 0))
            except OSError as exc:  # as the writer would fail to read it
                stream.reject(entry, open_failure_reason(exc))
            finally:
                os.close(fd)
    return stream.selection()


def stream_entries(
    project_root: Path,
    inputs: Sequence[str],
    *,
    deadline: float | None = None,
    open_files: bool = False,
    include_git_dir: bool = False,
    progress: Callable[[int], None] | None = None,
) -> SelectionStream:
    """Like :func:`select_entries`, but the entries are found as the returned stream is read.

    With ``open_files``, the files git lists are opened to learn what they are, and the one of
    the entry just yielded stays open for :meth:`SelectionStream.open_member` (the archive
    writer reads it without opening it again). ``include_git_dir`` allows naming `.git`.
    ``progress(n)`` is called every 256 paths looked at (listed, walked or excluded), with n.
    """
    resolved = resolve_inputs(project_root, inputs, include_git_dir=include_git_dir)
    return _Selector(project_root, deadline, open_files, progress).start(resolved)


class _GitIgnores:
    """`.gitignore` matching for walks outside git, one compiled spec per directory.

    Git's precedence: a deeper `.gitignore` overrides a shallower one, and within a file the
    last matching pattern wins (pathspec's check_file gives that). A directory once ignored is
    never descended into, so its contents cannot be re-included, as in git.
    """

    def __init__(self, root: str) -> None:
        self.root = root
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}
        exclude = posixpath.join(root, ".git", "info", "exclude")
        self._info = self._load(exclude)

    @staticmethod
    def _load(path: str) -> pathspec.GitIgnoreSpec | None:
        try:
            with open(path, "rb") as fh:
                lines = fh.read().decode("utf-8", "surrogateescape").splitlines()
        except OSError:
            return None
        # Loaded on the first .gitignore outside git: a git repository (the usual case)
        # never needs it, and it costs a CLI start tens of milliseconds.
        import pathspec

        spec = pathspec.GitIgnoreSpec.from_lines(lines)
        return spec if len(spec.patterns) else None

    def _spec(self, dir_rel: str) -> pathspec.GitIgnoreSpec | None:
        if dir_rel not in self._specs:
            base = posixpath.join(self.root, dir_rel) if dir_rel else self.root
            self._specs[dir_rel] = self._load(posixpath.join(base, ".gitignore"))
        return self._specs[dir_rel]

    def ignored(self, rel: str, *, is_dir: bool) -> bool:
        """Whether ``rel`` itself matches the ignore rules of its ancestors' `.gitignore`s."""
        suffix = "/" if is_dir else ""
        d = posixpath.dirname(rel)
        while True:
            spec = self._spec(d)
            if spec is not None:
                sub = rel[len(d) + 1 :] if d else rel
                hit = spec.check_file(sub + suffix).include
                if hit is not None:
                    return hit
            if not d:
                break
            d = posixpath.dirname(d)
        if self._info is not None:
            hit = self._info.check_file(rel + suffix).include
            if hit is not None:
                return hit
        return False

    def path_ignored(self, rel: str, *, is_dir: bool) -> bool:
        """Whether ``rel`` or any of its ancestor directories is ignored."""
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            if self.ignored("/".join(parts[:depth]), is_dir=True):
                return True
        return self.ignored(rel, is_dir=is_dir)


def _order(path: str) -> bytes:
    """Archive order: the path's bytes, so every directory's members form one run."""
    return path.encode(FS_ENCODING, FS_ERRORS)


class _Selector:
    """Finds the entries of one selection, lazily and in archive order.

    Every source yields in byte order of the path: git's listing is sorted up front, a walk
    visits each directory's children sorted by name (a directory's name with its "/"), and a
    submodule or nested repository found inside git's listing is walked and spliced in where
    its paths belong. What was excluded or skipped is recorded on the way.
    """

    def __init__(
        self,
        project_root: Path,
        deadline: float | None,
        open_files: bool,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.root = os.path.abspath(project_root)
        self.progress = progress
        self.root_real = os.path.realpath(project_root)
        self.deadline = deadline
        self.excluded: dict[tuple[str, str], list[Any]] = {}
        self.skipped: dict[str, str] = {}
        # Entries already yielded whose file could not be opened by the stream's reader.
        self.rejected: set[str] = set()
        self.ignores: _GitIgnores | None = None
        self._ticks = 0
        self._tracked_set: set[str] | None = None
        self._open_files = open_files
        # Files are opened relative to the root's descriptor: the kernel does not walk the
        # root's own path again for every file.
        self._root_fd = (
            os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC) if open_files else -1
        )
        # The file of the entry just yielded, already open, until its reader takes it.
        self._held: tuple[str, int] | None = None
        self._reading_ahead = False

    # -- bookkeeping -------------------------------------------------------------------------

    def _tick(self) -> None:
        self._ticks += 1
        if self._ticks & 255:
            return
        if self.progress is not None:
            self.progress(self._ticks)
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise SelectionTimeout

    def _exclude(self, path: str, reason: str, *, directory: bool, count: bool) -> None:
        slot = self.excluded.setdefault((path, reason), [directory, 0 if count else None])
        if count:
            slot[1] = (slot[1] or 0) + 1

    def _abs(self, rel: str) -> str:
        return f"{self.root}/{rel}" if rel else self.root

    def release(self) -> None:
        """Close the held file nobody took."""
        if self._held is not None:
            os.close(self._held[1])
            self._held = None

    def close(self) -> None:
        """Close every descriptor still open (safe to call more than once)."""
        self.release()
        if self._root_fd >= 0:
            os.close(self._root_fd)
            self._root_fd = -1

    def take_opened(self, entry: Entry) -> int:
        """The open descriptor of ``entry``'s file, now the caller's to close; -1 if none."""
        held = self._held
        if held is None or held[0] != entry.path:
            return -1
        self._held = None
        return held[1]

    def _open_rel(self, rel: str) -> tuple[int, os.stat_result] | str:
        if self._root_fd >= 0:
            return open_regular(rel, self._root_fd)
        return open_regular(self._abs(rel), None)

    def reject(self, path: str, reason: str, *, content: bool = False) -> None:
        """Leave a path already yielded out of the selection: skipped for ``reason``, or, with
        ``content``, excluded for it."""
        if content:
            self._exclude(path, reason, directory=False, count=True)
        else:
            self.skipped[path] = reason
        self.rejected.add(path)

    def open_entry(self, entry: Entry) -> int:
        """Open ``entry``'s file for its reader; -1 (and the entry skipped) if it cannot be."""
        opened = self._open_rel(entry.path)
        if isinstance(opened, str):
            self.reject(entry.path, opened)
            return -1
        return opened[0]

    def _read_head(self, rel: str, fd: int) -> bytes | str:
        """Up to one byte more than the token-check cap from the start of the file, or why it
        cannot be read. An open descriptor is read with pread: its offset stays at 0 for the
        archive writer."""
        own = -1
        if fd < 0:
            opened = self._open_rel(rel)
            if isinstance(opened, str):
                return opened
            own = fd = opened[0]
        try:
            return os.pread(fd, rules.TOKEN_CHECK_MAX_BYTES + 1, 0)
        except OSError as exc:
            return open_failure_reason(exc)
        finally:
            if own >= 0:
                os.close(own)

    def _token_file_out(self, rel: str, name: str, size: int, fd: int, forced: bool) -> bool:
        """Whether a `.npmrc`/`.pypirc` stays out: it holds a token, it is too large to check,
        or it cannot be read to tell (recorded as excluded or skipped)."""
        head = None
        if size <= rules.TOKEN_CHECK_MAX_BYTES:
            got = self._read_head(rel, fd)
            if isinstance(got, str):
                self.skipped[rel] = got
                return True
            if len(got) <= rules.TOKEN_CHECK_MAX_BYTES:  # else it grew since it was looked at
                head = got
        reason = rules.token_exclusion_reason(name, size, head)
        if reason is None:
            return False
        self._exclude(rel, "credential file" if forced else reason, directory=False, count=True)
        return True

    # -- entry kinds -------------------------------------------------------------------------

    def _link_target(self, rel: str, target: str) -> str:
        """Absolute targets inside the root become relative, so the link still works wherever
        the archive is unpacked."""
        if not posixpath.isabs(target):
            return target
        for base in (self.root, self.root_real):
            if is_inside(target, base):
                inner = posixpath.relpath(target, base)
                return posixpath.relpath(inner, posixpath.dirname(rel) or ".")
        return target

    def _symlink(self, rel: str, *, rules_on: bool, forced: bool) -> Entry | None:
        path = self._abs(rel)
        try:
            target = os.readlink(path)
        except OSError as exc:
            self.skipped[rel] = f"unreadable symlink: {exc.strerror}"
            return None
        if not is_inside(os.path.realpath(path), self.root_real):
            self.skipped[rel] = f"symlink escapes the project root (-> {display(target)})"
            return None
        if rules_on or forced:
            dir_like = os.path.isdir(path)
            parts = rel.split("/")
            if rules_on:
                hit = rules.path_exclusion(parts, dir_like=dir_like)
                if hit is not None:
                    self._exclude(hit[0], hit[1], directory=hit[0] != rel or dir_like, count=True)
                    return None
            elif not dir_like and rules.is_credential_file(parts[-1], _parent_name(rel)):
                self._exclude(rel, "credential file", directory=False, count=True)
                return None
        return Entry(rel, "symlink", 0, 0o777, self._link_target(rel, target))

    def _entry(
        self, rel: str, st: os.stat_result | None, *, rules_on: bool, forced: bool, fd: int = -1
    ) -> Entry | None:
        """The entry for one non-directory path found by listing (``rules_on``) or forced
        walking, or None when it is excluded or skipped. ``fd`` is the file, if already open."""
        if st is None:
            try:
                st = os.lstat(self._abs(rel))
            except (FileNotFoundError, NotADirectoryError):
                self.skipped[rel] = "missing on disk (deleted but still tracked by git)"
                return None
            except OSError as exc:
                self.skipped[rel] = unreadable_reason(exc)
                return None
        mode = st.st_mode
        if stat.S_ISLNK(mode):
            return self._symlink(rel, rules_on=rules_on, forced=forced)
        if not stat.S_ISREG(mode):
            self.skipped[rel] = f"special file ({_kind_name(mode)})"
            return None
        name = rel.rsplit("/", 1)[-1]
        if rules_on:
            reason = rules.file_exclusion_reason(name, _parent_name(rel))
            if reason is not None:
                self._exclude(rel, reason, directory=False, count=True)
                return None
        elif forced and rules.is_credential_file(name, _parent_name(rel)):
            self._exclude(rel, "credential file", directory=False, count=True)
            return None
        if (
            name in rules.TOKEN_CHECKED_NAMES
            and (rules_on or forced)
            and self._token_file_out(rel, name, st.st_size, fd, forced)
        ):
            return None
        return Entry(rel, "file", st.st_size, normalised_mode(mode))

    # -- walking -----------------------------------------------------------------------------

    def _children(self, d: str) -> Iterator[tuple[str, str, os.stat_result]]:
        """(name, path, lstat) of a directory's children, in archive order."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise SelectionTimeout
        try:
            it = os.scandir(self._abs(d))
        except OSError as exc:
            self.skipped[d] = f"unreadable directory: {exc.strerror}"
            return iter(())
        found = []
        with it:
            for de in it:
                self._tick()
                rel = f"{d}/{de.name}" if d else de.name
                try:
                    st = de.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue  # vanished while walking
                except OSError as exc:  # e.g. a directory that can be listed, not searched
                    self.skipped[rel] = unreadable_reason(exc)
                    continue
                key = _order(de.name + "/" if stat.S_ISDIR(st.st_mode) else de.name)
                found.append((key, de.name, rel, st))
        found.sort(key=lambda item: item[0])
        return ((name, rel, st) for _key, name, rel, st in found)

    def _walk(self, start: str, *, forced: bool) -> Iterator[Entry]:
        """Walk ``start`` without following links. Normal walks apply the default rules and
        gitignores; forced walks (explicitly named excluded directories) skip only credentials
        and `.git` metadata."""
        ignores = None
        if not forced:
            if self.ignores is None:
                self.ignores = _GitIgnores(self.root)
            ignores = self.ignores
        stack = [self._children(start)]  # depth-first: one sorted iterator per open directory
        while stack:
            item = next(stack[-1], None)
            if item is None:
                stack.pop()
                continue
            name, rel, st = item
            if stat.S_ISDIR(st.st_mode):
                if name == ".git":
                    # Never archive repository internals from a walk: `.git/config` can carry
                    # credentials in remote URLs.
                    self._exclude(rel, "excluded directory .git", directory=True, count=False)
                    continue
                if forced and rules.is_credential_dir(rel.split("/")):
                    # Credentials under ordinary names (`.aws/credentials`): out of a named
                    # directory too, unless named themselves.
                    self._exclude(rel, "credential directory", directory=True, count=False)
                    continue
                if not forced:
                    reason = rules.dir_exclusion_reason(rel.split("/"))
                    if reason is not None:
                        self._exclude(rel, reason, directory=True, count=False)
                        continue
                    if ignores is not None and ignores.ignored(rel, is_dir=True):
                        self._exclude(rel, "gitignored", directory=True, count=False)
                        continue
                stack.append(self._children(rel))
                continue
            if not forced and ignores is not None:
                reason = None
                if not stat.S_ISLNK(st.st_mode):
                    reason = rules.file_exclusion_reason(name, _parent_name(rel))
                if reason is None and ignores.ignored(rel, is_dir=False):
                    self._exclude(rel, "gitignored", directory=False, count=True)
                    continue
            entry = self._entry(rel, st, rules_on=not forced, forced=forced)
            if entry is not None:
                yield entry

    def _from_git(self, paths: list[str], prefix: str) -> Iterator[Entry]:
        """Take git's candidates under ``prefix`` ("" for all) through the default rules, ahead of
        the writer: once it reads the stream (not while it reads ahead) each file is opened here
        for it, and a regular file no rule names takes one call (else the general way)."""
        # Submodules come back from git as one path "sub", but their files ("sub/...") sort
        # after siblings such as "sub-x": each waits here, keyed by "sub/", for its turn.
        waiting: list[tuple[bytes, Iterator[Entry]]] = []
        # Paths come sorted, so a directory's files are consecutive: judge its ancestors once
        # (an excluded ancestor, and the directory's name for rules that know credentials by it).
        last_dir: str | None = None
        hit: tuple[int, str] | None = None
        parent = ""
        file_exclusion, token_checked = rules.file_exclusion_reason, rules.TOKEN_CHECKED_NAMES
        root_fd, open_files, open_file = self._root_fd, self._open_files, open_stat
        new_entry = tuple.__new__  # an Entry without its Python-level __new__
        for p in paths:
            if prefix and not p.startswith(prefix):
                continue
            self._tick()
            if waiting:
                key = _order(p)
                while waiting and waiting[0][0] < key:
                    yield from heapq.heappop(waiting)[1]
            slash = p.rfind("/")
            if slash == len(p) - 1:
                # An untracked nested repository ("dir/"): sorts where its walk's paths belong.
                yield from self._git_dir(p[:-1])
                continue
            directory = p[: slash + 1]
            if directory != last_dir:
                last_dir = directory
                hit, parent = _directory_verdict(p)
            if hit is not None:
                self._exclude("/".join(p.split("/")[: hit[0]]), hit[1], directory=True, count=True)
                continue
            self.release()
            got = open_file(p, root_fd) if open_files and not self._reading_ahead else None
            if got is not None:
                fd, size, mode = got
                name = p[slash + 1 :]
                if name not in token_checked and file_exclusion(name, parent) is None:
                    self._held = (p, fd)
                    yield new_entry(Entry, (p, "file", size, mode, ""))
                    continue
                st = _fstat_or_close(fd)  # a rule names it: judged the general way
            else:  # not opened yet, or not a regular file: looked at without following it
                looked = self._lstat_listed(p)
                if looked is None:
                    continue
                fd, st = -1, looked
                if stat.S_ISDIR(st.st_mode):
                    # A submodule (gitlink): git does not list its files.
                    heapq.heappush(waiting, (_order(p + "/"), self._git_dir(p)))
                    continue
            entry = self._listed_entry(p, st, fd)
            if entry is not None:
                yield entry
        self.release()
        while waiting:
            yield from heapq.heappop(waiting)[1]

    def _lstat_listed(self, rel: str) -> os.stat_result | None:
        """What a listed path is, without following it; None (and it is skipped) when it
        cannot be looked at."""
        try:
            return os.lstat(self._abs(rel))
        except (FileNotFoundError, NotADirectoryError):
            self.skipped[rel] = "missing on disk (deleted but still tracked by git)"
        except OSError as exc:  # below a directory that cannot be searched
            self.skipped[rel] = unreadable_reason(exc)
        return None

    def _listed_entry(self, rel: str, st: os.stat_result, fd: int) -> Entry | None:
        """The entry of a listed non-directory, the general way; its open file ``fd`` (if
        any) is held for the writer, or closed when the path is left out."""
        entry = self._entry(rel, st, rules_on=True, forced=False, fd=fd)
        if fd >= 0:
            if entry is None:
                os.close(fd)
            else:
                self._held = (rel, fd)
        return entry

    def _is_tracked(self, listing: GitListing, rel: str) -> bool:
        if self._tracked_set is None:
            self._tracked_set = set(listing.tracked)
        return rel in self._tracked_set

    def _from_listing(self, listing: GitListing, prefix: str) -> Iterator[Entry]:
        """Tracked and untracked candidates under ``prefix`` as one run.

        The tracked paths are taken through the rules ahead, while git is still walking the
        tree for untracked ones; the two runs merge once that walk is over.
        """
        tracked = self._from_git(listing.tracked, prefix)
        found: list[Entry] = []
        # Nobody reads these yet, so they are looked at, not opened (see `_open`).
        self._reading_ahead = True
        try:
            while len(found) & 7 or not listing.walk_done():
                entry = next(tracked, None)
                if entry is None:
                    break
                found.append(entry)
        finally:
            self._reading_ahead = False
        untracked = [p for p in listing.untracked(self.deadline) if p.startswith(prefix)]
        self._note_unreadable_dirs(listing, prefix)
        if not untracked:  # a clean work tree: nothing to merge
            yield from found
            yield from tracked
            return
        merged = heapq.merge(
            itertools.chain(found, tracked), self._from_git(untracked, prefix), key=_entry_order
        )
        yield from _distinct(merged)

    def _note_unreadable_dirs(self, listing: GitListing, prefix: str) -> None:
        """Directories git's walk could not open: their untracked files are unknown, so the
        directory is reported, as a walk reports it (unless a default rule drops it anyway)."""
        for rel, why in listing.unreadable_dirs().items():
            if (rel + "/").startswith(prefix) and (
                rules.excluded_ancestor([*rel.split("/"), ""]) is None
            ):
                self.skipped[rel] = f"unreadable directory: {why}"

    def _git_dir(self, rel: str) -> Iterator[Entry]:
        reason = rules.dir_exclusion_reason(rel.split("/"))
        if reason is not None:
            self._exclude(rel, reason, directory=True, count=False)
            return iter(())
        return self._walk(rel, forced=False)

    def _named(self, rel: str) -> Iterator[Entry]:
        entry = self._entry(rel, None, rules_on=False, forced=False)
        if entry is not None:
            yield entry

    def _special(self, rel: str) -> Iterator[Entry]:
        st = os.lstat(self._abs(rel))
        self.skipped[rel] = f"special file ({_kind_name(st.st_mode)})"
        return iter(())

    # -- inputs ------------------------------------------------------------------------------

    def start(self, resolved: list[ResolvedInput]) -> SelectionStream:
        """List candidates and plan the walks; the entries are found as the stream is read."""
        listing: GitListing | None = None
        try:
            listing = GitListing.start(self.root, self.deadline)
            forced_dirs = self._forced_dirs(resolved, listing)
            runs = [self._input(item, listing, forced_dirs) for item in resolved]
        except BaseException:
            self.close()
            if listing is not None:
                listing.close()
            raise
        return SelectionStream(
            selector=self,
            project_root=Path(self.root),
            inputs=[r.raw for r in resolved],
            whole_repo=[r.kind for r in resolved] == ["root"],
            source="walk" if listing is None else "git",
            runs=runs,
            named={item.rel for item in resolved if item.kind == "file"},
            forced_dirs=forced_dirs,
            listing=listing,
        )

    def _input(
        self, item: ResolvedInput, listing: GitListing | None, forced_dirs: set[str]
    ) -> Iterator[Entry]:
        if item.kind == "root":
            return (
                self._walk("", forced=False) if listing is None else self._from_listing(listing, "")
            )
        if item.kind == "dir":
            if item.rel in forced_dirs:
                return self._walk(item.rel, forced=True)
            if listing is None:
                return self._walk(item.rel, forced=False)
            if self._is_tracked(listing, item.rel):
                return self._git_dir(item.rel)  # a named submodule
            return self._from_listing(listing, item.rel + "/")
        if item.kind == "special":
            return self._special(item.rel)
        return self._named(item.rel)

    def finish(self, stream: SelectionStream) -> Selection:
        # What an explicit input brought back is not "excluded", whatever "." said about it.
        excluded = [
            Exclusion(path, reason, directory, files)
            for (path, reason), (directory, files) in self.excluded.items()
            if path not in stream.named
            and (
                reason in _FORCED_WALK_REASONS
                or reason.startswith(CONTENT_REASON)
                or not any(is_inside(path, d) for d in stream.forced_dirs)
            )
        ]
        excluded.sort(key=lambda x: (_order(x.path), x.reason))
        entries = stream.entries
        if self.rejected:  # files the reader could not open are skipped, not entries
            entries = [e for e in entries if e.path not in self.rejected]
        skipped: list[Skipped] = []
        if self.skipped:  # the set of 20,000 paths costs ~2 ms: only when it is needed
            included = {e.path for e in entries}
            skipped = [
                Skipped(p, r)
                for p, r in sorted(self.skipped.items(), key=lambda kv: _order(kv[0]))
                if p not in included
            ]
        return Selection(
            project_root=stream.project_root,
            inputs=stream.inputs,
            whole_repo=stream.whole_repo,
            source=stream.source,
            entries=entries,
            excluded=excluded,
            skipped=skipped,
        )

    def _forced_dirs(self, resolved: list[ResolvedInput], listing: GitListing | None) -> set[str]:
        """Named directories that the normal rules would drop: walked without exclusions."""
        dirs = [r.rel for r in resolved if r.kind == "dir"]
        forced = {d for d in dirs if rules.excluded_ancestor([*d.split("/"), ""]) is not None}
        rest = [d for d in dirs if d not in forced]
        if listing is not None:
            forced |= git_ignored(self.root, rest, self.deadline)
        else:
            ignores = self.ignores = self.ignores or _GitIgnores(self.root)
            forced |= {d for d in rest if ignores.path_ignored(d, is_dir=True)}
        return forced


class SelectionStream:
    """A selection's entries in archive order, found while they are read.

    Iterate it once (the archive writer does, so finding files and compressing them overlap);
    then :meth:`selection` gives the whole :class:`Selection`, with what was excluded and
    skipped. Errors of the inputs themselves are raised before any entry is found.
    """

    def __init__(
        self,
        *,
        selector: _Selector,
        project_root: Path,
        inputs: list[str],
        whole_repo: bool,
        source: Literal["git", "walk"],
        runs: list[Iterator[Entry]],
        named: set[str],
        forced_dirs: set[str],
        listing: GitListing | None,
    ) -> None:
        self._selector = selector
        self._listing = listing
        self.project_root = project_root
        self.inputs = inputs
        self.whole_repo = whole_repo
        self.source = source
        self.named = named
        self.forced_dirs = forced_dirs
        self.entries: list[Entry] = []
        self._runs = runs
        self._consumed = False

    def __iter__(self) -> Iterator[Entry]:
        if self._consumed or self.entries:
            raise RuntimeError("a selection stream is read once")
        runs = self._runs
        found = runs[0] if len(runs) == 1 else _distinct(heapq.merge(*runs, key=_entry_order))
        append = self.entries.append
        try:
            for entry in found:
                append(entry)
                yield entry
        finally:
            self.close()
        self._consumed = True

    def close(self) -> None:
        """Stop whatever is still listing and close any file still open (safe to call more
        than once)."""
        self._selector.close()
        if self._listing is not None:
            self._listing.close()

    def take_opened(self, entry: Entry) -> int:
        """The already open descriptor of the entry just read from the stream, which the caller
        must close; -1 when it has none (then open the file yourself)."""
        return self._selector.take_opened(entry)

    def open_member(self, entry: Entry) -> int:
        """The file of the entry just read from the stream, open for reading (the caller
        closes it): the descriptor the selection already holds, or a new one. -1 when it cannot
        be opened: the entry then leaves the selection and is reported as skipped."""
        selector = self._selector  # this runs once per member: one call fewer
        fd = selector.take_opened(entry)
        return fd if fd >= 0 else selector.open_entry(entry)

    def check_content(self, entry: Entry, data: bytes | memoryview) -> bool:
        """Whether the small file of the entry just read, whose content is ``data``, holds a
        credential: then it leaves the selection, reported among the exclusions with its
        reason. A file named itself is never judged (the explicit override)."""
        if entry.path in self.named:
            return False
        reason = content_exclusion_reason(data)
        if reason is None:
            return False
        self._selector.reject(entry.path, reason, content=True)
        return True

    def reject(self, entry: Entry, reason: str) -> None:
        """Leave the entry just read out of the selection, skipped for ``reason``."""
        self._selector.reject(entry.path, reason)

    def selection(self) -> Selection:
        if not self._consumed:
            raise RuntimeError("selection() before the stream was read to its end")
        return self._selector.finish(self)


def _directory_verdict(path: str) -> tuple[tuple[int, str] | None, str]:
    """For a listed path's directory: its excluded ancestor (depth, reason) if any, and its
    name when some rule knows credentials by it (else "")."""
    parent = _parent_name(path)
    known = parent if parent.lower() in rules.CREDENTIAL_FILES_IN else ""
    return rules.excluded_ancestor(path.split("/")), known


def _parent_name(rel: str) -> str:
    """The name of the directory holding ``rel`` ("" at the root)."""
    slash = rel.rfind("/")
    return "" if slash < 0 else rel[rel.rfind("/", 0, slash) + 1 : slash]


def _entry_order(entry: Entry) -> bytes:
    return _order(entry.path)


def _distinct(entries: Iterable[Entry]) -> Iterator[Entry]:
    """Drop repeats of a path (overlapping inputs) from a sorted run."""
    last = None
    for entry in entries:
        if entry.path != last:
            last = entry.path
            yield entry


def _kind_name(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    return "unknown type"


def empty_selection_error(selection: Selection) -> OracleError:
    """`archive_empty`: nothing is left to archive, whatever the cause."""
    message = "Oracle archive inputs are empty after default exclusions"
    step = (
        "Name the files or directories to include explicitly; explicitly named paths "
        "override the default exclusions."
    )
    unreadable = [s for s in selection.skipped if s.reason.startswith("unreadable")]
    if unreadable:
        message += (
            f"; {len(unreadable)} path(s) could not be read "
            f"(first: {display(unreadable[0].path)}: {unreadable[0].reason})"
        )
        step = "Make the skipped files readable by this user, or " + step[0].lower() + step[1:]
    return OracleError(
        ErrorCode.ARCHIVE_EMPTY,
        message,
        rejected_value=selection.inputs,
        suggested_next_step=step,
        details={"excluded": selection.excluded_summary(), "skipped": selection.skipped_dicts()},
    )

"""Resolving archive inputs against the project root.

A person's inputs are relative to the current directory, as in every shell (:func:`from_cwd`
turns them into project-relative ones; `.` in a subdirectory is that subdirectory); below that,
inputs are project-relative paths (absolute paths inside the root are accepted too), and `.`
alone is the whole-repository sentinel. Inputs are never trimmed: a file whose name starts with
a space is a real file. Strings may carry non-UTF-8 bytes as surrogate escapes (that is how
Python hands over such argv and directory entries), and every check here works on them
unchanged.
"""

from __future__ import annotations

import os
import posixpath
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, NamedTuple

from oraculum.core.errors import ErrorCode, OracleError

WHOLE_REPO = "."

# Paths are str with surrogate escapes (how Python hands over names that are not UTF-8); encoding
# them with these gives back their exact bytes.
FS_ENCODING, FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()

# How a member is opened for reading: never through a link, never blocking on a FIFO, never
# becoming a controlling terminal.
MEMBER_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC

InputKind = Literal["root", "file", "dir", "symlink", "special"]


class ResolvedInput(NamedTuple):
    """One validated input: ``rel`` is its project-relative path ("" for the whole repo)."""

    raw: str
    rel: str
    kind: InputKind


def display(path: str) -> str:
    """A printable form of a path that may hold non-UTF-8 bytes (shown as \\xNN)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def check_input_syntax(raw: str) -> None:
    """Reject blank inputs and every spelling of the root other than exactly `.` (pure)."""
    if raw == WHOLE_REPO:
        return
    if not raw.strip():
        raise OracleError(
            ErrorCode.ARCHIVE_INPUT_BLANK,
            "Archive input must be a non-empty project-relative path",
            rejected_value=raw,
            suggested_next_step="Pass a file or directory path inside the project.",
        )
    # `" . "`, `./`, `a/..`: all mean the root, but only `.` may say so, so that "whole
    # repository" (and its automatic pruning) is always a deliberate, exact choice.
    if posixpath.normpath(raw.strip()) == "." or (
        not posixpath.isabs(raw) and posixpath.normpath(raw) == "."
    ):
        raise _sentinel_error(raw)


def _sentinel_error(raw: str) -> OracleError:
    return OracleError(
        ErrorCode.ARCHIVE_INPUT_WHOLE_REPO_SENTINEL_INVALID,
        "Archive input must use '.' exactly for a whole-repo archive",
        rejected_value=display(raw),
        allowed_values=["."],
        suggested_next_step="Use '.' to archive the whole repository.",
    )


def from_cwd(project_root: Path, cwd: Path | None, inputs: Sequence[str]) -> list[str]:
    """``inputs`` as a shell means them, relative to ``cwd`` (default: the current
    directory), turned into the project-relative inputs :func:`resolve_inputs` takes.

    From the project root, or from outside it (`archive --project`), they stay as they are. From
    a subdirectory, `.` is that subdirectory and `../README.md` the root's README; one that
    leaves the project becomes its absolute path, which resolving refuses by name
    (``archive_input_outside_project``); so does one naming the root (`..` from one level
    down): only `.` from the root means the whole project. Blank inputs and spellings of the
    root other than `.` are refused as from the root."""
    here = os.path.realpath(cwd if cwd is not None else os.getcwd())
    root = os.path.realpath(project_root)
    if here == root or not is_inside(here, root):
        return list(inputs)
    below = here[len(root.rstrip("/")) + 1 :]
    return [_from_subdirectory(here, below, raw) for raw in inputs]


def _from_subdirectory(here: str, below: str, raw: str) -> str:
    if posixpath.isabs(raw):
        return raw
    check_input_syntax(raw)
    if raw == WHOLE_REPO:
        return below
    rel = posixpath.normpath(posixpath.join(below, raw))
    # Leaving the project, or naming its root some other way than `.` from the root (the whole
    # project is always a deliberate choice, checked for its scope): resolving refuses it.
    if rel in (".", "..") or rel.startswith("../"):
        return posixpath.normpath(posixpath.join(here, raw))
    return rel


def lexical_relative(root_abs: str, raw: str) -> str | None:
    """The normalised project-relative form of ``raw``, or None if it leaves the root (pure).

    "." means the root itself. `..` is collapsed lexically, as the user wrote it.
    """
    joined = posixpath.normpath(posixpath.join(root_abs, raw))
    if joined == root_abs:
        return "."
    prefix = root_abs.rstrip("/") + "/"
    if not joined.startswith(prefix):
        return None
    return joined[len(prefix) :]


def is_inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


GIT_DIR = ".git"
INCLUDE_GIT_DIR_FLAG = "--include-git-dir"


def names_git_dir(rel: str) -> bool:
    """Whether a project-relative path is a repository's `.git` or lies inside one (pure)."""
    return GIT_DIR in rel.split("/")


def _git_dir_error(raw: str) -> OracleError:
    # `.git` holds every committed version of every file, secrets removed since included.
    return OracleError(
        ErrorCode.ARCHIVE_INPUT_GIT_DIR,
        f"Archive input is repository metadata: {display(raw)} would upload every committed "
        "secret in the repository's history",
        rejected_value=display(raw),
        suggested_next_step=(
            f"Name the work-tree files instead, or pass {INCLUDE_GIT_DIR_FLAG} "
            "(MCP: includeGitDir: true) to upload the repository's internals on purpose."
        ),
    )


def _check_readable(path: str, raw: str) -> None:
    """A named file must be readable: it would otherwise vanish from the archive unseen."""
    try:
        fd = os.open(path, MEMBER_OPEN_FLAGS)
    except OSError as exc:
        raise OracleError(
            ErrorCode.ARCHIVE_INPUT_UNREADABLE,
            f"Archive input cannot be read: {display(raw)}: {exc.strerror}",
            rejected_value=display(raw),
            suggested_next_step="Make the file readable by this user, or leave it out.",
        ) from None
    os.close(fd)


def resolve_inputs(
    project_root: Path, inputs: Sequence[str], *, include_git_dir: bool = False
) -> list[ResolvedInput]:
    """Validate every input and resolve it to a project-relative path, in the given order.

    Raises the first failing input's ``OracleError``. Duplicates are dropped. A `.git`
    directory (or a path inside one) is refused unless ``include_git_dir``.
    """
    if not inputs:
        raise OracleError(
            ErrorCode.ARCHIVE_INPUT_REQUIRED,
            "An archive needs at least one file or directory (use '.' for the whole repository)",
            suggested_next_step="Pass '.' or the files and directories the question is about.",
        )
    root_abs = os.path.abspath(project_root)
    root_real = os.path.realpath(project_root)
    out: list[ResolvedInput] = []
    seen: set[str] = set()
    for raw in inputs:
        check_input_syntax(raw)
        item = _resolve_one(root_abs, root_real, raw)
        if not include_git_dir and names_git_dir(item.rel):
            raise _git_dir_error(raw)
        if item.kind == "file":
            _check_readable(posixpath.join(root_real, item.rel), raw)
        if item.rel not in seen:
            seen.add(item.rel)
            out.append(item)
    return out


def _resolve_one(root_abs: str, root_real: str, raw: str) -> ResolvedInput:
    if raw == WHOLE_REPO:
        return ResolvedInput(raw, "", "root")
    rel = lexical_relative(root_abs, raw)
    if rel is None and posixpath.isabs(raw) and root_real != root_abs:
        rel = lexical_relative(root_real, raw)
    if rel is None:
        raise OracleError(
            ErrorCode.ARCHIVE_INPUT_OUTSIDE_PROJECT,
            f"Archive input must be inside the project cwd: {display(raw)}",
            rejected_value=display(raw),
            suggested_next_step=f"Pass paths inside the project root {root_abs}.",
        )
    if rel == ".":
        raise _sentinel_error(raw)
    path = posixpath.join(root_abs, rel)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise OracleError(
            ErrorCode.ARCHIVE_INPUT_MISSING,
            f"Archive input does not exist: {display(raw)} (project root: {root_abs})",
            rejected_value=display(raw),
            suggested_next_step="Check the path; inputs are relative to the current directory.",
        ) from None
    except NotADirectoryError:
        raise OracleError(
            ErrorCode.ARCHIVE_INPUT_MISSING,
            f"Archive input does not exist: {display(raw)} (project root: {root_abs})",
            rejected_value=display(raw),
        ) from None
    # The parent directories may pass through symlinks; the archived name uses the real
    # location so one file never appears under two names, and the final component is never
    # followed (a named symlink is archived as a link).
    parent_real = os.path.realpath(posixpath.dirname(path))
    target_real = os.path.realpath(path)
    if not is_inside(parent_real, root_real) or not is_inside(target_real, root_real):
        raise OracleError(
            ErrorCode.ARCHIVE_INPUT_SYMLINK_ESCAPE,
            "Archive input must resolve inside the project cwd without symlink escapes: "
            f"{display(raw)}",
            rejected_value=display(raw),
            suggested_next_step="Copy the needed files into the project, or name them directly.",
        )
    name = posixpath.basename(rel)
    parent_rel = "" if parent_real == root_real else parent_real[len(root_real.rstrip("/")) + 1 :]
    canonical = f"{parent_rel}/{name}" if parent_rel else name
    if stat.S_ISLNK(st.st_mode):
        kind: InputKind = "symlink"
    elif stat.S_ISDIR(st.st_mode):
        kind = "dir"
    elif stat.S_ISREG(st.st_mode):
        kind = "file"
    else:
        kind = "special"
    return ResolvedInput(raw, canonical, kind)

"""The prompt a job sends: where it comes from (`-p`, `--prompt-file PATH`, `-` for stdin), that
it is UTF-8 text, and how large it may be for each provider (its registry entry's cap).

Every check runs before the archive is built, so a bad prompt costs nothing and leaves no file.
"""

from __future__ import annotations

import sys
from typing import BinaryIO, Final

from oraculum.core import providers
from oraculum.core.bounded import InputRefused, read_bounded
from oraculum.core.errors import ErrorCode, OracleError

STDIN: Final = "-"


def read_ceiling() -> int:
    """What a prompt file may hold at most before the provider is known: the largest cap of
    any provider (each entry's ``max_prompt_bytes``)."""
    return max(spec.max_prompt_bytes for spec in providers.REGISTRY.values())


# --- pure rules -------------------------------------------------------------------------------


def prompt_text(prompt: object) -> str:
    """``prompt`` when it is non-blank text that UTF-8 can carry; refuse anything else.

    A command line with bytes that are not UTF-8 reaches Python as lone surrogates, and a JSON
    string may hold them too: they cannot be written to `prompt.md` or typed into a page.
    """
    if not isinstance(prompt, str) or not prompt.strip():
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            "A prompt is required.",
            suggested_next_step="Pass the question with -p/--prompt or --prompt-file PATH.",
        )
    try:
        prompt.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"The prompt is not valid UTF-8 text (character {exc.start}).",
            suggested_next_step="Save the prompt as UTF-8 and pass it with --prompt-file PATH.",
        ) from None
    return prompt


def check_prompt_size(prompt: str, provider: str) -> None:
    """Refuse a prompt larger than ``provider`` takes (``prompt_too_large``)."""
    size = len(prompt.encode("utf-8"))
    limit = providers.provider_spec(provider).max_prompt_bytes
    if size > limit:
        raise too_large(size, limit, provider)


def too_large(size: int, limit: int, provider: str | None = None) -> OracleError:
    where = f" for {provider}" if provider else ""
    return OracleError(
        ErrorCode.PROMPT_TOO_LARGE,
        f"The prompt has {size} bytes; the limit{where} is {limit} bytes.",
        suggested_next_step="Shorten the prompt; put long material in the archive's files.",
        details={"bytes": size, "limit": limit},
    )


def decode_prompt(data: bytes, source: str) -> str:
    """Strict UTF-8; the error names the file and the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            f"The prompt file {source} is not valid UTF-8 (byte {exc.start}).",
            rejected_value=source,
            suggested_next_step="Save it as UTF-8 and retry.",
        ) from None


# --- I/O --------------------------------------------------------------------------------------


def choose_prompt(prompt: str | None, prompt_file: str | None) -> str:
    """The prompt from exactly one of ``-p`` text and ``--prompt-file`` (a path or ``-``)."""
    if prompt is not None and prompt_file is not None:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            "Pass the prompt either with -p/--prompt or with --prompt-file, not both.",
        )
    if prompt_file is not None:
        return read_prompt_file(prompt_file)
    return prompt_text(prompt)


def read_prompt_file(source: str, *, stdin: BinaryIO | None = None) -> str:
    """Read a prompt file (``-``: standard input) as strict UTF-8, at most the largest cap.

    A path must name a regular file (a FIFO or a device is refused before it is opened, so
    nothing hangs) no larger than the cap; standard input is read only up to one byte past the
    cap, so an endless one ends too.
    """
    data = _read_capped(stdin or sys.stdin.buffer) if source == STDIN else _read_path(source)
    return prompt_text(decode_prompt(data, source))


def _read_path(source: str) -> bytes:
    try:
        return read_bounded(source, read_ceiling())
    except InputRefused as exc:
        if exc.size is not None:
            raise too_large(exc.size, read_ceiling()) from None
        raise OracleError(
            ErrorCode.PROMPT_FILE_UNREADABLE,
            f"The prompt file {source} {exc.reason}.",
            rejected_value=source,
            suggested_next_step="Pass a regular file, or - to read standard input.",
        ) from None
    except OSError as exc:
        raise _file_error(source, exc) from None


def _read_capped(handle: BinaryIO) -> bytes:
    ceiling = read_ceiling()
    data = handle.read(ceiling + 1)
    if len(data) > ceiling:
        raise too_large(len(data), ceiling)
    return data


def _file_error(source: str, exc: OSError) -> OracleError:
    if isinstance(exc, FileNotFoundError):
        return OracleError(
            ErrorCode.PROMPT_FILE_MISSING,
            f"The prompt file does not exist: {source}",
            rejected_value=source,
            suggested_next_step="Check the path (relative paths start at the current directory).",
        )
    return OracleError(
        ErrorCode.PROMPT_FILE_UNREADABLE,
        f"The prompt file cannot be read: {source} ({exc.strerror or exc})",
        rejected_value=source,
        suggested_next_step="Pass a readable regular file, or - to read standard input.",
    )

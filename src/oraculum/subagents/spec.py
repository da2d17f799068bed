"""What a subagent call may ask for, validated before any child is launched (pure).

A launch names an optional display name, a working directory, an optional tool allowlist and
an optional routing override: a qualified ``provider/model`` and a reasoning level. Each value
that reaches the child's argv is checked here, so the argv stays literal and unambiguous (no
value can start with ``-`` or carry a separator the CLI would split on).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError

__all__ = [
    "MAX_CHILDREN",
    "MAX_PROMPT_BYTES",
    "REASONING_LEVELS",
    "LaunchSpec",
    "Routing",
    "check_id",
    "check_prompt",
    "launch_spec",
    "routing",
]

MAX_CHILDREN = 12
MAX_PROMPT_BYTES = 256 * 1024
MAX_TOOLS = 32
REASONING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")

# provider/model: the provider a plain name, the model id may hold more slashes
# (openrouter/anthropic/claude-x) but no ':' (pi reads "model:level" as a reasoning shorthand).
_MODEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}/[A-Za-z0-9][A-Za-z0-9._/@+-]{0,199}$")
_TOOL = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
_ID = re.compile(r"^[1-9][0-9]{0,5}$")
_NAME_MAX = 80


def _invalid(message: str, value: Any = None, allowed: list[Any] | None = None) -> OracleError:
    shown = value if not isinstance(value, str) or len(value) <= 200 else value[:200]
    return OracleError(
        ErrorCode.INVALID_ARGUMENT, message, rejected_value=shown, allowed_values=allowed
    )


@dataclass(frozen=True)
class Routing:
    """A one-dispatch override; None inherits the agent CLI's own default."""

    model: str | None = None
    reasoning: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"model": self.model, "reasoning": self.reasoning}


@dataclass(frozen=True)
class LaunchSpec:
    """A new conversation's fixed settings."""

    cwd: Path
    name: str | None = None
    tools: tuple[str, ...] | None = None


def routing(model: str | None, reasoning: str | None) -> Routing:
    if model is not None and not _MODEL.fullmatch(model):
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            "A model override must be a qualified provider/model (no ':').",
            rejected_value=model[:200],
            suggested_next_step="Name it as provider/model, e.g. anthropic/claude-sonnet-4-5, "
            "and give the reasoning level separately.",
        )
    if reasoning is not None and reasoning not in REASONING_LEVELS:
        raise _invalid("Unknown reasoning level.", reasoning, list(REASONING_LEVELS))
    return Routing(model, reasoning)


def _name(value: str | None) -> str | None:
    if value is None:
        return None
    if (
        not value.strip()
        or len(value) > _NAME_MAX
        or value.startswith("-")
        or not value.isprintable()
    ):
        raise _invalid(f"A subagent name is 1-{_NAME_MAX} printable characters, not '-…'.", value)
    return value


def _tools(value: Sequence[str] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    tools = tuple(value)
    if not tools or len(tools) > MAX_TOOLS:
        raise _invalid(f"A tool list names 1-{MAX_TOOLS} tools.", len(tools))
    for tool in tools:
        if not isinstance(tool, str) or not _TOOL.fullmatch(tool):
            raise _invalid("A tool name is a letter then letters, digits, '_' or '-'.", tool)
    return tools


def _cwd(value: str | None, root: Path) -> Path:
    path = (root / value) if value else root  # relative to the project; absolute stays
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise _invalid("The working directory does not exist.", str(value)) from None
    if not resolved.is_dir():
        raise _invalid("The working directory is not a directory.", str(value))
    return resolved


def launch_spec(
    *, root: Path, cwd: str | None = None, name: str | None = None, tools: Sequence[str] | None
) -> LaunchSpec:
    """A new conversation's settings, validated (``cwd`` relative to ``root``)."""
    return LaunchSpec(cwd=_cwd(cwd, root), name=_name(name), tools=_tools(tools))


def check_prompt(prompt: str, what: str = "prompt") -> str:
    if not isinstance(prompt, str) or not prompt.strip():
        raise _invalid(f"The {what} is blank.")
    if len(prompt.encode("utf-8")) > MAX_PROMPT_BYTES:
        raise _invalid(f"The {what} is over {MAX_PROMPT_BYTES} bytes.")
    return prompt


def check_id(value: str) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise _invalid("A subagent id is a number (see subagent_list).", value)
    return value

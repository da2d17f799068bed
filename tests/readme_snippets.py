"""What tests read from the README: its shell commands as a person would type them (every line
of its ```sh blocks; a trailing backslash joins the next line, `#` starts a comment), each with
the H2 section it stands under, its MCP client entries, and each agent host's own code blocks
(importable: `from readme_snippets import ...`)."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
AGENT_SECTION = "## 4. Wire it into your agent"


@dataclass(frozen=True)
class ReadmeCommand:
    section: str  # the `## ` heading it stands under
    line: str  # as written, its comment dropped and its whitespace normalised

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.line)


def _logical_lines(block: list[str]) -> list[str]:
    joined: list[str] = []
    pending = ""
    for raw in block:
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        joined.append(pending + raw)
        pending = ""
    return joined


def _without_comment(line: str) -> str:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=False)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return shlex.join(list(lexer))


def readme_commands(text: str | None = None) -> list[ReadmeCommand]:
    """Every command of every ```sh block, in the README's order."""
    text = README.read_text(encoding="utf-8") if text is None else text
    commands: list[ReadmeCommand] = []
    section = ""
    block: list[str] | None = None
    for line in text.splitlines():
        if block is not None:
            if line.startswith("```"):
                for logical in _logical_lines(block):
                    cleaned = _without_comment(logical)
                    if cleaned:
                        commands.append(ReadmeCommand(section, cleaned))
                block = None
            else:
                block.append(line)
        elif line.startswith("```sh"):
            block = []
        elif re.match(r"^## ", line):
            section = line[3:].strip()
    return commands


def _fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def agent_section() -> str:
    """The README's "wire it into your agent" section, up to the next H2."""
    return README.read_text(encoding="utf-8").split(AGENT_SECTION, 1)[1].split("\n## ", 1)[0]


def readme_host_blocks(label: str, language: str) -> list[str]:
    """The fenced code blocks of one language in one host's paragraphs of the agent section
    (from `**<label>**` to the next bold host label), in order."""
    after = agent_section().split(f"\n**{label}**", 1)[1]
    return _fenced(re.split(r"\n\*\*[^*\n]+\*\*", after, maxsplit=1)[0], language)


def readme_host_block(label: str, language: str) -> str:
    """A host's one block of that language (a second one is a README change to look at)."""
    (block,) = readme_host_blocks(label, language)
    return block


def readme_server_entries() -> list[dict]:
    """The `mcpServers` entries of the agent section's JSON blocks (Cursor, pi), in order;
    opencode's own shape is tested in tests/hosts."""
    blocks = [json.loads(b) for b in _fenced(agent_section(), "json")]
    entries = [b["mcpServers"]["oraculum"] for b in blocks if "mcpServers" in b]
    assert len(entries) >= 2, "the README lost its JSON client set-ups"
    return entries

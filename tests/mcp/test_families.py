"""Issue 39 §6: the oracle's own tools are a family like the others, and no family imports the
server (each reaches the per-process state through `oraculum.mcp.state`)."""

from __future__ import annotations

import ast
from pathlib import Path

from oraculum.mcp import families
from oraculum.mcp.families import oracle
from oraculum.mcp.server import all_tools, profile_tools

FAMILIES = Path(families.__file__).parent


def _imported(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_no_family_imports_the_server() -> None:
    modules = sorted(FAMILIES.glob("*.py"))
    assert FAMILIES / "oracle.py" in modules
    backwards = [p.name for p in modules if "oraculum.mcp.server" in _imported(p)]
    assert backwards == []


def test_the_oracle_family_comes_first_in_every_profile() -> None:
    names = [spec.function.__name__ for spec in oracle.TOOLS]
    assert names[0] == "oracle_preflight" and "oracle_wait" in names
    for tools in (all_tools(), profile_tools(), profile_tools("research")):
        assert [spec.function.__name__ for spec in tools[: len(names)]] == names
    # the default profile: the oracle family's modules only (its tools and the council's)
    assert {spec.function.__name__ for spec in profile_tools()} == {*names, "oracle_council"}

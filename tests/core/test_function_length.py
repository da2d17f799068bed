"""No function outside tests is longer than 60 lines, except those docs/architecture.md lists
with a reason (and each listed exception must still exist and still be long)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import oraculum

SRC = Path(oraculum.__file__).parent
DOC = SRC.parent.parent / "docs" / "architecture.md"
LIMIT = 60
EXCEPTION = re.compile(r"^- `([\w.]+):(\w+)` — \S", re.MULTILINE)


def _long_functions(package: Path = SRC) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for path in package.rglob("*.py"):
        module = ".".join(path.relative_to(package.parent).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                if node.end_lineno - node.lineno + 1 > LIMIT:
                    found.add((module, node.name))
    return found


def _documented() -> set[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("<!-- long-function exceptions")
    end = text.index("<!-- end of long-function exceptions -->")
    return set(EXCEPTION.findall(text[start:end]))


def test_no_function_over_the_limit_without_a_documented_reason() -> None:
    undocumented = sorted(f"{m}:{f}" for m, f in _long_functions() - _documented())
    assert undocumented == [], f"functions over {LIMIT} lines: split them or list them"


def test_every_documented_exception_is_still_long() -> None:
    stale = sorted(f"{m}:{f}" for m, f in _documented() - _long_functions())
    assert stale == [], "remove these from docs/architecture.md: they are short now"


def test_the_counter_sees_a_long_function_and_nothing_shorter(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    body = "\n".join(f"        x{i} = {i}" for i in range(LIMIT - 1))
    (package / "mod.py").write_text(
        f"class C:\n    def long(self):\n{body}\n        return 1\n\ndef short():\n{body}\n"
    )
    assert _long_functions(package) == {("pkg.mod", "long")}

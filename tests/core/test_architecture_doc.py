"""docs/architecture.md's layer table matches the code: every package has a row, imports point
down the table, and the docs link only to files inside the repository."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import oraculum

SRC = Path(oraculum.__file__).parent
REPO = SRC.parent.parent
DOCS = REPO / "docs"
ROW = re.compile(r"^\| `oraculum\.(\w+)` \|", re.MULTILINE)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _table() -> list[str]:
    return ROW.findall((DOCS / "architecture.md").read_text())


def _imported_packages(package: str) -> set[str]:
    found: set[str] = set()
    for path in (SRC / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("oraculum."):
                found.add((node.module or "").split(".")[1])
            elif isinstance(node, ast.Import):
                found |= {
                    a.name.split(".")[1] for a in node.names if a.name.startswith("oraculum.")
                }
    return found - {package}


def test_every_package_has_one_row() -> None:
    packages = sorted(p.parent.name for p in SRC.glob("*/__init__.py"))
    rows = _table()
    assert len(rows) == len(set(rows))
    assert sorted(rows) == packages


def test_imports_point_down_the_table() -> None:
    rows = _table()
    upward = [
        f"{package} imports {target}"
        for position, package in enumerate(rows)
        for target in sorted(_imported_packages(package))
        if target in rows and rows.index(target) < position
    ]
    assert upward == []


def test_docs_link_only_to_files_in_the_repository() -> None:
    outside = []
    for doc in [*DOCS.glob("*.md"), REPO / "README.md"]:
        for target in LINK.findall(doc.read_text()):
            if re.match(r"[a-z]+:", target):
                continue  # a web address, not a file
            resolved = (doc.parent / target).resolve()
            if not resolved.is_relative_to(REPO) or not resolved.exists():
                outside.append(f"{doc.name}: {target}")
    assert outside == []

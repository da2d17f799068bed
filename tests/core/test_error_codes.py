"""One error vocabulary: every code raised in the source is an ``ErrorCode`` member, the member
carries the exit code and retryable default, and the docs' tables match the enum."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from oraculum.core.errors import (
    TABLE_END,
    TABLE_START,
    ErrorCode,
    ExitCode,
    OracleError,
    error_code,
    error_code_table,
    failed,
    with_error_code_table,
)

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "src" / "oraculum"
ERRORS_MODULE = SOURCE / "core" / "errors.py"
CODE_KEYWORDS = ("error_code", "code")
# Dicts mapping a page state to `(code, next step)`: the providers' readiness failures.
CODE_TABLES = ("FAILURES",)
CHECK_CODE_INDEX = 4  # doctor's Check(check, status, detail, next_step, code)


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _literal(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _call_codes(node: ast.Call) -> Iterator[ast.AST]:
    name = _call_name(node)
    if name == "OracleError" and node.args:
        yield node.args[0]
    if name == "Check" and len(node.args) > CHECK_CODE_INDEX:
        yield node.args[CHECK_CODE_INDEX]
    yield from (kw.value for kw in node.keywords if kw.arg in CODE_KEYWORDS)


def _table_codes(node: ast.Assign) -> Iterator[ast.AST]:
    names = {t.id for t in node.targets if isinstance(t, ast.Name)}
    if names & set(CODE_TABLES) and isinstance(node.value, ast.Dict):
        for value in node.value.values:
            if isinstance(value, ast.Tuple) and value.elts:
                yield value.elts[0]


def codes_in(source: str) -> list[tuple[str, int]]:
    """Every string literal the source passes as an error code, with its line."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            candidates = list(_call_codes(node))
        elif isinstance(node, ast.Assign):
            candidates = list(_table_codes(node))
        else:
            continue
        found += [(code, node.lineno) for c in candidates if (code := _literal(c)) is not None]
    return found


def source_files() -> list[Path]:
    return sorted(SOURCE.rglob("*.py"))


def test_the_scan_reports_a_mistyped_code() -> None:
    snippet = (
        "raise OracleError('job_not_fuond', 'x')\n"
        "end(job, error_code='worker_lots')\n"
        "Check('c', FAIL, 'd', 'step', 'provider_ui_drfit')\n"
        "FAILURES = {1: ('provider_outgae', 'Retry.')}\n"
    )
    assert sorted(codes_in(snippet), key=lambda found: found[1]) == [
        ("job_not_fuond", 1),
        ("worker_lots", 2),
        ("provider_ui_drfit", 3),
        ("provider_outgae", 4),
    ]


def test_every_code_the_source_raises_is_an_error_code_member() -> None:
    """Raise sites name ``ErrorCode.X`` (mypy checks the member); none passes a string, which
    only a runtime lookup would check."""
    literals = [
        f"{path.relative_to(ROOT)}:{line}: {code}"
        for path in source_files()
        for code, line in codes_in(path.read_text(encoding="utf-8"))
    ]
    assert not literals, "codes passed as strings, not ErrorCode members:\n" + "\n".join(literals)


def _string_literals(path: Path) -> set[str]:
    """The string literals of a module, and the values of the `ErrorCode.NAME` members it
    names (a raise site may use either)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {value for node in ast.walk(tree) if (value := _literal(node)) is not None}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "ErrorCode"
            and node.attr in ErrorCode.__members__
        ):
            found.add(ErrorCode[node.attr].value)
    return found


def test_every_error_code_member_is_used_outside_the_enum() -> None:
    used: set[str] = set()
    for path in source_files():
        if path != ERRORS_MODULE:
            used |= _string_literals(path)
    fallbacks = {"archive_failed"}  # failed("archive", …) builds it as f"{operation}_failed"
    dead = [code.value for code in ErrorCode if code.value not in used | fallbacks]
    assert not dead, f"codes nothing raises: {dead}"


def test_oracle_error_refuses_a_code_that_is_not_a_member() -> None:
    with pytest.raises(ValueError, match="job_not_fuond"):
        OracleError("job_not_fuond", "Oracle job not found: abc")
    with pytest.raises(ValueError, match="frobnicate_failed"):
        failed("frobnicate", RuntimeError("boom"))


def test_exit_code_and_retryable_come_from_the_member() -> None:
    busy = OracleError("queue_full", "Busy.")
    assert busy.code is ErrorCode.QUEUE_FULL and busy.exit_code == ExitCode.BUSY
    assert busy.retryable is True and busy.to_dict()["retryable"] is True
    assert OracleError(ErrorCode.JOB_NOT_FOUND, "x").exit_code == ExitCode.NOT_FOUND
    assert OracleError("io_error", "x").exit_code == ExitCode.FAILED
    overridden = OracleError("provider_not_ready", "x", retryable=False)
    assert overridden.retryable is False  # a raise site that knows better says so
    as_json = OracleError("disk_full", "x").to_dict()["code"]
    assert as_json == "disk_full" and type(as_json) is str


def test_the_fallback_of_an_operation_is_a_member() -> None:
    error = failed("archive", RuntimeError("boom"))
    assert error.code is ErrorCode.ARCHIVE_FAILED and error.exit_code == ExitCode.FAILED


def test_agents_doc_error_code_table_matches_the_enum() -> None:
    doc = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    assert TABLE_START in doc and TABLE_END in doc
    assert with_error_code_table(doc) == doc, "run .venv/bin/python scripts/error_codes.py"


def test_the_generated_table_has_one_row_per_member() -> None:
    rows = error_code_table().splitlines()[2:]
    assert len(rows) == len(ErrorCode)
    assert "| `clean_blocked` | 5 | yes |" in error_code_table()
    stale = f"intro\n{TABLE_START}\n| old |\n{TABLE_END}\noutro\n"
    assert (
        with_error_code_table(stale)
        == f"intro\n{TABLE_START}\n{error_code_table()}{TABLE_END}\noutro\n"
    )
    with pytest.raises(ValueError):
        with_error_code_table("no markers")


def _readme_exit_rows() -> dict[int, str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return {
        int(match.group(1)): match.group(2)
        for match in re.finditer(r"^\| (\d+) \| (.*) \|$", readme, re.MULTILINE)
    }


def test_readme_exit_code_table_matches_exit_code_and_error_codes() -> None:
    rows = _readme_exit_rows()
    assert sorted(rows) == [int(code) for code in ExitCode]
    for exit_code, meaning in rows.items():
        for name in re.findall(r"`([a-z]+(?:_[a-z]+)+)`", meaning):
            assert error_code(name).exit_code == exit_code, (name, exit_code)


# "`wait_timeout` (exit 5", "`clean_blocked` error (exit 5": a code the prose gives an exit code.
PROSE_EXIT = re.compile(r"`([a-z]+(?:_[a-z]+)+)`[^`(]{0,20}\(exit (\d)")


def test_exit_codes_named_in_the_docs_prose_match_the_enum() -> None:
    wrong, seen = [], 0
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for match in PROSE_EXIT.finditer(path.read_text(encoding="utf-8")):
            name, said = match.group(1), int(match.group(2))
            seen += 1
            if error_code(name).exit_code != said:
                wrong.append(f"{path.name}: {name} is exit {int(error_code(name).exit_code)}")
    assert not wrong and seen > 5, wrong

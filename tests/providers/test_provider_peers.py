"""Issue 39 §5: ChatGPT is a peer, not the base. No module under `providers/` outside a
provider's own package imports that package: the shared lifecycle and every other provider
stand on the neutral modules only (read from the source with ast)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import oraculum

PROVIDERS = Path(oraculum.__file__).parent / "providers"
PEERS = ("chatgpt", "grok", "gemini")


def imports_of(package: str, source: str) -> list[str]:
    """The import statements in ``source`` that reach ``oraculum.providers.<package>``, in any
    form (``import a.b``, ``from a import b``, ``from a.b import c``), as ``line: module``."""
    target = f"oraculum.providers.{package}"

    def reaches(name: str) -> bool:
        return name == target or name.startswith(target + ".")

    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        if any(reaches(name) for name in names):
            found.append(f"{node.lineno}: {names[0]}")
    return found


def test_the_check_sees_every_import_form() -> None:
    source = (
        "import oraculum.providers.chatgpt.page\n"
        "from oraculum.providers import chatgpt\n"
        "from oraculum.providers.chatgpt.completion import CompletionContext\n"
        "def f():\n    from oraculum.providers.chatgpt import vocabulary\n"
    )
    assert len(imports_of("chatgpt", source)) == 4
    assert imports_of("chatgpt", "from oraculum.providers import completion\n") == []


@pytest.mark.parametrize("package", PEERS)
def test_no_module_outside_a_provider_imports_it(package: str) -> None:
    outside = [
        path
        for path in sorted(PROVIDERS.rglob("*.py"))
        if path.relative_to(PROVIDERS).parts[0] != package
    ]
    assert any(path.name == "browser_job.py" for path in outside)
    offenders = {
        str(path.relative_to(PROVIDERS)): found
        for path in outside
        if (found := imports_of(package, path.read_text(encoding="utf-8")))
    }
    assert offenders == {}

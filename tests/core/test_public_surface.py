"""Each package says what other layers may import (`__all__`), and the code keeps to it."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import oraculum
from oraculum.core import providers

SRC = Path(oraculum.__file__).parent.parent
PACKAGES = sorted(
    ".".join(init.parent.relative_to(SRC).parts) for init in SRC.glob("oraculum/**/__init__.py")
)


def _declared(package: str) -> list[str]:
    module = importlib.import_module(package)
    assert hasattr(module, "__all__"), f"{package} does not say what is public (__all__)"
    return list(module.__all__)


def _imports(path: Path) -> list[str]:
    """Every dotted oraculum name a source file imports (``pkg.mod`` and ``pkg.mod.name``)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("oraculum."):
            found += [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("oraculum.")]
    return found


def _crossings() -> set[tuple[str, str]]:
    """(package, name) for each name a module outside ``package`` takes from it, by import or
    by a registry entry's ``"module:attribute"`` string."""
    crossings: set[tuple[str, str]] = set()
    for path in SRC.glob("oraculum/**/*.py"):
        importer = ".".join(path.relative_to(SRC).with_suffix("").parts)
        for name in _imports(path):
            crossings |= _crossing(importer, name)
    for spec in providers.REGISTRY.values():
        for target in (spec.driver, spec.sign_in_check):
            if target:
                crossings |= _crossing("oraculum.core.providers", target.replace(":", "."))
    return crossings


def _crossing(importer: str, name: str) -> set[tuple[str, str]]:
    # Every package on the way down that the importer is not inside must export the next step.
    found = set()
    parts = name.split(".")
    for depth in range(2, len(parts)):
        package = ".".join(parts[:depth])
        inside = importer == package or importer.startswith(package + ".")
        if package in PACKAGES and not inside:
            found.add((package, parts[depth]))
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_declares_its_public_names_and_each_exists(package: str) -> None:
    module = importlib.import_module(package)
    directory = SRC / package.replace(".", "/")
    for name in _declared(package):
        is_module = (directory / f"{name}.py").is_file() or (directory / name).is_dir()
        assert is_module or hasattr(module, name), f"{package}.__all__ names {name!r}"


def test_other_layers_import_only_declared_names() -> None:
    undeclared = sorted(
        f"{package}.{name}" for package, name in _crossings() if name not in _declared(package)
    )
    assert undeclared == []

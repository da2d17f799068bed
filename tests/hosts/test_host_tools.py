"""The pinned host tools: the committed lockfile agrees with the manifest, and what the
session fixture installed is exactly what is pinned."""

from __future__ import annotations

import json
import subprocess

import pytest

from .host_tools import CACHE, HERE, PI_PACKAGE, HostTools, pinned_versions

pytestmark = [pytest.mark.hosts, pytest.mark.slow]


def test_lockfile_pins_the_manifest_exactly() -> None:
    manifest = json.loads((HERE / "package.json").read_text())
    lock = json.loads((HERE / "package-lock.json").read_text())
    root = lock["packages"][""]
    assert root["dependencies"] == manifest["dependencies"]
    assert root["optionalDependencies"] == manifest["optionalDependencies"]
    for name, version in pinned_versions().items():
        assert version[0].isdigit(), f"{name} is pinned to a range: {version}"
        assert lock["packages"][f"node_modules/{name}"]["version"] == version
        assert lock["packages"][f"node_modules/{name}"]["integrity"].startswith("sha512-")


def test_installed_tools_are_the_pinned_ones(host_tools: HostTools) -> None:
    installed = 0
    for name, version in pinned_versions().items():
        package = CACHE / "node_modules" / name / "package.json"
        if package.exists():  # a Node binary for another platform is skipped by npm ci
            assert json.loads(package.read_text())["version"] == version
            installed += 1
    assert installed >= len(pinned_versions()) - 1
    reported = subprocess.run(
        [*host_tools.pi, "--version"], capture_output=True, text=True, timeout=60, check=True
    )
    assert reported.stdout.strip() == pinned_versions()[PI_PACKAGE]

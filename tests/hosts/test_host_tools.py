"""The pinned host tools: the committed lockfile agrees with the manifest, what the session
fixture installed is exactly what is pinned, and only an unreachable registry skips."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .host_tools import (
    CACHE,
    HERE,
    PI_PACKAGE,
    HostTools,
    RegistryUnreachable,
    ensure_installed,
    linux_arch,
    pinned_versions,
    registry_reachable,
)

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
    lock = json.loads((HERE / "package-lock.json").read_text())["packages"]
    for name, version in pinned_versions().items():
        package = CACHE / "node_modules" / name / "package.json"
        # npm ci skips a platform package (a Node binary, opencode) for another machine.
        if linux_arch() in lock[f"node_modules/{name}"].get("cpu", [linux_arch()]):
            assert json.loads(package.read_text())["version"] == version
    reported = subprocess.run(
        [*host_tools.pi, "--version"], capture_output=True, text=True, timeout=60, check=True
    )
    assert reported.stdout.strip() == pinned_versions()[PI_PACKAGE]


def test_an_unreachable_registry_is_the_skip_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one reason the host tests skip: npm cannot reach its registry (here a closed
    local port, with an empty npm cache so nothing is installed from an earlier download)."""
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    assert registry_reachable(timeout_s=5) is False
    with pytest.raises(RegistryUnreachable, match=r"unreachable|not installed"):
        ensure_installed(tmp_path / "hosts")
    assert not (tmp_path / "hosts" / ".installed").exists()

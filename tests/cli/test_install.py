"""oraculum installed like a tool: a built wheel in a fresh venv, and `scripts/demo` on a copy of
the checkout. Both install from the package index (pip's cache makes a rerun faster)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from cli.test_demo import demo_outside_a_project

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
# The interpreter the venvs are made from: the one this test venv was made from.
BASE_PYTHON = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
DEV_TOOLS = ("pytest", "mypy", "ruff", "hypothesis")


def copy_checkout(dest: Path) -> Path:
    """What a clone holds of the package (no venv, no build output): building in a copy keeps
    `build/` and `*.egg-info` out of the worktree the other tests run from."""
    junk = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "dist", ".venv")
    for name in ("src", "scripts"):
        shutil.copytree(ROOT / name, dest / name, ignore=junk)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    return dest


def install_env(**extra: str) -> dict[str, str]:
    """The environment of a person at a shell: no test venv on PATH or in VIRTUAL_ENV."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != venv_bin)
    env["PYTHON"] = str(BASE_PYTHON)
    env.update(extra)
    return env


def run(
    argv: list[str], *, cwd: Path, env: dict[str, str], timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def assert_no_dev_tools(venv: Path) -> None:
    """Runtime dependencies only: none of the dev extra's tools is importable."""
    probe = f"import importlib.util as u; print([m for m in {DEV_TOOLS!r} if u.find_spec(m)])"
    done = run([str(venv / "bin" / "python"), "-c", probe], cwd=venv, env=install_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_built_wheel_runs_the_demo_from_a_fresh_venv(oraculum_home: Path, tmp_path: Path) -> None:
    checkout = copy_checkout(tmp_path / "checkout")
    env = install_env()
    wheels = tmp_path / "wheels"
    built = run(
        [str(BASE_PYTHON), "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), "."],
        cwd=checkout,
        env=env,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("oraculum-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    # Package data the code reads at run time: page scripts, the simulator's pages.
    for data in (
        "oraculum/capture/capture_rules.js",
        "oraculum/providers/chatgpt/js/turns.js",
        "oraculum/simulator/static/app.js",
        "oraculum/simulator/static/index.html",
    ):
        assert data in names
    venv = tmp_path / "tool-venv"
    made = run([str(BASE_PYTHON), "-m", "venv", str(venv)], cwd=tmp_path, env=env)
    assert made.returncode == 0, made.stderr
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)]
    installed = run(pip, cwd=tmp_path, env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert_no_dev_tools(venv)
    # The demo by the installed entry point, as `pipx install` would put it on PATH.
    job = demo_outside_a_project(tmp_path, exe=venv / "bin" / "oraculum")["job"]
    assert job["status"] == "complete"
    assert job["collectionStatus"] == "complete"


def test_scripts_demo_installs_once_and_no_dev_tools(tmp_path: Path) -> None:
    checkout = copy_checkout(tmp_path / "checkout")
    demo = [str(checkout / "scripts" / "demo"), "--help"]
    first = run(demo, cwd=checkout, env=install_env())
    assert first.returncode == 0, first.stdout + first.stderr
    assert "--answer" in first.stdout
    assert_no_dev_tools(checkout / ".venv")
    assert "Installing oraculum's Python packages" in first.stderr
    # Nothing changed: pip must not run. A missing constraints file makes any pip install fail
    # at once, so a second run that calls pip cannot pass.
    no_pip = install_env(PIP_CONSTRAINT=str(tmp_path / "no-such-constraints.txt"))
    second = run(demo, cwd=checkout, env=no_pip, timeout=120)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Installing" not in second.stderr
    assert "--answer" in second.stdout
    # A changed pyproject.toml installs again (and fails here, as pip is barred).
    with (checkout / "pyproject.toml").open("a") as toml:
        toml.write("\n# changed\n")
    third = run(demo, cwd=checkout, env=no_pip, timeout=120)
    assert third.returncode != 0
    assert "Installing oraculum's Python packages" in third.stderr

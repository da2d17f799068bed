"""oraculum installed like a tool: a built wheel in a fresh venv, and `scripts/demo` on a copy of
the checkout. One install from the package index (`scripts/demo`'s, a module fixture) serves
both: the wheel is installed over it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli.test_demo import demo_outside_a_project

# One xdist worker takes both checks, so the module's one install serves them.
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.timeout(900),
    pytest.mark.xdist_group("install"),
]

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


@dataclass(frozen=True)
class Installed:
    """A copy of the checkout after a person's first `scripts/demo`, and the wheel built from it
    before that run."""

    checkout: Path
    wheel: Path
    first_demo: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """One build and one install from the package index serve both checks (each took two
    minutes on its own): the wheel is built from a clean copy, then `scripts/demo` makes its
    fresh venv there. The wheel check installs the wheel over that venv's editable install."""
    tmp = tmp_path_factory.mktemp("install")
    checkout = copy_checkout(tmp / "checkout")
    wheels = tmp / "wheels"
    built = run(
        [str(BASE_PYTHON), "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), "."],
        cwd=checkout,
        env=install_env(),
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("oraculum-*.whl")
    # As a fresh clone for `scripts/demo`: no build output.
    for junk in (checkout / "build", *checkout.glob("src/*.egg-info")):
        shutil.rmtree(junk, ignore_errors=True)
    first = run([str(checkout / "scripts" / "demo"), "--help"], cwd=checkout, env=install_env())
    return Installed(checkout, wheel, first)


def test_a_built_wheel_runs_the_demo_from_a_fresh_venv(
    installed: Installed, oraculum_home: Path, tmp_path: Path
) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    # Package data the code reads at run time: page scripts, the simulator's pages.
    for data in (
        "oraculum/capture/capture_rules.js",
        "oraculum/providers/chatgpt/js/turns.js",
        "oraculum/simulator/static/app.js",
        "oraculum/simulator/static/index.html",
    ):
        assert data in names
    assert installed.first_demo.returncode == 0, installed.first_demo.stderr
    venv = installed.checkout / ".venv"
    python = str(venv / "bin" / "python")
    env = install_env()
    pip = [python, "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps"]
    done = run([*pip, str(installed.wheel)], cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    # The wheel's own requirements are what the venv holds (`pip check`), and the package is
    # the wheel's copy in site-packages, not the checkout's sources.
    checked = run([python, "-m", "pip", "check"], cwd=tmp_path, env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    where = run([python, "-c", "import oraculum; print(oraculum.__file__)"], cwd=tmp_path, env=env)
    assert where.returncode == 0, where.stderr
    assert "site-packages" in where.stdout, where.stdout
    assert str(installed.checkout / "src") not in where.stdout, where.stdout
    assert_no_dev_tools(venv)
    # The demo by the installed entry point, as `pipx install` would put it on PATH.
    job = demo_outside_a_project(tmp_path, exe=venv / "bin" / "oraculum")["job"]
    assert job["status"] == "complete"
    assert job["collectionStatus"] == "complete"


def test_scripts_demo_installs_once_and_no_dev_tools(installed: Installed, tmp_path: Path) -> None:
    checkout = installed.checkout
    demo = [str(checkout / "scripts" / "demo"), "--help"]
    first = installed.first_demo
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

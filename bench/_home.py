"""A throwaway oraculum home for the start-up benches, set up as an installed package runs.

Both start-up benches time real `oraculum` processes, so what they measure must not include
compiling oraculum's sources: bytecode is cached inside the throwaway home (even under
PYTHONDONTWRITEBYTECODE), as an installed package has it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["startup_home"]


def startup_home(home: Path) -> Path:
    """Point every oraculum location into ``home``; return a project directory inside it."""
    from oraculum.core.paths import private_home_environment

    os.environ.update(private_home_environment(home))
    # Without cached bytecode every run would compile oraculum's sources again.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
    project = home / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("")
    return project

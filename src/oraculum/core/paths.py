"""Where oraculum keeps things. Every location can be overridden by an environment variable."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Literal

APP = "oraculum"


def _env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    if not value:
        return None
    if value.startswith("/"):
        return _absolute(value)
    return Path(value).expanduser().absolute()


@functools.lru_cache(maxsize=64)
def _absolute(value: str) -> Path:
    """An absolute value always names the same path: made once (a submit asks for its
    locations ~16 times, at ~25 us a Path)."""
    return Path(value)


# Every location's environment variable, with the sub-directory it gets in a private home.
HOME_VARIABLES: dict[str, str] = {
    "ORACULUM_JOBS_DIR": "jobs",
    "ORACULUM_STATE_DIR": "state",
    "ORACULUM_CONFIG_DIR": "config",
    "ORACULUM_DATA_DIR": "data",
}


def private_home_environment(home: Path) -> dict[str, str]:
    """The variables that put every oraculum location under ``home`` (tests, benchmarks)."""
    return {name: str(home / sub) for name, sub in HOME_VARIABLES.items()}


def _platform_path(kind: Literal["state", "config", "data"]) -> Path:
    """The platform's own place for oraculum's ``kind`` of files (XDG on Linux).

    platformdirs loads only here: its import (~6 ms, tempfile and shutil among it) is most
    of the start-up of a short command whose locations come from the environment."""
    import platformdirs

    if kind == "state":
        return platformdirs.user_state_path(APP)
    if kind == "config":
        return platformdirs.user_config_path(APP)
    return platformdirs.user_data_path(APP)


def jobs_dir() -> Path:
    """Job directories, one `oracle-<id>/` each."""
    return _env_path("ORACULUM_JOBS_DIR") or _platform_path("state") / "jobs"


def state_dir() -> Path:
    """Locks, leases and session liveness files."""
    return _env_path("ORACULUM_STATE_DIR") or _platform_path("state") / "state"


def config_dir() -> Path:
    """The global config lives here as `config.json`."""
    return _env_path("ORACULUM_CONFIG_DIR") or _platform_path("config")


def data_dir() -> Path:
    """Browser profiles: the signed-in seeds and the per-job runtime clones."""
    return _env_path("ORACULUM_DATA_DIR") or _platform_path("data")


def global_config_path() -> Path:
    return config_dir() / "config.json"


PROJECT_CONFIG_RELATIVE = Path(".oraculum") / "config.json"


def project_config_path(project_root: Path) -> Path:
    return project_root / PROJECT_CONFIG_RELATIVE

"""A fresh oraculum home with fast worker timings, and a small project to archive."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oraculum.core.paths import global_config_path

FAST = {
    "worker": {
        "heartbeatIntervalMs": 200,
        "staleHeartbeatMs": 3000,
        "noWorkerGraceMs": 1000,
        "terminateGraceMs": 1000,
    },
}


def write_config(extra: dict | None = None) -> None:
    data = json.loads(json.dumps(FAST))
    for section, values in (extra or {}).items():
        data.setdefault(section, {}).update(values)
    path = global_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


@pytest.fixture
def project(tmp_path: Path, oraculum_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (root / "src" / "app.py").write_text("print('hello')\n")
    write_config()
    monkeypatch.chdir(root)
    return root

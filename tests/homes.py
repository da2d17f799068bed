"""Fast engine timings for tests that run real workers (importable: `from homes import ...`)."""

from __future__ import annotations

import json
from typing import Any

from oraculum.core.config import Config, load_config
from oraculum.core.paths import global_config_path

FAST = {
    "worker": {
        "heartbeatIntervalMs": 200,
        "staleHeartbeatMs": 3000,
        "noWorkerGraceMs": 1000,
        "terminateGraceMs": 1000,
    },
}


def write_fast_config(
    extra: dict[str, Any] | None = None, *, capacity: int | None = None
) -> Config:
    """Write the global config of the current oraculum home: fast timings plus ``extra``."""
    data: dict[str, Any] = json.loads(json.dumps(FAST))
    if capacity is not None:
        data["browser"] = {"maxConcurrentJobs": capacity}
    for section, values in (extra or {}).items():
        data.setdefault(section, {}).update(values)
    path = global_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return load_config().config

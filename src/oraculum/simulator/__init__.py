"""Local look-alikes of the ChatGPT and Grok web apps, built from their observed pages.

Tests and `oraculum demo` drive real Chromium against them. Start one with
``async with run_simulator(shell="classic") as sim:`` or ``SimulatorThread()`` (Grok:
``provider="grok"``); every knob is in docs/simulator.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from oraculum.simulator.runner import Simulator as Simulator
    from oraculum.simulator.runner import SimulatorThread as SimulatorThread
    from oraculum.simulator.runner import run_simulator as run_simulator
    from oraculum.simulator.scenarios import FLAGS as FLAGS
    from oraculum.simulator.scenarios import KNOBS as KNOBS
    from oraculum.simulator.scenarios import Scenario as Scenario
    from oraculum.simulator.scenarios import ScenarioError as ScenarioError
    from oraculum.simulator.state import SimState as SimState

# Names load on first use: the server (aiohttp) costs ~150 ms to import, and the CLI reads the
# knob lists in `scenarios` on every start without ever serving.
_EXPORTS: dict[str, str] = {
    "FLAGS": "scenarios",
    "KNOBS": "scenarios",
    "Scenario": "scenarios",
    "ScenarioError": "scenarios",
    "SimState": "state",
    "Simulator": "runner",
    "SimulatorThread": "runner",
    "run_simulator": "runner",
}

# The modules other layers read directly: the knob lists, the sites' names, and the Deep
# Research fixture (its report title, tokens and export, which captures are checked against).
__all__ = [*sorted(_EXPORTS), "deep_research", "locales", "scenarios", "site"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

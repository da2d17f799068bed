"""A local look-alike of the ChatGPT web app, built from chatgpt-grok-ui-facts.md.

Tests and `oraculum demo` drive real Chromium against it. Start one with
``async with run_simulator(shell="classic") as sim:`` or ``SimulatorThread()``; every knob is
in docs/simulator.md.
"""

from oraculum.simulator.runner import Simulator, SimulatorThread, run_simulator
from oraculum.simulator.scenarios import FLAGS, KNOBS, Scenario, ScenarioError
from oraculum.simulator.state import SimState

__all__ = [
    "FLAGS",
    "KNOBS",
    "Scenario",
    "ScenarioError",
    "SimState",
    "Simulator",
    "SimulatorThread",
    "run_simulator",
]

"""App chrome inside a Grok reply stays out of the answer (issue 37 §6), through real workers
and Chromium. (Grok shows no comparison of candidate answers; `comparison_answer` is
ChatGPT's.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homes import bare_project, complete  # noqa: F401 (bare_project: the fixture)
from oraculum.simulator.answers import FEEDBACK_QUESTION

from .test_grok_driver import grok_seeded, grok_sim, submit_grok, write_config  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_chrome_inside_turn_stays_out_of_response_md(seeded, sim, project) -> None:
    done = complete(submit_grok(project, write_config(sim, scenario="turn_chrome")))
    answer = Path(done.response_path).read_text()
    assert "src/app.py" in answer  # the answer itself is all there
    for chrome in ("Thought for 25s", "Memory updated", "Manage memories", "Sources"):
        assert chrome not in answer, chrome
    assert FEEDBACK_QUESTION not in answer
    record = json.loads((Path(done.response_path).parent / "response.capture.json").read_text())
    assert {"Memory updated", "Manage memories", "Sources"} <= {c["text"] for c in record["chrome"]}

"""`oraculum demo --council` as a user runs it (issue 43 §1): ChatGPT and Grok, each against
its own simulator, one council whose council.md holds both answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_demo import run_demo

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_demo_council_answers_from_both_simulators(oraculum_home: Path, tmp_path: Path) -> None:
    done = run_demo("--council", cwd=tmp_path, timeout=400)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "# Council cl-" in out
    assert "## chatgpt:thinking_standard" in out and "## grok:heavy" in out
    assert "None: every member answered." in out
    assert "ChatGPT simulator:" in out and "Grok simulator:" in out

"""ChatGPT in other UI languages (issue 42 §2): the whole flow (picker, upload, send,
completion, capture) on pages whose every label is German, French, Japanese or Chinese, on both
shells, through real workers and Chromium. One simulator and one signed seed serve every case:
the language is a knob of the chat URL each job opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from homes import bare_project, complete, log_of  # noqa: F401 (bare_project: the fixture)
from oraculum.simulator.locales import LANGS, TEXTS

from .conftest import assert_happy_chatgpt, submit_chatgpt, write_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# (locale, preset, the Power stop it shows in English): a stop each language spells its own way.
CASES = [
    ("de", "thinking_heavy", "Extra High"),  # "Sehr hoch" (the table also knows "Extra hoch")
    ("fr", "pro_extended", "Pro"),  # "Professionnel"
    ("ja", "thinking_extended", "High"),  # "高い"
    ("zh-cn", "instant", "Instant"),  # "极速"
]


@pytest.mark.parametrize(("locale", "preset", "stop"), CASES, ids=[c[0] for c in CASES])
def test_the_whole_flow_in_another_language_on_both_shells(
    seeded, sim, project: Path, locale: str, preset: str, stop: str
) -> None:
    jobs = []
    for shell in ("classic", "redesign"):
        config = write_config(sim, shell=shell, locale=locale)
        jobs.append(submit_chatgpt(project, config, preset=preset))
    for job in jobs:
        done = complete(job)
        assert_happy_chatgpt(job, done, "power", TEXTS[locale][stop])
        # The worker named the language it found and the table that serves it.
        table = "zh-CN" if locale == "zh-cn" else locale
        assert f"page language: {table} ({LANGS[locale]!r})" in log_of(done)

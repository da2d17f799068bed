"""Issue 37 §2 on Grok through real workers: an upload on a page that creates its file input
only for the menu entry's click, and the precise code when the page offers no upload at all."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from homes import bare_project, finished, log_of  # noqa: F401 (bare_project: the fixture)
from oraculum.jobs.model import Status

from .conftest import assert_failed_before_send
from .test_chatgpt_controls import error_details
from .test_grok_driver import seeded, sim, submit_grok, write_config  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_lazy_file_input_upload_through_file_chooser_on_grok(seeded, sim, project) -> None:
    done = finished(submit_grok(project, write_config(sim, scenario="lazy_file_input")).id)
    assert done.status == Status.COMPLETE, f"{done.error_code}: {done.error}\n{log_of(done)}"
    assert f"context-{done.id}.tar.gz" in Path(done.response_path).read_text()
    assert "archive set through the file chooser" in log_of(done)


def test_no_upload_path_fails_upload_control_not_found_on_grok(seeded, sim, project) -> None:
    started = time.monotonic()
    done = finished(submit_grok(project, write_config(sim, scenario="no_upload_path")).id)
    assert_failed_before_send(done, "upload_control_not_found", "failure")
    details = error_details(done)
    assert "Attach" in details["wanted"]
    assert details["observed"] == ["Add text content"]
    assert time.monotonic() - started < 60

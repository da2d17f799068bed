"""Issue 13 §1 and §3 through real workers and real Chromium: the answer is bound through the
user turn that shows the job's archive, and a job whose prompt was accepted stays recoverable."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import psutil
import pytest

from homes import SIMULATOR_WORKER, bare_project, finished, log_of, write_global_config  # noqa: F401 (bare_project: the fixture)
from oraculum.jobs.model import Job, Phase, Status
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.read import read
from oraculum.simulator import SimulatorThread
from oraculum.simulator.actions import EXTRA_ASSISTANT_TEXT, PREFILL_PROMPT

from .conftest import submit_chatgpt, write_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROMPT = "Summarise the project."


def wait_until(job_id: str, predicate, timeout: float = 60.0) -> Job:
    store = JobStore()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = store.load(job_id)
        if predicate(job):
            return job
        time.sleep(0.1)
    job = store.load(job_id)
    raise AssertionError(f"job {job_id} never got there: {job.phase} {job.error}\n{log_of(job)}")


def browsers_on(profile: str) -> list[int]:
    flag = f"--user-data-dir={profile}"
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if flag in (proc.info.get("cmdline") or ()):
            found.append(proc.pid)
    return found


@pytest.mark.parametrize("shell", ["classic", "redesign"])
def test_prefilled_thread_earlier_reply_is_never_saved(seeded, sim, project, shell) -> None:
    # The new chat shows an earlier exchange only after a minute: a count made before send
    # misses it, and the earlier (finished) reply sits at that count.
    config = write_config(
        sim, shell=shell, scenario="prefilled_thread", prefill_delay_ms=60000, answer="echo"
    )
    job = submit_chatgpt(project, config, prompt=PROMPT)
    done = finished(job.id)
    assert done.status == Status.COMPLETE, f"{done.error}\n{log_of(done)}"
    answer = Path(done.response_path).read_text()
    assert PROMPT in answer and PREFILL_PROMPT not in answer
    assert done.collection_binding["responseIndex"] == 1
    assert done.collection_status == "complete"


@pytest.mark.parametrize("shell", ["classic", "redesign"])
def test_extra_assistant_message_before_ours_is_never_saved(seeded, sim, project, shell) -> None:
    config = write_config(sim, shell=shell, scenario="extra_assistant", answer="echo")
    job = submit_chatgpt(project, config, prompt=PROMPT)
    done = finished(job.id)
    assert done.status == Status.COMPLETE, f"{done.error}\n{log_of(done)}"
    answer = Path(done.response_path).read_text()
    assert PROMPT in answer and EXTRA_ASSISTANT_TEXT not in answer
    assert done.collection_binding["responseIndex"] == 1
    record = json.loads(Path(done.response_path).with_name("response.capture.json").read_text())
    assert record["binding"]["turnSha256"]


def test_worker_killed_mid_answer_is_recollected_to_complete(seeded, sim, project) -> None:
    # A long, slow answer: the worker is SIGKILLed while it streams.
    config = write_config(sim, token_ms=150, answer="echo")
    job = submit_chatgpt(project, config, prompt=PROMPT + " " + "word " * 60)
    running = wait_until(
        job.id, lambda j: j.phase == Phase.AWAITING_RESPONSE and j.chat_url is not None
    )
    time.sleep(1.0)  # the answer is streaming
    assert browsers_on(running.runtime_profile_dir)  # this job's own Chromium
    os.kill(running.worker.pid, signal.SIGKILL)
    lost = finished(job.id, timeout=30)  # its watchdog ends it; nothing else runs
    assert lost.status == Status.FAILED and lost.error_code == "worker_lost"
    assert lost.prompt_send_state.value == "accepted" and lost.chat_url
    assert browsers_on(running.runtime_profile_dir) == []  # no Chromium left behind
    assert not Path(running.runtime_profile_dir).exists()

    started = read(job.id, caller=Caller(cwd=project), action="recollect").recollection
    assert started is not None and started.started is True
    revived = wait_until(job.id, lambda j: j.status == Status.COMPLETE, timeout=90)
    answer = Path(revived.response_path).read_text()
    assert PROMPT in answer and answer.count("word") == 60  # the whole answer, not a prefix
    assert revived.error is None and revived.error_code is None
    assert revived.collection_status == "complete" and not revived.recollection_needed
    assert any("it had failed: [worker_lost]" in e.message for e in revived.lifecycle_events)


def test_provider_gone_mid_answer_is_unreachable_with_diagnostics(seeded, project) -> None:
    with SimulatorThread(require_login=False, think_ms=100, token_ms=200) as gone:
        write_global_config(
            {
                "browser": {"chatUrl": gone.url + "/", "authUrl": gone.sign_in_url},
                "worker": SIMULATOR_WORKER,
            }
        )
        from oraculum.core.config import load_config

        job = submit_chatgpt(project, load_config().config, prompt=PROMPT + " more" * 80)
        wait_until(job.id, lambda j: j.phase == Phase.AWAITING_RESPONSE and j.chat_url)
        time.sleep(1.0)  # streaming
    # The simulator is gone; the page must notice (stale stream, reload refused).
    failed = finished(job.id, timeout=60)
    assert failed.status == Status.FAILED, log_of(failed)
    assert failed.error_code == "provider_unreachable", f"{failed.error}\n{log_of(failed)}"
    assert "already sent and accepted" in failed.error
    logs = Path(failed.logs_dir)
    assert (logs / "failure.url.txt").exists() and (logs / "failure.png").exists()
    assert (logs / "failure.aria.txt").exists()

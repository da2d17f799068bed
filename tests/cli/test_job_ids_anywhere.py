"""A job id works from anywhere (issue 38 item 3): `status`, `read`, `wait`, `cancel` and
`followup` find a job of another project from that project's sibling and from /tmp, and say
which project it belongs to; a job is named by a unique prefix or by its short form (the id's
fast-changing tail); an ambiguous one is refused with the candidates; `status --all-projects`
has a project column. All through the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from homes import complete, run_cli
from oraculum.jobs.ids import SHORT_ID_CHARS, new_job_id, short_id
from oraculum.jobs.model import Job
from oraculum.jobs.store import JobStore
from oraculum.service.caller import Caller
from oraculum.service.submit import submit

ORACULUM = str(Path(sys.executable).with_name("oraculum"))
ELSEWHERE = Path("/tmp")


def human(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, ORACULUM_SESSION="anywhere")
    return subprocess.run(
        [ORACULUM, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def other_project(tmp_path: Path) -> Path:
    root = tmp_path / "other"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'other'\n")
    (root / "notes.md").write_text("other notes\n")
    return root


def _done_job(prompt: str = "q") -> Job:
    job = submit(prompt, ["src"], caller=Caller(session="anywhere"), provider="test").job
    return complete(JobStore().load(job["id"]))


def test_status_read_wait_of_another_projects_job(project: Path, other_project: Path) -> None:
    job = _done_job()
    for where in (other_project, ELSEWHERE):
        for command in ("status", "read", "wait"):
            code, shown = run_cli(command, job.id, cwd=where)
            assert code == 0, (command, where, shown)
            assert shown["job"]["id"] == job.id
            assert shown["job"]["projectRoot"] == str(project)
    said = human("status", job.id, cwd=other_project)
    assert said.returncode == 0, said.stderr
    assert f"project: {project}" in said.stdout
    read = human("read", job.id, cwd=ELSEWHERE)
    assert read.returncode == 0, read.stderr
    assert f"project: {project}" in read.stdout
    waited = human("wait", job.id, cwd=other_project)
    assert waited.returncode == 0, waited.stderr
    assert f"Project: {project}" in waited.stdout
    # From its own project the job needs no such line.
    assert "Project:" not in human("wait", job.id, cwd=project).stdout


@pytest.mark.slow
def test_cancel_another_projects_job(project: Path, other_project: Path) -> None:
    job = submit(
        "hang",
        ["src"],
        caller=Caller(session="anywhere"),
        provider="test",
        selection_extras={"outcome": "hang"},
    ).job
    code, cancelled = run_cli("cancel", job["id"], cwd=other_project)
    assert code == 0 and cancelled["outcome"] == "cancelled", cancelled
    assert cancelled["job"]["projectRoot"] == str(project)


def test_followup_from_another_project_archives_that_project(
    project: Path, other_project: Path
) -> None:
    job = _done_job()
    code, made = run_cli(
        "followup", job.id, "and then?", "notes.md", "--session", "anywhere", cwd=other_project
    )
    assert code == 0, made
    follow = complete(JobStore().load(made["job"]["id"]))
    assert follow.follow_up_to_job_id == job.id
    # The follow-up's archive comes from where it was asked, as any submit's does.
    assert follow.project_root == str(other_project)


def test_short_form_and_prefix_resolve_and_ambiguity_lists_candidates(project: Path) -> None:
    first, second = _done_job("one"), _done_job("two")
    short = short_id(second.id)
    assert len(short) == SHORT_ID_CHARS and second.id.endswith(short)
    code, shown = run_cli("status", short, cwd=ELSEWHERE)
    assert code == 0 and shown["job"]["id"] == second.id, shown
    code, shown = run_cli("read", second.id[:11], cwd=ELSEWHERE)
    assert code == 0 and shown["job"]["id"] == second.id, shown
    # Jobs made the same hour share their first characters: that prefix names neither.
    common = next(
        first.id[:n] for n in range(len(first.id), 0, -1) if second.id.startswith(first.id[:n])
    )
    assert len(common) >= 4
    code, refused = run_cli("wait", common[:4], cwd=ELSEWHERE)
    assert code == 2 and refused["error"]["code"] == "job_id_ambiguous", refused
    assert {first.id, second.id} <= set(refused["error"]["details"]["matches"])
    said = human("status", common[:4], cwd=project)
    assert said.returncode == 2 and first.id in said.stderr and second.id in said.stderr
    # The human list shows each job's short form.
    listed = human("status", cwd=project)
    assert short in listed.stdout


def test_an_id_from_before_still_resolves(project: Path) -> None:
    job = _done_job()
    store = JobStore()
    # An id made long ago, in the one layout ids have always had.
    old_id = new_job_id(now_ms=1_735_689_600_000)  # 2025-01-01
    old = job.model_copy(update={"id": old_id})
    old_dir = store.paths(old_id).dir
    store.paths(job.id).dir.rename(old_dir)
    store.save(old)
    for ref in (old_id, old_id[:6], short_id(old_id)):
        code, shown = run_cli("status", ref, cwd=ELSEWHERE)
        assert code == 0 and shown["job"]["id"] == old_id, (ref, shown)


def test_status_all_projects_has_a_project_column(project: Path, other_project: Path) -> None:
    here = _done_job()
    there = submit(
        "q", ["notes.md"], caller=Caller(session="anywhere", cwd=other_project), provider="test"
    ).job
    complete(JobStore().load(there["id"]))
    listed = human("status", "--all-projects", cwd=ELSEWHERE)
    assert listed.returncode == 0, listed.stderr
    header = listed.stdout.splitlines()[0].split()
    assert "project" in header
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()[1:] if line.strip()}
    assert str(project) in rows[here.id]  # whole ids: a list never crops one (issue 38 §2)
    assert str(other_project) in rows[there["id"]]

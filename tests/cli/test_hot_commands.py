"""The commands agents run many times a turn (archive, status, read, wait): the installed
`oraculum` process prints what :func:`oraculum.cli.main` prints in-process, with the same
errors and exit codes; what click refuses is a usage error (exit 2, `invalid_argument`)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fresh_process import loaded_modules
from oraculum.cli import main
from oraculum.cli.output import columns
from oraculum.core.paths import global_config_path
from oraculum.jobs.model import Job
from oraculum.jobs.process import Liveness, liveness
from oraculum.jobs.store import JobStore

from ..archive.support import git_init, write
from ..jobs.engine_support import wait_for

ORACULUM = str(Path(sys.executable).with_name("oraculum"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, "src/app.py", b"print(1)\n")
    write(root, "src/util.py", b"x = 2\n")
    write(root, "node_modules/dep/index.js")
    git_init(root)
    return root


def _run(
    capsys: pytest.CaptureFixture[str], args: list[str], *, process: bool
) -> tuple[int, str, str]:
    """``args`` run by the installed `oraculum` (``process``) or by :func:`main` here."""
    if process:
        done = subprocess.run([ORACULUM, *args], capture_output=True, text=True, timeout=120)
        return done.returncode, done.stdout, done.stderr
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _steady(out: str, json_mode: bool) -> object:
    """The output without what differs between two builds (the time they took)."""
    if json_mode:
        doc = json.loads(out)
        doc.pop("elapsedSeconds", None)
        return doc
    return [line for line in out.splitlines() if " s" not in line or "entries" not in line]


@pytest.mark.parametrize("json_mode", [True, False])
@pytest.mark.parametrize(
    "case",
    [
        ["--list"],
        ["--out", "{out}/a.tar.zst"],
        ["src/app.py", "--provider", "grok", "--out={out}"],
        ["--list", "missing"],  # an error: the same code, message and exit status
        ["--provider", "nope", "--out", "{out}"],
    ],
)
def test_the_process_prints_what_main_prints(
    case: list[str],
    json_mode: bool,
    repo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    oraculum_home: Path,
) -> None:
    results = []
    for process in (True, False):
        out = tmp_path / f"out-{process}"
        out.mkdir()
        args = ["archive", *(a.replace("{out}", str(out)) for a in case), "--project", str(repo)]
        args += ["--json"] if json_mode else []
        code, stdout, stderr = _run(capsys, args, process=process)
        # A name not given is stamped with the second of the build: two builds may straddle one.
        stdout = re.sub(r"preview-\d{8}-\d{6}", "preview-STAMP", stdout.replace(str(out), "OUT"))
        if code == 0:
            results.append((code, _steady(stdout, json_mode), stderr))
        else:
            results.append((code, stdout, stderr))
    assert results[0] == results[1]


def test_the_archive_command_loads_no_rich_and_no_job_engine(
    repo: Path, tmp_path: Path, oraculum_home: Path
) -> None:
    code = (
        "from oraculum.cli import main\n"
        f"args = ['--json', 'archive', '--project', {str(repo)!r}, '--out', {str(tmp_path)!r}]\n"
        "assert main(args) == 0 and main(args[1:]) == 0  # JSON, then words (no rich either)\n"
    )
    modules = loaded_modules(tmp_path, code, timeout=120)
    assert not {
        m
        for m in modules
        if m.split(".")[0] in {"typer", "rich", "psutil", "playwright", "mcp", "aiohttp"}
        or m.startswith(("oraculum.jobs", "oraculum.service"))
    }


def test_a_changed_config_is_read_again(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], oraculum_home: Path
) -> None:
    def limit() -> int:
        assert main(["--json", "archive", "--project", str(repo), "--out", str(tmp_path)]) == 0
        return int(json.loads(capsys.readouterr().out)["limitBytes"])

    assert limit() == 250 * 2**20
    config = global_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"archive": {"chatgptMaxBytes": 2**20}}))
    assert limit() == 2**20
    config.write_text(json.dumps({"archive": {"chatgptMaxBytes": 3 * 2**20}}))
    assert limit() == 3 * 2**20


def test_columns_align_plain_text() -> None:
    rows = [["reason", "paths"], ["excluded directory node_modules", "1"], ["x", "22"]]
    assert columns(rows) == [
        "reason                           paths",
        "excluded directory node_modules  1",
        "x                                22",
    ]
    assert columns([]) == []


def test_the_installed_command_prints_everything_and_exits_with_the_code(
    repo: Path, tmp_path: Path, oraculum_home: Path
) -> None:
    # The output is complete on a pipe, and the exit status the command's.
    argv = [sys.executable, "-c", "from oraculum.cli import entrypoint; entrypoint()"]
    built = subprocess.run(
        [*argv, "--json", "archive", "--project", str(repo), "--out", str(tmp_path / "a.tzst")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["path"] == str(tmp_path / "a.tzst")
    assert (tmp_path / "a.tzst").stat().st_size == json.loads(built.stdout)["archiveBytes"]
    refused = subprocess.run(
        [*argv, "archive", "--list", "--project", str(repo), "missing"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 2
    assert refused.stdout == "" and "error[archive_input_missing]" in refused.stderr


def _volatile(text: str) -> str:
    """Output without what moves between two runs a moment apart (ages, heartbeats)."""
    text = re.sub(r'"(ageSeconds|heartbeatAgeSeconds)": [0-9.]+', r'"\1": N', text)
    return re.sub(r"\b\d+(\.\d+)?(ms|s|m|h|d)\b", "N", text)


@pytest.fixture
def finished_job(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    oraculum_home: Path,  # before the submit: the job goes to the test's home, not the user's
) -> str:
    monkeypatch.chdir(repo)
    monkeypatch.setenv("ORACULUM_SESSION", "hot-commands")
    args = ["--json", "submit", "-p", "Why?", "--provider", "test", "--wait", "src"]
    assert main(args) == 0
    job_id = str(json.loads(capsys.readouterr().out)["job"]["id"])
    assert (oraculum_home / "jobs" / f"oracle-{job_id}" / "job.json").is_file()
    assert main(["read", job_id]) == 0  # settles the wake-up: later reads change nothing
    capsys.readouterr()
    # The worker tears its browser down after the job ends and records that (the cleanup
    # flag, a last event): until it has, two runs a moment apart can print different jobs.
    wait_for(JobStore(), job_id, _settled)
    return job_id


def _settled(job: Job) -> bool:
    return job.is_terminal and not job.cleanup_pending and liveness(job.worker) != Liveness.ALIVE


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    [
        ["status"],
        ["status", "{id}"],
        ["status", "{prefix}"],
        ["status", "--limit", "1", "--all-projects"],
        ["status", "--limit=1000", "--session", "hot-commands"],
        ["status", "0000000000000"],  # an error: same code, message and status
        ["status", "--limit", "0"],  # click refuses it
        ["read"],
        ["read", "{id}", "--raw"],
        ["read", "{prefix}", "--full"],
        ["read", "zzzz"],
        ["read", "{id}", "{id}"],  # one argument too many: click's usage error
        ["wait", "{id}"],
        ["wait", "{prefix}", "--timeout", "5", "--session", "hot-commands"],
        ["wait", "--timeout=0.5"],  # the session's next job: none ends, exit 5 on both
    ],
)
def test_status_read_and_wait_print_the_same_in_the_process(
    case: list[str],
    finished_job: str,
    capsys: pytest.CaptureFixture[str],
    oraculum_home: Path,
) -> None:
    words = [a.replace("{id}", finished_job).replace("{prefix}", finished_job[:6]) for a in case]
    for args in (words, [*words, "--json"]):
        process = _run(capsys, args, process=True)
        here = _run(capsys, args, process=False)
        assert (process[0], _volatile(process[1]), _volatile(process[2])) == (
            here[0],
            _volatile(here[1]),
            _volatile(here[2]),
        )
    # click's own refusals are usage errors.
    assert (here[0] == 2 and "invalid_argument" in here[1]) == (case in CLICK_REFUSES)


CLICK_REFUSES = (["status", "--limit", "0"], ["read", "{id}", "{id}"])


@pytest.mark.parametrize(
    "args",
    [
        ["status", "--limit", "0"],
        ["status", "--limit", "1001"],
        ["status", "--limit", "ten"],
        ["status", "a", "b"],
        ["read", "a", "b"],
        ["read", "--raw=yes"],
        ["read", "--session"],
        ["wait", "--timeout", "-1"],
        ["wait", "--timeout", "nan"],
        ["wait", "--timeout", "inf"],
        ["wait", "a", "b"],
        ["archive", "--out"],  # a missing value
        ["archive", "--out", "a", "--unknown"],
        ["archive", "--list=yes"],
    ],
)
def test_bad_usage_is_invalid_argument_exit_2(
    args: list[str], capsys: pytest.CaptureFixture[str], oraculum_home: Path
) -> None:
    assert main(["--json", *args]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "invalid_argument"
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(("Usage: oraculum", "Error: ")) and "Error: " in err


@pytest.mark.parametrize("args", [["--help"], ["-h"]])
def test_archive_help_is_help(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["archive", *args]) == 0
    assert capsys.readouterr().out.startswith("Usage: oraculum archive [OPTIONS] [FILES]...")

"""A helper run to its end with real children: its input fed, its output bounded, its group
stopped at the deadline or on cancel (a grandchild included), and the best-effort helper's
outcome in words."""

from __future__ import annotations

import threading
from pathlib import Path

from oraculum.processes.run import run_group, run_helper
from oraculum.processes.tail import Tail

from .support import PY, alive, until

# The leader starts a child in its group, names it on stderr, and sleeps.
FORKS = (
    "import subprocess, sys, time\n"
    "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "print(c.pid, file=sys.stderr, flush=True)\n"
    "time.sleep(60)\n"
)


def _pid_in(tail: Tail) -> int:
    until(lambda: tail.snapshot(100).text.strip().isdigit(), "the grandchild's pid")
    return int(tail.snapshot(100).text)


def test_the_input_is_fed_and_both_streams_are_kept() -> None:
    code = (
        "import sys\ndata = sys.stdin.read()\nprint(data.upper())\nprint('done', file=sys.stderr)\n"
    )
    out, err = Tail(1000), Tail(1000)
    run = run_group(
        [PY, "-c", code], stdin=b"hello", stdout=out, stderr=err, timeout_s=30, grace_s=1
    )
    assert (run.ended, run.returncode) == ("exited", 0)
    assert out.snapshot(1000).text == "HELLO\n" and err.snapshot(1000).text == "done\n"


def test_a_helper_that_never_reads_its_input_is_no_error() -> None:
    err = Tail(100)
    run = run_group(
        [PY, "-c", "raise SystemExit(4)"],
        stdin=b"x" * 1_000_000,  # more than a pipe holds: the writer meets a closed pipe
        stdout=None,
        stderr=err,
        timeout_s=30,
        grace_s=1,
    )
    assert (run.ended, run.returncode) == ("exited", 4)


def test_the_deadline_stops_the_whole_group() -> None:
    err = Tail(100)
    pids: list[int] = []
    found: list[int] = []

    def started(pid: int) -> None:
        pids.append(pid)

    watcher = threading.Thread(target=lambda: found.append(_pid_in(err)), daemon=True)
    watcher.start()
    run = run_group(
        [PY, "-c", FORKS],
        stdin=None,
        stdout=None,
        stderr=err,
        timeout_s=2,
        grace_s=1,
        on_start=started,
    )
    watcher.join(10)
    assert run.ended == "timeout" and run.returncode is not None
    assert not alive(pids[0])
    until(lambda: not alive(found[0]), "the grandchild's end")


def test_cancel_stops_it_at_once(tmp_path: Path) -> None:
    cancel = threading.Event()
    run = run_group(
        [PY, "-c", "import time; time.sleep(60)"],
        stdin=None,
        stdout=None,
        stderr=Tail(100),
        timeout_s=60,
        grace_s=1,
        cancel=cancel,
        on_start=lambda _pid: cancel.set(),
        cwd=tmp_path,
    )
    assert run.ended == "cancelled" and run.returncode is not None


def test_a_best_effort_helper_says_what_went_wrong(tmp_path: Path) -> None:
    fails = "import sys\nsys.stderr.write('x' * 5000 + 'the end')\nraise SystemExit(3)\n"
    code, problem = run_helper("hook", [PY, "-c", fails], stdin=b"", timeout_s=30)
    assert code == 3 and problem is not None
    assert problem.startswith("hook exited with 3: x") and problem.endswith("the end")
    assert len(problem) <= len("hook exited with 3: ") + 300
    assert run_helper("hook", [PY, "-c", "pass"], stdin=None, timeout_s=30) == (0, None)
    slow = [PY, "-c", "import time; time.sleep(60)"]
    assert run_helper("hook", slow, stdin=None, timeout_s=0.5) == (
        None,
        "hook timed out after 0.5s",
    )
    code, problem = run_helper("hook", [str(tmp_path / "missing")], stdin=None, timeout_s=5)
    assert code is None and problem is not None and problem.startswith("hook could not start: ")

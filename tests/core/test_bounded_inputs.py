"""Issue 41 §1 and §5: every file a project or a user names is read with a bound (a regular
file, a size cap, a nesting cap; a project file stays inside the project), and an oversized or
overdeep one is refused with a stable code, not a hang, a memory blow-up or a crash. The CLI
runs as a real process, under a memory limit where the unbounded read used to eat memory."""

from __future__ import annotations

import os
import resource
import time
from pathlib import Path

import pytest

from homes import run_cli
from oraculum.core import paths
from oraculum.core.bounded import InputRefused, json_depth, read_bounded
from oraculum.core.config import CONFIG_MAX_BYTES
from oraculum.core.errors import ExitCode

# Enough address space for the CLI's imports, far too little for an unbounded read of
# /dev/zero (which held 2.6 GB before MemoryError).
MEMORY_LIMIT = 1536 * 1024 * 1024
COMMANDS = {
    "submit": ("submit", "-p", "q", "--provider", "test", "src"),
    "preflight": ("preflight", "--provider", "test"),
    "config check": ("config", "check"),
}


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@pytest.fixture
def session(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ORACULUM_SESSION", "bounded-inputs")
    return "bounded-inputs"


def project_config(project: Path) -> Path:
    path = paths.project_config_path(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


# --- the shared reader ------------------------------------------------------------------------


def test_read_bounded_reads_a_regular_file_up_to_its_cap(tmp_path: Path) -> None:
    small = tmp_path / "small"
    small.write_bytes(b"x" * 10)
    assert read_bounded(small, 10) == b"x" * 10
    with pytest.raises(InputRefused) as caught:
        read_bounded(small, 9)
    assert caught.value.size == 10


def test_read_bounded_refuses_devices_fifos_and_directories_without_opening(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, kind in (("/dev/zero", "character device"), (fifo, "FIFO"), (tmp_path, "dir")):
        with pytest.raises(InputRefused) as caught:
            read_bounded(path, 100)
        assert kind in caught.value.reason and caught.value.size is None


def test_read_bounded_inside_refuses_a_symlink_leaving_the_directory(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside").write_text("{}")
    (root / "in").write_text("{}")
    (root / "out-link").symlink_to(tmp_path / "outside")
    (root / "in-link").symlink_to(root / "in")
    assert read_bounded(root / "in-link", 10, inside=root) == b"{}"
    with pytest.raises(InputRefused) as caught:
        read_bounded(root / "out-link", 10, inside=root)
    assert "outside" in caught.value.reason
    with pytest.raises(FileNotFoundError):
        read_bounded(root / "missing", 10, inside=root)


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        (b"1", 0),
        (b'{"a": [1, {"b": []}]}', 4),
        (b'{"a": "[[[[{{{{", "b": "\\"[[["}', 1),
        (b"[" * 200_000 + b"]" * 200_000, 200_000),
    ],
)
def test_json_depth_counts_brackets_outside_strings(text: bytes, depth: int) -> None:
    assert json_depth(text) == depth


# --- configs through the real CLI -------------------------------------------------------------


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_project_config_symlinked_to_dev_zero_is_refused_quickly_under_a_memory_limit(
    project: Path, session: str, command: str
) -> None:
    project_config(project).symlink_to("/dev/zero")
    started = time.monotonic()
    code, refused = run_cli(*COMMANDS[command], cwd=project, timeout=60, preexec_fn=limit_memory)
    assert time.monotonic() - started < 30
    assert code == ExitCode.NOT_READY, refused
    assert refused["error"]["code"] == "oracle_config_invalid"
    assert "outside" in refused["error"]["message"]


def test_global_config_symlinked_to_dev_zero_is_refused_as_a_device(
    project: Path, session: str
) -> None:
    config = paths.global_config_path()
    config.unlink()
    config.symlink_to("/dev/zero")
    code, refused = run_cli("config", "check", cwd=project, timeout=60, preexec_fn=limit_memory)
    assert code == ExitCode.NOT_READY and refused["error"]["code"] == "oracle_config_invalid"
    assert "character device" in refused["error"]["message"]


def test_huge_project_config_is_config_too_large(project: Path, session: str) -> None:
    with project_config(project).open("wb") as handle:
        handle.truncate(CONFIG_MAX_BYTES + 1)  # sparse: big on paper, free on disk
    for command in COMMANDS.values():
        code, refused = run_cli(*command, cwd=project, preexec_fn=limit_memory)
        assert code == ExitCode.NOT_READY and refused["error"]["code"] == "config_too_large"
        assert f"limit {CONFIG_MAX_BYTES}" in refused["error"]["message"]


def test_project_config_symlink_leaving_the_project_is_refused(project: Path, session: str) -> None:
    elsewhere = project.parent / "elsewhere.json"
    elsewhere.write_text('{"worker": {"pollMs": 1500}}')
    project_config(project).symlink_to(elsewhere)
    code, refused = run_cli("config", "check", cwd=project)
    assert code == ExitCode.NOT_READY and refused["error"]["code"] == "oracle_config_invalid"
    assert "outside" in refused["error"]["message"]
    # A symlink that stays inside the project is a project file like any other.
    inside = project / "shared-config.json"
    elsewhere.rename(inside)
    project_config(project).unlink()
    project_config(project).symlink_to(inside)
    code, shown = run_cli("config", "show", cwd=project)
    assert code == 0 and shown["config"]["worker"]["pollMs"] == 1500


def test_config_nested_200000_levels_is_invalid_argument(project: Path, session: str) -> None:
    project_config(project).write_text('{"worker": ' + "[" * 200_000 + "]" * 200_000 + "}")
    code, refused = run_cli("config", "check", cwd=project)
    assert code == ExitCode.INVALID_INPUT and refused["error"]["code"] == "invalid_argument"
    assert refused["error"]["details"]["depth"] == 200_001


# --- prompt files -----------------------------------------------------------------------------


def test_fifo_prompt_file_is_refused_without_hanging(project: Path, session: str) -> None:
    fifo = project.parent / "prompt.fifo"
    os.mkfifo(fifo)
    code, refused = run_cli(
        "submit", "--prompt-file", str(fifo), "--provider", "test", "src", cwd=project, timeout=30
    )
    assert code == ExitCode.INVALID_INPUT and refused["error"]["code"] == "prompt_file_unreadable"
    assert "FIFO" in refused["error"]["message"]


def test_prompt_file_symlinked_to_dev_zero_is_refused_under_a_memory_limit(
    project: Path, session: str
) -> None:
    link = project.parent / "prompt.md"
    link.symlink_to("/dev/zero")
    code, refused = run_cli(
        "submit", "--prompt-file", str(link), "--provider", "test", "src",
        cwd=project, timeout=60, preexec_fn=limit_memory,
    )  # fmt: skip
    assert code == ExitCode.INVALID_INPUT and refused["error"]["code"] == "prompt_file_unreadable"
    assert "character device" in refused["error"]["message"]

"""The subagent pieces without an agent: JSONL framing over a real child process, the pi argv,
launch validation, and how a turn's end becomes its one result."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from oraculum.core.errors import OracleError
from oraculum.subagents import LaunchSpec, Routing, TurnOutcome, TurnStatus, launch_spec, routing
from oraculum.subagents.jsonl import ChannelClosed, JsonlChannel, split_records
from oraculum.subagents.pi_rpc import WORKER_PROMPT, pi_argv
from oraculum.subagents.registry import Conversation, bounded_text, turn_result
from oraculum.subagents.spec import check_id, check_prompt
from oraculum.tasks import Owner

# A child that answers each command with a response echoing its id, after an event whose text
# holds U+2028 and U+2029 (valid inside JSON strings, never a record boundary), then exits on
# {"type": "quit"} without answering.
ECHO_CHILD = textwrap.dedent(
    """
    import json, sys
    for line in sys.stdin.buffer:
        command = json.loads(line)
        if command["type"] == "quit":
            break
        event = {"type": "note", "text": "a\\u2028b\\u2029c"}
        out = json.dumps(event, ensure_ascii=False) + "\\r\\n"
        out += json.dumps({"type": "response", "id": command["id"], "success": True})
        sys.stdout.buffer.write(out.encode() + b"\\n")
        sys.stdout.buffer.flush()
    """
)


def test_split_records_splits_on_lf_only() -> None:
    records, rest = split_records('{"a":"x\u2028y"}\r\n{"b":1}\n\n{"c"'.encode())
    assert records == ['{"a":"x\u2028y"}'.encode(), b'{"b":1}']
    assert rest == b'{"c"'


def test_the_channel_pairs_responses_and_queues_events_in_order() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", ECHO_CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    channel = JsonlChannel(process)
    first = channel.request({"type": "ping"}, timeout_s=30)
    second = channel.request({"type": "ping"}, timeout_s=30)
    assert first["success"] and first["id"] != second["id"]
    assert channel.events.get(timeout=5) == {"type": "note", "text": "a\u2028b\u2029c"}
    with pytest.raises(ChannelClosed):
        channel.request({"type": "quit"}, timeout_s=30)  # the child exits without answering
    process.wait(30)
    assert channel.events.get(timeout=5) == {"type": "note", "text": "a\u2028b\u2029c"}
    assert channel.events.get(timeout=5) is None  # end of output


def test_pi_argv_is_literal_with_extensions_off(tmp_path: Path) -> None:
    spec = LaunchSpec(cwd=tmp_path, name="tests", tools=("read", "bash"))
    argv = pi_argv("/bin/pi", spec, Routing("openai/gpt-5", "high"), None)
    assert argv[:3] == ["/bin/pi", "--mode", "rpc"]
    assert {"--no-extensions", "--no-prompt-templates", "--no-skills", "--no-mcp"} <= set(argv)
    assert argv[argv.index("--append-system-prompt") + 1] == WORKER_PROMPT
    assert argv[argv.index("--model") + 1] == "openai/gpt-5"
    assert argv[argv.index("--thinking") + 1] == "high"
    assert argv[argv.index("--name") + 1] == "tests"
    assert argv[argv.index("--tools") + 1] == "read,bash"
    resumed = pi_argv("/bin/pi", spec, Routing(), "/s/one.jsonl", tmp_path / "skills")
    assert resumed[resumed.index("--session") + 1] == "/s/one.jsonl"
    assert resumed[resumed.index("--skill") + 1] == str(tmp_path / "skills")
    assert "--name" not in resumed and "--model" not in resumed and "--thinking" not in resumed


@pytest.mark.parametrize(
    ("model", "reasoning"),
    [("gpt-5", None), ("openai/gpt-5:high", None), ("-x/y", None), ("a/b", "extreme")],
)
def test_routing_refuses_bare_or_malformed_values(model: str, reasoning: str | None) -> None:
    with pytest.raises(OracleError) as caught:
        routing(model, reasoning)
    assert caught.value.code == "invalid_argument"


def test_routing_accepts_qualified_models() -> None:
    assert routing("openrouter/anthropic/claude-x", "xhigh") == Routing(
        "openrouter/anthropic/claude-x", "xhigh"
    )
    assert routing(None, None) == Routing()


def test_launch_spec_checks_what_reaches_the_argv(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    spec = launch_spec(root=tmp_path, cwd="sub", name="n", tools=["read"])
    assert spec.cwd == (tmp_path / "sub").resolve() and spec.tools == ("read",)
    for bad in (
        {"name": "--model"},
        {"name": "x" * 81},
        {"tools": ["read,bash"]},
        {"tools": []},
        {"cwd": "missing"},
    ):
        kwargs = {"tools": None, **bad}
        with pytest.raises(OracleError) as caught:
            launch_spec(root=tmp_path, **kwargs)  # type: ignore[arg-type]
        assert caught.value.code == "invalid_argument", bad
    for bad_id in ("0", "x", "1; rm", ""):
        with pytest.raises(OracleError):
            check_id(bad_id)
    with pytest.raises(OracleError):
        check_prompt("  \n")


def test_a_turns_end_is_one_bounded_result(tmp_path: Path) -> None:
    conversation = Conversation("3", Owner("p" * 16, "s"), LaunchSpec(cwd=tmp_path, name="n"), "pi")
    conversation.session_ref, conversation.turns = "/s/3.jsonl", 2
    done = turn_result(conversation, TurnOutcome(TurnStatus.COMPLETED, "z" * 30_000))
    assert done.ok and done.error_code is None
    assert "subagent 3 (n) completed" in done.text and "session: /s/3.jsonl" in done.text
    assert done.text.count("z") == 20_000 and "[cut at 20000 of 30000 characters]" in done.text
    assert done.data == {
        "subagentId": "3",
        "name": "n",
        "status": "completed",
        "session": "/s/3.jsonl",
        "turn": 2,
    }
    failed = turn_result(conversation, TurnOutcome(TurnStatus.FAILED, "", "rate limited"))
    assert not failed.ok and failed.error_code == "subagent_failed"
    assert "rate limited" in failed.text
    stopped = turn_result(conversation, TurnOutcome(TurnStatus.INTERRUPTED, "partial", "stop"))
    assert stopped.error_code == "subagent_interrupted" and "partial" in stopped.text
    assert bounded_text("short") == "short"

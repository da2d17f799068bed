"""The server without a browser: knobs, auth, uploads, the control endpoint, the CLI."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from oraculum.core.errors import OracleError
from oraculum.simulator import ScenarioError, SimulatorThread, actions, run_simulator
from oraculum.simulator.actions import PREFILL_ARCHIVE
from oraculum.simulator.answers import END_MARKER, html_text
from oraculum.simulator.scenarios import FLAGS, KNOBS, Scenario, apply
from oraculum.simulator.state import SimState, Turn, tokenize, tokens_for_chars
from oraculum.simulator.uploads import archive_members

# The CLI as a user runs it, from this interpreter (the venv's oraculum).
CLI = [sys.executable, "-c", "from oraculum.cli import entrypoint; entrypoint()"]


def test_knobs_parse_and_reject() -> None:
    sc = apply(
        Scenario(), {"scenario": "challenge,stale_stop", "think_ms": "5", "shell": "REDESIGN"}
    )
    assert sc.flags == {"challenge", "stale_stop"} and sc.think_ms == 5 and sc.shell == "redesign"
    assert apply(Scenario(), {"scenario": "normal"}).flags == frozenset()
    for bad in ({"scenario": "nope"}, {"think_ms": "-1"}, {"picker": "x"}, {"model": "pro/light"}):
        with pytest.raises(ScenarioError):
            apply(Scenario(), bad)
    with pytest.raises(ScenarioError, match="unknown knob"):
        apply(Scenario(), {"thinkms": 1})
    assert apply(Scenario(), {"utm_source": "x", "whatever": 1}, strict=False) == Scenario()
    assert apply(Scenario(), {"scenario": ["hidden_tab"]}).query() == "scenario=hidden_tab"


def test_power_stops_must_start_with_instant_and_name_known_stops() -> None:
    stops = "Instant,Low,Medium,High,Extra High,Pro"
    assert apply(Scenario(), {"power_stops": stops}).power_stops == stops
    for bad in ("Medium,High", "Instant,Turbo"):
        with pytest.raises(ScenarioError, match="power_stops"):
            apply(Scenario(), {"power_stops": bad})


def test_tar_gz_members_are_listed() -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        info = tarfile.TarInfo("dir/file.txt")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
    members, error = archive_members("context-x.tar.gz", raw.getvalue())
    assert error is None and members is not None
    assert [(m.name, m.size, m.kind) for m in members] == [("dir/file.txt", 3, "file")]
    assert archive_members("broken.tar.zst", b"not zstd")[0] is None
    assert archive_members("broken.tar.zst", b"not zstd")[1]
    assert archive_members("notes.txt", b"x") == (None, None)


@pytest.mark.asyncio
async def test_me_login_upload_and_server_side_commit() -> None:
    async with (
        run_simulator(think_ms=0, token_ms=1, answer="default") as sim,
        # Cookies from an IP-address host need the "unsafe" jar.
        aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http,
    ):
        async with http.get(f"{sim.url}/backend-api/me") as response:
            assert response.status == 401
        async with http.get(f"{sim.url}/") as response:  # the logged-out page
            assert response.status == 200
            assert "sim-config" in await response.text()
        async with http.post(
            f"{sim.url}/auth/login", data={"email": "a@b.c", "next": "/"}, allow_redirects=False
        ) as response:
            assert response.status == 302 and response.headers["Location"] == "/"
        async with http.get(f"{sim.url}/backend-api/me") as response:
            assert response.status == 200
            assert (await response.json())["email"] == "a@b.c"

        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w:gz") as tar:
            info = tarfile.TarInfo("m.py")
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))
        data = raw.getvalue()
        form = aiohttp.FormData()
        form.add_field("file", data, filename="context-1.tar.gz")
        async with http.post(f"{sim.url}/backend-api/files", data=form) as response:
            upload = await response.json()
        assert upload["sha256"] == hashlib.sha256(data).hexdigest()

        # Nobody reads the stream: the server still commits the whole answer on schedule.
        async with http.post(
            f"{sim.url}/backend-api/conversation",
            json={"prompt": "p", "attachments": [upload["id"]], "scenario": {"answer": "default"}},
        ) as response:
            created = await response.json()
        await asyncio.sleep(0.3)
        conv = sim.state.conversation(created["conversation_id"])
        assert conv.turns[1].status == "complete"
        assert "m.py" in conv.turns[1].text and upload["sha256"] in conv.turns[1].text
        assert html_text(conv.turns[1].html) == conv.turns[1].text

        async with http.post(f"{sim.url}/__sim/scenario", json={"scenario": "bogus"}) as response:
            assert response.status == 400
        async with http.post(f"{sim.url}/__sim/scenario", json={"answer": "echo"}) as response:
            assert (await response.json())["answer"] == "echo"
        assert sim.state.defaults.answer == "echo"
        async with http.post(f"{sim.url}/__sim/seed", json={"turns": ["q", "a"]}) as response:
            seeded = await response.json()
        async with http.get(f"{sim.url}/__sim/state") as response:
            state = await response.json()
        assert seeded["conversation_id"] in {c["id"] for c in state["conversations"]}


@pytest.mark.asyncio
async def test_stream_endpoint_paces_tokens() -> None:
    async with (
        # A long answer at 5 ms a token streams for a while even on a loaded machine.
        run_simulator(require_login=False, think_ms=100, token_ms=5, answer="default") as sim,
        aiohttp.ClientSession() as http,
    ):
        async with http.post(
            f"{sim.url}/backend-api/conversation", json={"prompt": "hello there"}
        ) as response:
            created = await response.json()
        cid, mid = created["conversation_id"], created["assistant"]["message_id"]
        events = []
        async with http.get(f"{sim.url}/backend-api/conversation/{cid}/stream/{mid}") as response:
            async for line in response.content:
                events.append(json.loads(line))
        kinds = [e["t"] for e in events]
        assert kinds[0] == "thinking" and kinds[1] == "start" and kinds[-1] == "done"
        streamed = "".join(e["v"] for e in events if e["t"] == "delta")
        assert streamed == sim.state.conversation(cid).turns[1].text
        assert kinds.count("delta") > 1


def test_pause_holds_the_answer_schedule_mid_stream() -> None:
    """pause_ms: once `pause_at_chars` have streamed, no token is due for the pause and the
    commit moves later by as much; before and after it the pace is unchanged."""
    turn = Turn(
        role="assistant",
        status="streaming",
        started_at=100.0,
        think_s=1.0,
        token_s=0.1,
        tokens=tokenize("one two three four five six"),
        pause_s=5.0,
    )
    turn.pause_at = tokens_for_chars(turn.tokens, 7)  # "one two"
    assert turn.pause_at == 2 and tokens_for_chars(turn.tokens, 0) == 0
    assert turn.commit_at() == pytest.approx(101.0 + 0.6 + 5.0)
    assert turn.tokens_due(101.15) == 2 and not turn.in_pause(101.15)
    assert turn.in_pause(101.25) and turn.tokens_due(101.25) == 2
    assert turn.in_pause(106.1) and turn.tokens_due(106.1) == 2
    assert not turn.in_pause(106.23) and turn.tokens_due(106.23) == 3
    turn.refresh(106.5)
    assert turn.status == "streaming"
    turn.refresh(106.7)
    assert turn.status == "complete" and turn.tokens_due(106.7) == 6


@pytest.mark.asyncio
async def test_stream_pauses_mid_answer_then_streams_the_rest() -> None:
    """The stream tells the page when the pause starts (after the text so far) and when it
    ends; nothing streams in between, and the whole answer ends with the marker."""
    async with (
        run_simulator(
            require_login=False, think_ms=100, token_ms=5, pause_ms=1500, pause_at_chars=60
        ) as sim,
        aiohttp.ClientSession() as http,
    ):
        async with http.post(
            f"{sim.url}/backend-api/conversation", json={"prompt": "pause in the middle"}
        ) as response:
            created = await response.json()
        cid, mid = created["conversation_id"], created["assistant"]["message_id"]
        events = []
        async with http.get(f"{sim.url}/backend-api/conversation/{cid}/stream/{mid}") as response:
            async for line in response.content:
                events.append((time.monotonic(), json.loads(line)))
        kinds = [e["t"] for _, e in events]
        assert kinds.count("pause") == 1 and kinds.count("resume") == 1, kinds
        paused, resumed = kinds.index("pause"), kinds.index("resume")
        assert kinds.index("start") < paused < resumed < kinds.index("done")
        assert resumed == paused + 1  # nothing streams while it holds
        assert events[resumed][0] - events[paused][0] >= 1.4
        before = "".join(e["v"] for _, e in events[:paused] if e["t"] == "delta")
        streamed = "".join(e["v"] for _, e in events if e["t"] == "delta")
        assert 60 <= len(before) < len(streamed)
        assert streamed == sim.state.conversation(cid).turns[1].text
        assert streamed.rstrip().endswith(END_MARKER) and END_MARKER not in before


def test_loopback_only() -> None:
    with pytest.raises(OracleError) as caught:
        SimulatorThread(host="0.0.0.0")
    assert caught.value.code == "simulator_host_not_loopback"


def test_simulator_thread_from_sync_code() -> None:
    with SimulatorThread(shell="redesign", require_login=False) as sim:
        conv_id = sim.seed_conversation(["q", "a"])
        with urllib.request.urlopen(sim.conversation_url(conv_id)) as response:
            assert response.status == 200
        cookie = sim.session_cookie()
        assert cookie["url"] == sim.url and cookie["value"]
        sim.set_scenario("outage")
        try:
            urllib.request.urlopen(sim.url + "/")
        except urllib.error.HTTPError as error:
            assert error.code == 500
        else:
            raise AssertionError("outage scenario served a normal page")


@contextlib.contextmanager
def served(*options: str) -> Iterator[list[str]]:
    """`oraculum simulator serve --port 0 <options>` as a user starts it, for the block: the
    first three lines it printed. SIGTERM after the block must stop it cleanly (exit 0)."""
    process = subprocess.Popen(
        [*CLI, "simulator", "serve", "--port", "0", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    try:
        assert process.stdout is not None
        yield [process.stdout.readline() for _ in range(3)]
    finally:
        process.terminate()
        deadline = time.time() + 10
        while process.poll() is None and time.time() < deadline:
            time.sleep(0.05)
    assert process.returncode == 0, process.stderr.read() if process.stderr else ""


def served_url(lines: list[str]) -> str:
    """The simulator's base URL, from the `url:` line `serve` printed."""
    return next(line.split()[-1] for line in lines if "url:" in line).rstrip("/")


def test_cli_serve_as_a_new_user() -> None:
    """`oraculum simulator serve` prints its URL, serves, and stops on SIGTERM."""
    with served("--shell", "redesign") as lines:
        url = served_url(lines)
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "/auth/login") as response:
            assert b"Continue" in response.read()
        try:
            urllib.request.urlopen(url + "/backend-api/me")
        except urllib.error.HTTPError as error:
            assert error.code == 401
        else:
            raise AssertionError("expected 401 before signing in")


def test_cli_serve_json_and_bad_knob() -> None:
    bad = subprocess.run(
        [*CLI, "--json", "simulator", "serve", "--port", "0", "--scenario", "nope"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert bad.returncode != 0
    assert json.loads(bad.stdout)["error"]["code"] == "invalid_argument"


def _doc_table(section: str) -> dict[str, list[str]]:
    """First-column name -> cells of the table under `### <section>` in docs/simulator.md."""
    docs = (Path(__file__).parents[2] / "docs" / "simulator.md").read_text(encoding="utf-8")
    body = docs.split(f"### {section}\n", 1)[1].split("\n#", 1)[0]
    rows: dict[str, list[str]] = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_docs_list_every_knob_and_flag() -> None:
    """docs/simulator.md is written by hand; its tables must name exactly KNOBS and FLAGS."""
    knobs = _doc_table("Every knob")
    assert set(knobs) == {"scenario" if k == "flags" else k for k in KNOBS}
    for name, (kind, _, _) in KNOBS.items():
        if kind == "int":
            assert knobs[name][0] == f"`{getattr(Scenario(), name)}`", name
    assert set(_doc_table("Scenario flags (`scenario=`)")) == set(FLAGS)


def _page_config(html: str) -> dict:
    start = html.index('<script id="sim-config" type="application/json">')
    body = html[html.index(">", start) + 1 : html.index("</script>", start)]
    return json.loads(body)


@pytest.mark.asyncio
async def test_prefilled_thread_is_adopted_by_one_send_only() -> None:
    """Issue 13 §1: the earlier exchange a new chat showed becomes the conversation's first
    turns, once; a stale or forged prefill id is refused rather than silently dropped."""
    async with (
        run_simulator(require_login=False, think_ms=0, token_ms=1, answer="echo") as sim,
        aiohttp.ClientSession() as http,
    ):
        async with http.get(f"{sim.url}/?scenario=prefilled_thread") as response:
            prefill = _page_config(await response.text())["prefill"]
        roles = [t["role"] for t in prefill["turns"]]
        assert roles == ["user", "assistant"]
        assert [a["name"] for a in prefill["turns"][0]["attachments"]] == [PREFILL_ARCHIVE]
        async with http.get(f"{sim.url}/") as response:
            assert _page_config(await response.text())["prefill"] is None
        send = {"prompt": "ours", "scenario": {"flags": ["prefilled_thread"]}}
        async with http.post(
            f"{sim.url}/backend-api/conversation", json={**send, "prefill_id": prefill["id"]}
        ) as response:
            created = await response.json()
        conv = sim.state.conversation(created["conversation_id"])
        assert [t.message_id for t in conv.turns[:2]] == [t["message_id"] for t in prefill["turns"]]
        assert [t.role for t in conv.turns] == ["user", "assistant", "user", "assistant"]
        assert created["user"]["message_id"] == conv.turns[2].message_id
        for reused in (prefill["id"], "forged"):
            async with http.post(
                f"{sim.url}/backend-api/conversation", json={**send, "prefill_id": reused}
            ) as response:
                assert response.status == 400
                assert "prefill_id" in (await response.json())["detail"]


def test_pending_prefills_are_bounded() -> None:
    state = SimState()
    ids = [actions.prefill(state, Scenario(answer="echo"))[0] for _ in range(205)]
    assert len(state.prefills) == actions.MAX_PENDING_PREFILLS
    assert ids[0] not in state.prefills and ids[-1] in state.prefills


def test_extra_assistant_goes_before_each_user_turn() -> None:
    """Issue 13 §1: the turn at the pre-send assistant count is the extra one, not the reply."""
    state = SimState()
    scenario = Scenario(flags=frozenset({"extra_assistant"}), think_ms=0, token_ms=0)
    first = actions.send_message(
        state, conversation_id=None, prompt="one", attachments=[], scenario=scenario
    )
    conv = first.conversation
    conv.refresh()
    count_before_send = len(conv.assistant_turns())
    second = actions.send_message(
        state, conversation_id=conv.id, prompt="two", attachments=[], scenario=scenario
    )
    assert [t.role for t in conv.turns] == ["assistant", "user", "assistant"] * 2
    [extra] = second.before
    assert conv.assistant_turns()[count_before_send] is extra
    assert extra.text.strip() == actions.EXTRA_ASSISTANT_TEXT and extra.status == "complete"
    assert conv.turns[conv.turns.index(second.user) + 1] is second.assistant


@pytest.mark.asyncio
async def test_locale_sets_the_page_language_and_its_labels() -> None:
    """Issue 42 §2: `locale` (and `serve --locale`'s default) names the page's html lang and
    hands the page its labels; a language the simulator has no table for is refused."""
    async with (
        run_simulator(require_login=False, locale="ja") as sim,
        aiohttp.ClientSession() as http,
    ):
        async with http.get(f"{sim.url}/") as response:
            default = await response.text()
        async with http.get(f"{sim.url}/?locale=zh-CN&shell=redesign") as response:
            chinese = await response.text()
        sim.set_scenario(reset=True)
        assert sim.state.defaults.locale == "ja"  # the site's language outlives a reset
    assert '<html lang="ja-JP">' in default
    assert _page_config(default)["texts"]["Send prompt"] == "プロンプトを送信する"
    assert '<html lang="zh-CN">' in chinese
    assert _page_config(chinese)["texts"]["Ask ChatGPT"] == "有问题，尽管问"
    with pytest.raises(ScenarioError, match="locale must be one of"):
        apply(Scenario(), {"locale": "pt-br"})

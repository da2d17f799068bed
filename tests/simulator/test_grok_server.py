"""The Grok look-alike without a browser: its knobs, sign-in cookie, API, docs and CLI."""

from __future__ import annotations

import hashlib
import json
import subprocess
import urllib.error
import urllib.request

import aiohttp
import pytest

from oraculum.simulator import ScenarioError, SimulatorThread, run_simulator
from oraculum.simulator.scenarios import (
    FLAGS_BY_PROVIDER,
    GROK_FLAGS,
    Scenario,
    apply,
    parse_model,
)

from .grok_helpers import tar_gz
from .test_server import CLI, _doc_table, _page_config, served, served_url

GROK = Scenario(provider="grok")


def test_chatgpt_only_flags_are_refused_on_grok() -> None:
    for flag in sorted(FLAGS_BY_PROVIDER["chatgpt"] - GROK_FLAGS):
        with pytest.raises(ScenarioError, match=f"{flag} does not apply to grok"):
            apply(GROK, {"scenario": flag})
        apply(Scenario(), {"scenario": flag})  # fine on ChatGPT
    assert apply(GROK, {"scenario": ",".join(sorted(GROK_FLAGS))}).flags == GROK_FLAGS
    for flag in ("announcement", "pro_feedback", "drift_sticky_menu"):
        assert flag not in GROK_FLAGS


def test_grok_model_knob_names_a_grok_mode() -> None:
    assert apply(GROK, {"model": "heavy"}).model == "heavy"
    assert parse_model("heavy", "grok") == ("grok", "heavy")
    assert parse_model("grok/heavy", "grok") == ("grok", "heavy")
    for bad, provider in (
        ("pro/extended", "grok"),
        ("heavy", "chatgpt"),
        ("grok/heavy", "chatgpt"),
    ):
        with pytest.raises(ScenarioError):
            parse_model(bad, provider)


def test_provider_is_fixed_per_simulator() -> None:
    assert apply(GROK, {"provider": "grok"}) == GROK
    with pytest.raises(ScenarioError, match="provider"):
        apply(GROK, {"provider": "chatgpt"})
    # The page sends its whole scenario back with a new chat: that round trip must parse.
    assert apply(GROK, GROK.to_dict()) == GROK
    with pytest.raises(ScenarioError, match="unknown provider"):
        SimulatorThread(provider="bard").start()


@pytest.mark.asyncio
async def test_grok_sign_in_sets_sso_and_uploads_list_tar_gz_members() -> None:
    async with (
        run_simulator(provider="grok", think_ms=0, token_ms=0) as sim,
        aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http,
    ):
        assert sim.sign_in_url == f"{sim.url}/sign-in"
        assert sim.session_cookie()["name"] == "sso"
        async with http.get(f"{sim.url}/__sim/session") as response:
            assert response.status == 401
        async with http.get(f"{sim.url}/backend-api/me") as response:
            assert response.status == 404  # ChatGPT's API is not grok.com's
        async with http.get(f"{sim.url}/") as response:
            config = _page_config(await response.text())
            assert config["provider"] == "grok" and config["signedIn"] is False
        async with http.post(
            sim.sign_in_url, data={"email": "g@x.ai", "next": "/"}, allow_redirects=False
        ) as response:
            assert response.status == 302 and response.headers["Location"] == "/"
            assert set(response.cookies) == {"sso"}
            assert response.cookies["sso"]["httponly"]
        async with http.get(f"{sim.url}/__sim/session") as response:
            assert response.status == 200 and (await response.json())["email"] == "g@x.ai"

        data = tar_gz({"pkg/mod.py": b"x = 1\n"})
        form = aiohttp.FormData()
        form.add_field("file", data, filename="context-1.tar.gz")
        async with http.post(f"{sim.url}/rest/app-chat/upload-file", data=form) as response:
            upload = await response.json()
        assert upload["sha256"] == hashlib.sha256(data).hexdigest()
        [stored] = sim.state.uploads.values()
        assert [(m.name, m.size) for m in stored.members or []] == [("pkg/mod.py", 6)]
        async with http.post(
            f"{sim.url}/rest/app-chat/conversations/new",
            json={"prompt": "p", "attachments": [upload["id"]], "scenario": {"answer": "default"}},
        ) as response:
            created = await response.json()
        conv = sim.state.conversation(created["conversation_id"])
        assert conv.turns[1].status == "complete"
        assert "pkg/mod.py" in conv.turns[1].text and upload["sha256"] in conv.turns[1].text
        assert conv.turns[1].reasoning_label == "Thought for 1s"
        for prefix in ("c", "chat"):
            async with http.get(f"{sim.url}/{prefix}/{conv.id}") as response:
                assert response.status == 200
                turns = _page_config(await response.text())["conversation"]["turns"]
                assert [t["role"] for t in turns] == ["user", "assistant"]
        async with http.get(f"{sim.url}/chat/no-such-id") as response:
            assert response.status == 404


@pytest.mark.asyncio
async def test_grok_refuses_chatgpt_flags_in_urls_and_control() -> None:
    async with (
        run_simulator(provider="grok") as sim,
        aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http,
    ):
        with pytest.raises(ScenarioError):
            sim.chat_url(scenario="announcement")
        with pytest.raises(ScenarioError):
            sim.set_scenario("drift_sticky_menu")
        async with http.get(f"{sim.url}/?scenario=pro_feedback") as response:
            assert response.status == 400
            assert "does not apply to grok" in await response.text()
        async with http.post(
            f"{sim.url}/__sim/scenario", json={"reset": True, "scenario": "hidden_tab"}
        ) as response:
            assert response.status == 200
            assert (await response.json())["provider"] == "grok"
        assert sim.set_scenario(reset=True).provider == "grok"


def test_chatgpt_session_cookie_is_unchanged() -> None:
    with SimulatorThread() as sim:
        assert sim.session_cookie()["name"] == "oraculum-sim-session"
        assert sim.sign_in_url == f"{sim.url}/auth/login"


def test_docs_list_the_grok_flags() -> None:
    assert set(_doc_table("Grok scenario flags")) == GROK_FLAGS


def test_cli_serve_grok_prints_its_urls() -> None:
    with served("--provider", "grok") as lines:
        assert "grok" in lines[0]
        url = served_url(lines)
        sign_in = next(line.split()[2] for line in lines if "sign in:" in line)
        assert sign_in == url + "/sign-in"
        with urllib.request.urlopen(sign_in) as response:
            assert b"Continue" in response.read()
        with urllib.request.urlopen(url + "/") as response:
            assert b"/static/grok.js" in response.read()


def test_cli_serve_grok_json_and_refused_flag() -> None:
    serve_grok = ["--json", "simulator", "serve", "--port", "0", "--provider", "grok"]
    bad = subprocess.run(
        [*CLI, *serve_grok, "--scenario", "announcement"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert bad.returncode != 0
    error = json.loads(bad.stdout)["error"]
    assert error["code"] == "invalid_argument" and "does not apply to grok" in error["message"]
    unknown = subprocess.run(
        [*CLI, "--json", "simulator", "serve", "--port", "0", "--provider", "bard"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert unknown.returncode != 0
    assert json.loads(unknown.stdout)["error"]["code"] == "invalid_argument"

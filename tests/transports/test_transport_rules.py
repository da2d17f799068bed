"""The transports' pure decisions: config rules, endpoint proofs, and what the tab pin lets by."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oraculum.browser.keeper import KeeperRecord, headed_wanted, marker_url, proof_problem
from oraculum.browser.relay import RelayTarget, parse_relay_endpoint, version_problem
from oraculum.browser.tabpin import (
    PinState,
    browser_command_verdict,
    event_visible,
    filter_result,
    session_command_verdict,
)
from oraculum.core.config import load_config, relay_endpoint_problem, validate_config
from oraculum.core.errors import OracleError
from oraculum.core.paths import global_config_path, project_config_path

BROWSER_ID = "0f6d2c1e-9a7b-4c55-8d3e-1b2a3c4d5e6f"


# --- config -----------------------------------------------------------------------------------


def test_the_transport_defaults_to_isolated_with_the_relay_off() -> None:
    browser = validate_config({}, {}).browser
    assert browser.transport == "isolated"
    assert browser.relay.enabled is False and browser.relay.endpoint is None
    assert browser.managed.start_on_demand is True


@pytest.mark.parametrize(
    "body",
    [
        {"browser": {"transport": "relay"}},
        {"browser": {"relay": {"enabled": True, "endpoint": "http://127.0.0.1:9222"}}},
        {"browser": {"managed": {"startOnDemand": False}}},
    ],
)
def test_a_project_file_can_never_choose_or_point_a_transport(
    oraculum_home: Path, tmp_path: Path, body: dict
) -> None:
    root = tmp_path / "repo"
    path = project_config_path(root)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(body))
    with pytest.raises(OracleError) as info:
        load_config(root)
    assert info.value.code == "oracle_config_invalid"
    assert "cannot be set in a project config" in info.value.message


def test_the_global_config_chooses_the_transport(oraculum_home: Path) -> None:
    path = global_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "browser": {
                    "transport": "relay",
                    "relay": {"enabled": True, "endpoint": "http://localhost:9222"},
                }
            }
        )
    )
    browser = load_config().config.browser
    assert browser.transport == "relay"
    assert browser.relay.endpoint == "http://localhost:9222"


@pytest.mark.parametrize(
    ("endpoint", "problem"),
    [
        ("http://10.0.0.5:9222", "loopback"),
        ("http://example.com:9222", "loopback"),
        ("http://127.0.0.2:9222", "loopback"),
        ("https://127.0.0.1:9222", "http://"),
        ("ws://127.0.0.1:9222", "http://"),
        ("http://user:pw@127.0.0.1:9222", "credentials"),
        ("http://127.0.0.1", "port"),
        ("http://127.0.0.1:9222/json", "just scheme"),
        ("http://127.0.0.1:9222 ", "whitespace"),
    ],
)
def test_a_relay_endpoint_off_loopback_or_malformed_is_refused(endpoint: str, problem: str) -> None:
    assert problem in (relay_endpoint_problem(endpoint) or "")
    with pytest.raises(OracleError) as config_error:
        validate_config({"browser": {"relay": {"endpoint": endpoint}}}, {})
    assert config_error.value.code == "oracle_config_invalid"
    with pytest.raises(OracleError) as job_error:
        parse_relay_endpoint(endpoint)
    assert job_error.value.code == "relay_endpoint_refused"


@pytest.mark.parametrize(
    ("endpoint", "host"),
    [
        ("http://127.0.0.1:9222", "127.0.0.1"),
        ("http://localhost:9222/", "127.0.0.1"),
        ("http://[::1]:9222", "::1"),
    ],
)
def test_loopback_endpoints_are_driven_by_literal_address(endpoint: str, host: str) -> None:
    assert relay_endpoint_problem(endpoint) is None
    assert parse_relay_endpoint(endpoint) == RelayTarget(host, 9222)


# --- endpoint proofs --------------------------------------------------------------------------


def _version(ws: str) -> dict:
    return {"Browser": "Chrome/156.0", "webSocketDebuggerUrl": ws}


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ({"hello": "world"}, "like a Chrome DevTools endpoint"),
        ([], "like a Chrome DevTools endpoint"),
        (_version(f"ws://10.1.1.1:9222/devtools/browser/{BROWSER_ID}"), "not on loopback"),
        (_version(f"ws://127.0.0.1:9333/devtools/browser/{BROWSER_ID}"), "points elsewhere"),
        (_version("ws://127.0.0.1:9222/devtools/page/ABC"), "not a DevTools browser socket"),
        (_version(f"wss://127.0.0.1:9222/devtools/browser/{BROWSER_ID}"), "not on loopback"),
    ],
)
def test_a_relay_answer_that_is_not_that_chrome_fails_the_proof(answer, problem) -> None:
    assert problem in (version_problem(answer, RelayTarget("127.0.0.1", 9222)) or "")


def test_a_relay_answer_from_that_chrome_passes() -> None:
    answer = _version(f"ws://127.0.0.1:9222/devtools/browser/{BROWSER_ID}")
    assert version_problem(answer, RelayTarget("127.0.0.1", 9222)) is None


def _record(token: str = "a" * 32) -> KeeperRecord:
    return KeeperRecord(1, 1.0, 9222, BROWSER_ID, token, "/p", False, 1.0)


def test_the_keeper_proves_itself_by_browser_id_and_token() -> None:
    record = _record()
    version = _version(f"ws://127.0.0.1:9222/devtools/browser/{BROWSER_ID}")
    marker = {"type": "page", "url": marker_url(record.token)}
    assert proof_problem(record, version, [marker]) is None
    # Another browser on the reused port: its id differs.
    other = _version("ws://127.0.0.1:9222/devtools/browser/11111111-2222-3333-4444-555555555555")
    assert "another browser" in (proof_problem(record, other, [marker]) or "")
    # The right browser id but no tab with the token (marker closed, or a forged record).
    assert "token" in (proof_problem(record, version, [{"url": marker_url("b" * 32)}]) or "")
    assert "token" in (proof_problem(record, version, "not a list") or "")


def test_headed_when_a_display_exists_unless_configured() -> None:
    assert headed_wanted("auto", {"DISPLAY": ":0"}) is True
    assert headed_wanted("auto", {"WAYLAND_DISPLAY": "wayland-0"}) is True
    assert headed_wanted("headless", {"DISPLAY": ":0"}) is False
    assert headed_wanted("headed", {}) is True


# --- the tab pin ------------------------------------------------------------------------------

MINE, OTHER = "TARGET-MINE", "TARGET-OTHER"


def _pin() -> PinState:
    state = PinState(MINE)
    attached = {
        "method": "Target.attachedToTarget",
        "params": {"sessionId": "S1", "targetInfo": {"targetId": MINE, "type": "page"}},
    }
    assert event_visible(state, attached)
    return state


@pytest.mark.parametrize(
    ("method", "params", "verdict"),
    [
        ("Browser.getVersion", {}, "forward"),
        ("Target.setAutoAttach", {"autoAttach": True}, "auto_attach"),
        ("Browser.setDownloadBehavior", {"behavior": "allowAndName"}, "local"),
        ("Target.activateTarget", {"targetId": MINE}, "refuse"),
        ("Browser.close", {}, "refuse"),
        ("Target.createTarget", {"url": "about:blank"}, "refuse"),
        ("Target.attachToTarget", {"targetId": OTHER}, "refuse"),
        ("Target.attachToTarget", {"targetId": MINE}, "forward"),
        ("Target.closeTarget", {"targetId": OTHER}, "refuse"),
        ("Target.closeTarget", {"targetId": MINE}, "forward"),
        ("Target.attachToBrowserTarget", {}, "refuse"),
        ("Storage.clearCookies", {}, "refuse"),
        ("Target.detachFromTarget", {"sessionId": "S9"}, "refuse"),
    ],
)
def test_browser_level_commands(method: str, params: dict, verdict: str) -> None:
    assert browser_command_verdict(_pin(), method, params) == verdict


@pytest.mark.parametrize(
    ("session", "method", "verdict"),
    [
        ("S1", "Runtime.evaluate", "forward"),
        ("S1", "Page.navigate", "forward"),
        ("S1", "Page.bringToFront", "refuse"),
        ("S1", "Page.setDownloadBehavior", "local"),
        ("S1", "Browser.close", "refuse"),
        ("S9", "Runtime.evaluate", "refuse"),  # a session of another tab
    ],
)
def test_session_commands_only_on_the_owned_tab(session: str, method: str, verdict: str) -> None:
    assert session_command_verdict(_pin(), session, method) == verdict


def test_events_of_other_tabs_never_reach_the_job() -> None:
    state = _pin()
    other_attached = {
        "method": "Target.attachedToTarget",
        "params": {"sessionId": "S2", "targetInfo": {"targetId": OTHER}},
    }
    assert not event_visible(state, other_attached)
    assert not state.owns_session("S2")
    assert not event_visible(
        state, {"method": "Target.targetCreated", "params": {"targetInfo": {"targetId": OTHER}}}
    )
    assert event_visible(
        state, {"method": "Target.targetInfoChanged", "params": {"targetInfo": {"targetId": MINE}}}
    )
    assert not event_visible(state, {"method": "Browser.downloadWillBegin", "params": {}})
    assert event_visible(state, {"method": "Page.loadEventFired", "sessionId": "S1"})
    assert not event_visible(state, {"method": "Page.loadEventFired", "sessionId": "S2"})
    # A frame of the owned tab (attached on its session) belongs to it too.
    child = {
        "method": "Target.attachedToTarget",
        "sessionId": "S1",
        "params": {"sessionId": "S3", "targetInfo": {"targetId": "FRAME"}},
    }
    assert event_visible(state, child) and state.owns_session("S3")


def test_target_lists_show_only_the_owned_tab() -> None:
    infos = {"targetInfos": [{"targetId": MINE}, {"targetId": OTHER}]}
    assert filter_result(_pin(), "Target.getTargets", infos) == {
        "targetInfos": [{"targetId": MINE}]
    }


def test_a_recorded_tab_is_an_orphan_only_in_its_browser_once_its_process_is_gone() -> None:
    import os

    import psutil

    from oraculum.browser.transport import is_orphan

    me = psutil.Process()
    alive = {"browserId": BROWSER_ID, "pid": os.getpid(), "createTime": me.create_time()}
    assert not is_orphan(alive, BROWSER_ID)
    dead = {**alive, "createTime": me.create_time() - 1000.0}  # the pid was reused since
    assert is_orphan(dead, BROWSER_ID)
    assert not is_orphan(dead, "another-browser")
    assert not is_orphan({"browserId": BROWSER_ID, "pid": "1"}, BROWSER_ID)
    assert not is_orphan("garbage", BROWSER_ID)


def test_the_tabs_a_job_tab_opened_are_found_down_the_opener_chain() -> None:
    from oraculum.browser.transport import opened_by

    targets = [
        {"targetId": "JOB"},
        {"targetId": "P1", "openerId": "JOB"},
        {"targetId": "P2", "openerId": "P1"},
        {"targetId": "P3", "openerId": "JOB"},
        {"targetId": "USER"},
        {"targetId": "U1", "openerId": "USER"},
    ]
    assert opened_by(targets, "JOB") == ["P1", "P3", "P2"]
    assert opened_by(targets, "P2") == []

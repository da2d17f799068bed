"""`preflight` names the seed's problem precisely, without starting a browser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homes import write_cookie_store
from oraculum.core.config import load_config, seed_profile_dir
from oraculum.core.paths import global_config_path
from oraculum.service.caller import Caller
from oraculum.service.preflight import preflight

store = write_cookie_store


@pytest.fixture
def seed(home: Path) -> Path:
    path = global_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"browser": {"chatUrl": "http://127.0.0.1:9/"}}))
    return seed_profile_dir(load_config().config, "chatgpt")


def problem(result: dict) -> str | None:
    return result.get("error", {}).get("code")


def test_each_seed_problem_is_named(seed: Path) -> None:
    check = lambda: preflight(caller=Caller(session="s1"), provider="chatgpt").to_json()  # noqa: E731
    assert problem(check()) == "auth_seed_profile_missing"
    seed.parent.mkdir(parents=True, exist_ok=True)
    seed.write_text("not a directory")
    assert problem(check()) == "auth_seed_profile_invalid_type"
    seed.unlink()
    seed.mkdir()
    result = check()
    assert problem(result) == "auth_seed_profile_unauthenticated"  # the recovery drill's seed
    assert result["auth"]["problem"] == "auth_seed_profile_unauthenticated"
    assert "oraculum auth chatgpt" in result["error"]["suggestedNextStep"]
    (seed / "Default").mkdir()
    (seed / "Default" / "Cookies").write_bytes(b"this is not sqlite" * 100)
    assert problem(check()) == "auth_seed_profile_unreadable"
    (seed / "Default" / "Cookies").unlink()
    store(seed, ("oraculum-sim-session", "127.0.0.1", 1.0))  # expired long ago
    assert problem(check()) == "auth_seed_profile_unauthenticated"
    (seed / "Default" / "Cookies").unlink()
    store(seed, ("oraculum-sim-session", "evil.example", 4e9), ("_ga", "127.0.0.1", 4e9))
    assert problem(check()) == "auth_seed_profile_unauthenticated"  # wrong host, wrong name
    (seed / "Default" / "Cookies").unlink()
    store(seed, ("oraculum-sim-session", "127.0.0.1", 4e9))
    result = check()
    assert result["ready"] is True and result["auth"] == {
        "ready": True,
        "seedProfileDir": str(seed),
    }


def test_the_real_session_token_counts_on_the_real_origin(home: Path) -> None:
    seed = seed_profile_dir(load_config().config, "chatgpt")
    seed.mkdir(parents=True)
    store(seed, ("__Secure-next-auth.session-token.0", ".chatgpt.com", 4e9))
    assert preflight(caller=Caller(session="s1"), provider="chatgpt").ready is True
    grok = seed_profile_dir(load_config().config, "grok")
    grok.mkdir()
    assert problem(preflight(caller=Caller(session="s1"), provider="grok").to_json()) == (
        "auth_seed_profile_unauthenticated"
    )
    store(grok, ("sso", ".grok.com", 0))
    assert preflight(caller=Caller(session="s1"), provider="grok").ready is True

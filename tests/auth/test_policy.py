"""The cookie policy of reference §8.2: normalisation, keep/drop order, `_account` synthesis."""

from __future__ import annotations

import pytest

from oraculum.auth.policy import (
    CHATGPT_POLICY,
    Cookie,
    apply_policy,
    classify_cookie,
    normalize,
    policy_for,
    unix_expiry,
)

CHAT = "https://chatgpt.com/"
TOKEN = "__Secure-next-auth.session-token"


def row(name: str, domain: str = ".chatgpt.com", **extra) -> dict:
    return {"name": name, "value": f"v-{name}", "domain": domain, **extra}


@pytest.mark.parametrize(
    ("name", "domain", "verdict"),
    [
        # 1. noise, whatever the domain
        ("_ga", "chatgpt.com", "noise"),
        ("_ga_ABC123", "chatgpt.com", "noise"),
        ("_uetsid", "chatgpt.com", "noise"),
        ("__cf_bm", "chatgpt.com", "noise"),
        ("__cflb", "chatgpt.com", "noise"),
        ("_cfuvid", "chatgpt.com", "noise"),
        ("oai-login-csrf_dev_123", "chatgpt.com", "noise"),
        ("__Secure-next-auth.state", "chatgpt.com", "noise"),
        ("__Host-next-auth.csrf-token", "chatgpt.com", "noise"),
        ("oai-nav-state", "chatgpt.com", "noise"),
        ("_ga", "example.com", "noise"),  # noise is checked before the domain
        # 2. foreign domains, even for auth names
        (TOKEN, "example.com", "foreign-domain"),
        (TOKEN, "evil-chatgpt.com", "foreign-domain"),
        ("cf_clearance", "google.com", "foreign-domain"),
        # 3. on a provider domain but not about auth
        ("theme", "chatgpt.com", "non-auth"),
        ("oai-something-new", "chatgpt.com", "non-auth"),
        (TOKEN + ".x", "chatgpt.com", "non-auth"),  # chunk suffixes are digits only
        # 4. kept
        (TOKEN, "chatgpt.com", "keep"),
        (TOKEN + ".0", "chatgpt.com", "keep"),
        (TOKEN + ".1", "chatgpt.com", "keep"),
        ("__Secure-next-auth.callback-url", "chatgpt.com", "keep"),
        ("_account", "chatgpt.com", "keep"),
        ("_puid", "chatgpt.com", "keep"),
        ("oai-did", "chatgpt.com", "keep"),
        ("oai-sc", "openai.com", "keep"),
        ("login_session", "auth.openai.com", "keep"),
        ("cf_clearance", "chatgpt.com", "keep"),
        ("unified_session_manifest", "ws.chatgpt.com", "keep"),
    ],
)
def test_classification_order(name: str, domain: str, verdict: str) -> None:
    cookie = normalize(row(name, domain), "chatgpt.com")
    assert cookie is not None
    assert classify_cookie(cookie, CHATGPT_POLICY, "chatgpt.com") == verdict


def test_a_custom_chat_host_is_an_allowed_domain() -> None:
    cookie = normalize(row(TOKEN, "chat.example.test"), "x")
    assert cookie is not None
    assert classify_cookie(cookie, CHATGPT_POLICY, "chat.example.test") == "keep"


def test_normalisation_defaults_and_spellings() -> None:
    cookie = normalize({"name": "a", "value": "b", "domain": ".ChatGPT.com"}, "chatgpt.com")
    assert cookie == Cookie("a", "b", "chatgpt.com", "/", None, True, False, None)
    cookie = normalize({"name": "a", "value": "b"}, "chatgpt.com")
    assert cookie is not None and cookie.domain == "chatgpt.com"  # the chat host by default
    cookie = normalize(
        {"name": "a", "is_secure": 0, "http_only": 1, "same_site": "Strict", "path": "/x"}, "h"
    )
    assert cookie is not None
    assert (cookie.secure, cookie.http_only, cookie.same_site, cookie.path) == (
        False,
        True,
        "Strict",
        "/x",
    )
    for odd in ("lax", "no_restriction", "unspecified", 1):
        cookie = normalize({"name": "a", "sameSite": odd}, "h")
        assert cookie is not None and cookie.same_site is None  # only exact Lax|Strict|None
    assert normalize({"name": "", "value": "x"}, "h") is None


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [
        (1_900_000_000, 1_900_000_000),  # seconds
        (1_900_000_000_000, 1_900_000_000),  # milliseconds
        ((1_900_000_000 + 11_644_473_600) * 1_000_000, 1_900_000_000),  # Chromium µs since 1601
        (0, None),
        (-1, None),
        (None, None),
        ("garbage", None),
    ],
)
def test_expiry_units(raw: object, seconds: float | None) -> None:
    found = unix_expiry(raw)
    assert found == seconds if seconds is None else found == pytest.approx(seconds)


def test_duplicates_first_wins_and_everything_is_accounted_for() -> None:
    rows = [
        row(TOKEN, value="first"),
        row(TOKEN, value="second"),
        row("_ga"),
        row("theme"),
        row(TOKEN, "example.com"),
    ]
    rows[0]["value"], rows[1]["value"] = "first", "second"
    result = apply_policy(rows, CHATGPT_POLICY, CHAT)
    tokens = [c for c in result.kept if c.name == TOKEN]
    assert [c.value for c in tokens] == ["first"]
    assert dict(result.dropped) == {
        f"{TOKEN}@chatgpt.com": "duplicate",
        "_ga@chatgpt.com": "noise",
        "theme@chatgpt.com": "non-auth",
        f"{TOKEN}@example.com": "foreign-domain",
    }
    assert result.has_session


@pytest.mark.parametrize(
    ("fedramp", "expected"),
    [
        (None, "personal"),
        ("1", "fedramp"),
        ("TRUE", "fedramp"),
        ("yes", "fedramp"),
        ("0", "personal"),
    ],
)
def test_account_is_synthesized_when_missing(fedramp: str | None, expected: str) -> None:
    rows = [row(TOKEN)]
    if fedramp is not None:
        rows.append(row("_account_is_fedramp", value=fedramp))
        rows[-1]["value"] = fedramp
    result = apply_policy(rows, CHATGPT_POLICY, CHAT)
    account = next(c for c in result.kept if c.name == "_account")
    assert result.account_synthesized
    assert (account.value, account.domain, account.path) == (expected, "chatgpt.com", "/")
    assert (account.secure, account.http_only, account.same_site) == (True, False, "Lax")


def test_an_existing_account_is_kept_not_replaced() -> None:
    rows = [row(TOKEN), row("_account")]
    rows[1]["value"] = "team-123"
    result = apply_policy(rows, CHATGPT_POLICY, CHAT)
    assert [c.value for c in result.kept if c.name == "_account"] == ["team-123"]
    assert not result.account_synthesized


def test_no_session_token_is_reported() -> None:
    result = apply_policy([row("_puid"), row("cf_clearance")], CHATGPT_POLICY, CHAT)
    assert not result.has_session
    assert "session token: missing" in result.log_lines()[2]


def test_log_lines_never_hold_values() -> None:
    result = apply_policy([row(TOKEN), row("_ga")], CHATGPT_POLICY, CHAT)
    text = "\n".join(result.log_lines())
    assert f"{TOKEN}@chatgpt.com" in text and "v-" not in text
    assert "v-" not in repr(result.kept[0])


def test_the_lookalike_session_counts_only_on_a_loopback_chat_url() -> None:
    sim = [{"name": "oraculum-sim-session", "value": "t", "domain": "127.0.0.1"}]
    local = apply_policy(
        sim, policy_for("chatgpt", "http://127.0.0.1:8765/"), "http://127.0.0.1:8765/"
    )
    assert local.has_session and local.kept[0].name == "oraculum-sim-session"
    real = [{"name": "oraculum-sim-session", "value": "t", "domain": "chatgpt.com"}]
    remote = apply_policy(real, policy_for("chatgpt", CHAT), CHAT)
    assert not remote.has_session and remote.dropped[0][1] == "non-auth"


def test_grok_keeps_its_session_and_needs_no_account() -> None:
    rows = [
        {"name": "sso", "value": "s", "domain": ".grok.com"},
        {"name": "sso-rw", "value": "s", "domain": ".grok.com"},
        {"name": TOKEN, "value": "s", "domain": ".chatgpt.com"},
        {"name": "_ga", "value": "s", "domain": ".grok.com"},
    ]
    result = apply_policy(rows, policy_for("grok", "https://grok.com/"), "https://grok.com/")
    assert [c.label for c in result.kept] == ["sso@grok.com", "sso-rw@grok.com"]
    assert result.has_session and not result.account_synthesized


def test_playwright_form_of_a_cookie() -> None:
    cookie = Cookie("n", "v", "chatgpt.com", "/", 1_900_000_000.0, True, True, "Lax")
    assert cookie.to_playwright() == {
        "name": "n",
        "value": "v",
        "domain": "chatgpt.com",
        "path": "/",
        "secure": True,
        "httpOnly": True,
        "expires": 1_900_000_000.0,
        "sameSite": "Lax",
    }
    session = Cookie("n", "v", "chatgpt.com").to_playwright()
    assert "expires" not in session and "sameSite" not in session

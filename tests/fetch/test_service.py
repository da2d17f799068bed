"""The fetch's decisions without a browser: which URLs start one, and what a render becomes."""

from __future__ import annotations

import pytest

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.fetch.page import Snapshot, bounded, judge, page_markdown
from oraculum.fetch.proxy import Denial, Unreachable
from oraculum.fetch.render import Rendered
from oraculum.fetch.service import check_url, outcome

from .support import TEST_POLICY

READABLE = "Plenty of readable words on this page. " * 10


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.org/",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "data:text/html,hi",
        "chrome://settings",
        "ws://example.org/",
        "http://user:pw@example.org/",
        "http://example.org:99999/",
        "http://example.org:x/",
        "http:///nohost",
        "http://exa mple.org/",
        "http://example.org/\n",
        "http://256.1.1.1/",
        "http://" + "a" * 9000 + ".org/",
    ],
)
def test_urls_it_will_not_fetch(url: str) -> None:
    with pytest.raises(OracleError) as caught:
        check_url(url)
    assert caught.value.code == ErrorCode.FETCH_URL_INVALID


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://127.1/",
        "http://2130706433/",
        "http://0x7f000001/",
        "http://017700000001/",
        "http://0.0.0.0:8080/",
        "http://[::]/",
        "http://[::1]:8080/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:a9fe:a9fe]/",
        "http://[fe80::1%25eth0]/",
        "https://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://[64:ff9b::a00:1]/",
    ],
)
def test_non_public_address_literals_are_refused_before_any_browser(url: str) -> None:
    with pytest.raises(OracleError) as caught:
        check_url(url)
    assert caught.value.code == ErrorCode.FETCH_ADDRESS_BLOCKED


@pytest.mark.parametrize(
    "url", ["http://example.org:6379/", "http://example.org:9200/x", "https://example.org:22/"]
)
def test_ports_that_are_not_web_ports_are_refused_before_any_browser(url: str) -> None:
    with pytest.raises(OracleError) as caught:
        check_url(url)
    assert caught.value.code == ErrorCode.FETCH_ADDRESS_BLOCKED
    assert "is not a web port" in caught.value.message


def test_public_urls_and_names_pass_the_entry_check() -> None:
    for url in ("https://example.org/a?b=c", "http://8.8.8.8/", "http://[2606:4700::1]/"):
        assert check_url(url) == url
    assert check_url("http://127.0.0.2:8080/", TEST_POLICY) == "http://127.0.0.2:8080/"


def snapshot(text: str = READABLE, title: str = "A page", html: str = "") -> Snapshot:
    return Snapshot(title=title, text=text, html=html or f"<h1>{title}</h1><p>{text}</p>")


def rendered(**fields: object) -> Rendered:
    base: dict[str, object] = {
        "requested_url": "https://example.org/",
        "final_url": "https://example.org/",
        "status": 200,
        "snapshot": snapshot(),
    }
    return Rendered(**{**base, **fields})  # type: ignore[arg-type]


def test_a_readable_page_becomes_a_result() -> None:
    denial = Denial("10.0.0.1", 80, ("10.0.0.1",), "10.0.0.1 is private (RFC 1918)")
    result = outcome(rendered(denials=[denial, denial]))
    assert result.title == "A page"
    assert result.markdown.startswith("# A page")
    assert result.blocked == [denial.to_dict()]  # each destination once


@pytest.mark.parametrize(
    ("fields", "code", "kind"),
    [
        ({"status": 401}, ErrorCode.FETCH_PAGE_BLOCKED, "login"),
        ({"status": 429}, ErrorCode.FETCH_PAGE_BLOCKED, "anti_bot"),
        (
            {"snapshot": snapshot("Please complete the CAPTCHA")},
            ErrorCode.FETCH_PAGE_BLOCKED,
            "captcha",
        ),
        (
            {"snapshot": snapshot("Checking your browser before accessing")},
            ErrorCode.FETCH_PAGE_BLOCKED,
            "anti_bot",
        ),
        (
            {"snapshot": snapshot("Sign in to continue to Mail")},
            ErrorCode.FETCH_PAGE_BLOCKED,
            "login",
        ),
        (
            {"final_url": "https://example.org/?js_challenge=1"},
            ErrorCode.FETCH_PAGE_BLOCKED,
            "anti_bot",
        ),
        ({"status": 500}, ErrorCode.FETCH_HTTP_ERROR, "http_error"),
        ({"snapshot": snapshot("tiny")}, ErrorCode.FETCH_UNREADABLE, "unreadable"),
    ],
)
def test_pages_that_cannot_be_read_are_reported(
    fields: dict[str, object], code: ErrorCode, kind: str
) -> None:
    with pytest.raises(OracleError) as caught:
        outcome(rendered(**fields))
    assert caught.value.code == code
    assert caught.value.details["kind"] == kind


def test_a_sign_in_form_on_a_short_page_is_a_login() -> None:
    form = Snapshot("Account", READABLE[:300], "<form></form>", password_fields=1)
    assert judge(form, 200, "https://example.org/").kind == "login"
    long_page = Snapshot("Blog", READABLE * 10, "<p></p>", password_fields=1)
    assert judge(long_page, 200, "https://example.org/").ok


def test_no_snapshot_is_a_timeout_or_a_failure() -> None:
    with pytest.raises(OracleError) as caught:
        outcome(rendered(snapshot=None, error="net::ERR_NAME_NOT_RESOLVED"))
    assert caught.value.code == ErrorCode.FETCH_FAILED
    with pytest.raises(OracleError) as caught:
        outcome(rendered(snapshot=None, error="Timeout 20000ms exceeded.", timed_out=True))
    assert caught.value.code == ErrorCode.FETCH_TIMEOUT


def test_an_unreachable_page_is_a_retryable_failure_not_a_refusal() -> None:
    failure = Unreachable(
        "gone.test", 443, (), "gone.test did not resolve (Name or service not known)"
    )
    with pytest.raises(OracleError) as caught:
        outcome(
            rendered(main_failure=failure, snapshot=None, error="net::ERR_TUNNEL_CONNECTION_FAILED")
        )
    assert caught.value.code == ErrorCode.FETCH_FAILED and caught.value.retryable
    assert "gone.test did not resolve" in caught.value.message


def test_a_refused_page_is_address_blocked() -> None:
    denial = Denial("internal.test", 443, ("10.0.0.5",), "10.0.0.5 is private (RFC 1918)")
    with pytest.raises(OracleError) as caught:
        outcome(rendered(main_denial=denial, denials=[denial]))
    assert caught.value.code == ErrorCode.FETCH_ADDRESS_BLOCKED
    assert caught.value.details["blocked"][0]["addresses"] == ["10.0.0.5"]


def test_markdown_drops_scripts_styles_and_images_and_collapses_blank_runs() -> None:
    html = "<h2>Title</h2>\n\n\n\n<p>one <a href='/x'>link</a></p><img src='a.png'><p>two</p>"
    assert page_markdown(snapshot(html=html)) == "## Title\n\none [link](/x)\n\ntwo"


def test_bounded_cuts_at_a_line_end_and_says_so() -> None:
    text = "\n".join(f"line {i}" for i in range(20_000))
    cut, truncated = bounded(text, 1_000)
    assert truncated
    assert len(cut) <= 1_000
    assert cut.splitlines()[-1] == "line " + cut.splitlines()[-1].split()[-1]  # a whole line
    assert text.startswith(cut + "\n")
    assert bounded("short", 1_000) == ("short", False)

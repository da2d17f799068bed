"""Issue 37 §1: the obstacle layer's pure dismissal policy, exhaustively (Escape first, then a
dismiss button, never a forbidden one; a forbidden phrase wins), and its error."""

from __future__ import annotations

import pytest

from oraculum.core.errors import ErrorCode
from oraculum.providers.chatgpt import vocabulary as chatgpt_vocab
from oraculum.providers.gemini import vocabulary as gemini_vocab
from oraculum.providers.grok import vocabulary as grok_vocab
from oraculum.providers.obstacles import (
    ESCAPE,
    Obstacle,
    intercepting_element,
    next_step,
    page_obstructed,
)

POLICIES = pytest.mark.parametrize(
    "policy",
    [
        chatgpt_vocab.obstacle_vocabulary().policy,
        grok_vocab.obstacle_vocabulary().policy,
        gemini_vocab.obstacle_vocabulary().policy,
    ],
    ids=["chatgpt", "grok", "gemini"],
)


def dialog(*buttons: str, name: str = "Try the new canvas") -> Obstacle:
    return Obstacle("modal", "dialog", name, tuple(buttons))


def steps(obstacle: Obstacle, policy) -> list[str]:
    """Every step the policy offers, in order, until it has nothing left."""
    tried: list[str] = []
    while (step := next_step(obstacle, tried, policy)) is not None:
        tried.append(step)
    return tried


@POLICIES
def test_escape_comes_first_then_the_dismiss_button_never_try_it(policy) -> None:
    assert steps(dialog("Try it", "Not now"), policy) == [ESCAPE, "Not now"]


@POLICIES
@pytest.mark.parametrize(
    "name",
    [
        "Not now",
        "Maybe later",
        "Close",
        "Close dialog",
        "Dismiss",
        "Got it",
        "No thanks",
        "Reject non-essential",
        "Necessary cookies only",
        "Reject all",
        "×",
        "  not NOW ",
    ],
)
def test_every_dismiss_label_is_pressed(policy, name: str) -> None:
    assert policy.dismisses(name)
    assert steps(dialog(name), policy) == [ESCAPE, name]


@POLICIES
@pytest.mark.parametrize(
    "name",
    [
        "Try it",
        "Upgrade",
        "Upgrade to Pro",
        "Accept all",
        "Accept all cookies",
        "Get started",
        "Enable",
        "Turn on",
        "Subscribe",
        "Buy now",
        "Start free trial",
        "Switch model",
        "Continue",
        "",
    ],
)
def test_forbidden_or_unknown_controls_are_never_pressed(policy, name: str) -> None:
    assert not policy.dismisses(name)
    assert steps(dialog(name), policy) == [ESCAPE]


@POLICIES
@pytest.mark.parametrize(
    ("name", "dismiss_part"),
    [
        ("Close and upgrade", "Close"),
        ("Got it, turn on", "Got it"),
        ("Not now, try it later", "Not now"),
        ("Dismiss & Enable", "Dismiss"),
        ("Reject all and subscribe", "Reject all"),
    ],
)
def test_a_forbidden_phrase_wins_over_a_dismiss_phrase(policy, name: str, dismiss_part) -> None:
    assert policy.dismisses(dismiss_part)
    assert not policy.dismisses(name)
    assert steps(dialog(name), policy) == [ESCAPE]


@POLICIES
def test_whole_words_only(policy) -> None:
    # "Closed captions" holds "close" only as a part of a word; "Reuse" is not "Use".
    assert not policy.dismisses("Closed captions")
    assert policy.dismisses("Close") and not policy.forbids("Close")
    assert not policy.forbids("Reuse draft")


@POLICIES
def test_dismiss_buttons_are_tried_in_the_vocabulary_order_each_once(policy) -> None:
    consent = Obstacle(
        "covering", "region", "Cookie consent", ("Accept all", "Reject all", "Close", "Not now")
    )
    assert steps(consent, policy) == [ESCAPE, "Not now", "Close", "Reject all"]


@POLICIES
def test_no_buttons_means_escape_only(policy) -> None:
    backdrop = Obstacle("covering", "div", "Updating your workspace", ())
    assert next_step(backdrop, [], policy) == ESCAPE
    assert next_step(backdrop, [ESCAPE], policy) is None


def test_page_obstructed_names_role_name_wanted_and_what_was_tried() -> None:
    blocker = dialog("Upgrade", "Accept all", name="Your plan needs an upgrade")
    error = page_obstructed(blocker, "Send", [ESCAPE])
    assert error.code == ErrorCode.PAGE_OBSTRUCTED == "page_obstructed"
    assert 'dialog "Your plan needs an upgrade" covers Send' in error.message
    assert '"Upgrade", "Accept all"' in error.message
    assert error.details == {
        "wanted": "Send",
        "observed": blocker.to_json(),
        "tried": [ESCAPE],
    }
    assert error.retryable


def test_unnamed_obstacle_is_described_by_its_role() -> None:
    assert Obstacle("covering", "div", "", ()).describe() == "div (unnamed)"


def test_the_intercepting_element_is_read_from_playwrights_error() -> None:
    message = (
        "Locator.click: Timeout 15000ms exceeded.\nCall log:\n  - waiting for locator\n"
        '  -   <div data-testid="obstacle_backdrop">…</div> intercepts pointer events\n'
        "  - retrying click action"
    )
    assert intercepting_element(message) == 'div data-testid="obstacle_backdrop"'
    assert intercepting_element("Timeout 15000ms exceeded.") is None

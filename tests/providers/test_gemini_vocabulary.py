"""Gemini's page classifier and mode names, read with its vocabulary (pure); the one-vocabulary
check is `test_site_vocabularies`'s."""

from __future__ import annotations

from oraculum.providers.gemini import vocabulary
from oraculum.providers.gemini.model import current_mode
from oraculum.providers.gemini.page_state import GeminiObservation, PageState, classify

ORIGINS = frozenset({"https://gemini.google.com"})


def seen(**changes: object) -> GeminiObservation:
    base = {
        "url": "https://gemini.google.com/app",
        "scoped_text": "",
        "signed_in": True,
        "login_cta": False,
        "composer_present": True,
        "editable": True,
        "tools_present": True,
    }
    return GeminiObservation(**{**base, **changes})  # type: ignore[arg-type]


def test_a_signed_in_composer_is_ready() -> None:
    assert classify(seen(), ORIGINS).state == PageState.READY


def test_a_working_composer_signed_out_is_login_required_not_a_blocker() -> None:
    """Facts §1.2: signed-out Gemini keeps its composer; only the job needs the account."""
    result = classify(seen(signed_in=False, login_cta=True), ORIGINS)
    assert result.state == PageState.LOGIN_REQUIRED
    assert "signed-in Google account" in result.reason


def test_a_sign_in_link_beside_the_account_marker_does_not_block() -> None:
    assert classify(seen(login_cta=True), ORIGINS).state == PageState.READY


def test_google_sign_in_and_a_challenge_are_named() -> None:
    redirected = seen(url="https://accounts.google.com/ServiceLogin?continue=x")
    assert classify(redirected, ORIGINS).state == PageState.LOGIN_REQUIRED
    challenge = seen(scoped_text="Our systems have detected unusual traffic from your network.")
    assert classify(challenge, ORIGINS).state == PageState.CHALLENGE_BLOCKING


def test_the_current_mode_is_read_from_the_openers_name() -> None:
    assert current_mode("Open mode picker, currently Pro") == "Pro"
    assert current_mode("Open mode picker, currently Deep Think") == "Deep Think"
    assert current_mode("Open mode picker") == ""


def test_the_current_mode_and_the_mode_names_in_other_languages() -> None:
    """Facts §1.4: the opener and the items are localized (Vietnamese, Korean, Portuguese)."""
    assert current_mode("Mở công cụ chọn chế độ, hiện tại là Flash") == "Flash"
    assert current_mode("打开模式选择器，当前为 专业") == "专业"
    assert vocabulary.mode_names("fast")[:2] == ("Fast", "Flash")
    assert {"빠른 모드", "Rápido", "快速"} <= set(vocabulary.mode_names("fast"))
    assert "사고 모드" in vocabulary.mode_names("thinking")
    assert vocabulary.TOOLS_NAME.match("Nội dung tải lên và công cụ")
    assert vocabulary.UPLOAD_ENTRY.match("파일 업로드. 문서, 데이터, 코드 파일")
    assert "대답 생성 중지" in vocabulary.STOP_LABELS

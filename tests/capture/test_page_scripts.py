"""Packaged page scripts and the shared scripts their `// @use` lines bind around them."""

from __future__ import annotations

from importlib import resources

import pytest
from playwright.async_api import Browser

from oraculum.capture.page import packaged_script
from oraculum.providers.chatgpt import vocabulary as chatgpt_vocabulary
from oraculum.providers.grok import vocabulary as grok_vocabulary


def _file(package: str, relative: str) -> str:
    return resources.files(package).joinpath(relative).read_text(encoding="utf-8")


def test_a_script_that_uses_nothing_is_its_file() -> None:
    assert packaged_script("oraculum.capture", "download.js") == _file(
        "oraculum.capture", "download.js"
    )


CAPTURE_RULES = ("oraculum.capture", "capture_rules.js")
SCOPED_TEXT = ("oraculum.providers", "js/scoped_text.js")


@pytest.mark.parametrize(
    ("package", "relative", "shared"),
    [
        ("oraculum.capture", "capture.js", CAPTURE_RULES),
        ("oraculum.providers.grok", "js/messages.js", CAPTURE_RULES),
        ("oraculum.providers.chatgpt", "js/observe.js", SCOPED_TEXT),
        ("oraculum.providers.grok", "js/observe.js", SCOPED_TEXT),
    ],
)
def test_a_script_carries_the_one_copy_of_what_it_uses(
    package: str, relative: str, shared: tuple[str, str]
) -> None:
    text = packaged_script(package, relative)
    assert _file(*shared) in text and _file(package, relative) in text
    assert text.lstrip().startswith("//")


# A page where the conversation holds text the classifier must not read as page text.
_PAGE = """
<div role="alert">Something went wrong</div>
<div data-message-author-role="assistant">an answer that says Something else</div>
<div class="message-bubble">a Grok reply</div>
<script>var hidden = "script text";</script>
<p>Log in to continue</p>
"""


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.asyncio(loop_scope="module")
async def test_both_observers_read_the_page_text_outside_the_conversation(
    browser: Browser,
) -> None:
    page = await browser.new_page()
    try:
        await page.set_content(_PAGE)
        chatgpt = await page.evaluate(
            packaged_script("oraculum.providers.chatgpt", "js/observe.js"),
            chatgpt_vocabulary.page_vocabulary(),
        )
        grok = await page.evaluate(
            packaged_script("oraculum.providers.grok", "js/observe.js"),
            grok_vocabulary.page_vocabulary(),
        )
    finally:
        await page.close()
    assert "Something went wrong" in chatgpt["scopedText"]
    assert "Log in to continue" in chatgpt["scopedText"]
    assert "an answer" not in chatgpt["scopedText"]
    assert "script text" not in chatgpt["scopedText"]
    assert "Something went wrong" in grok["scopedText"]
    assert "a Grok reply" not in grok["scopedText"]
    assert "script text" not in grok["scopedText"]

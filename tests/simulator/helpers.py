"""Driving the simulator the way a person does: by role and accessible name."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Locator, Page, expect

from oraculum.simulator.uploads import tar_zst

LABELS = {
    "classic": {"composer": "Chat with ChatGPT", "send": "Send prompt", "stop": "Stop answering"},
    "redesign": {"composer": "Ask ChatGPT", "send": "Send", "stop": "Stop"},
}
SHELLS = tuple(LABELS)


def make_tar_zst(path: Path, files: dict[str, bytes]) -> str:
    """Write a .tar.zst with `files` (as the simulator builds one); return its sha256."""
    data = tar_zst(files)
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def composer(page: Page, shell: str) -> Locator:
    return page.get_by_role("textbox", name=LABELS[shell]["composer"], exact=True)


def send_button(page: Page, shell: str) -> Locator:
    return page.get_by_role("button", name=LABELS[shell]["send"], exact=True)


def stop_button(page: Page, shell: str) -> Locator:
    return page.get_by_role("button", name=LABELS[shell]["stop"], exact=True)


def assistant_turns(page: Page) -> Locator:
    return page.locator('[data-message-author-role="assistant"]')


async def wait_editable(page: Page) -> None:
    """The composer hydrates from a non-editable fallback (facts §1.2)."""
    await page.wait_for_function(
        "() => document.querySelector('#prompt-textarea')?.isContentEditable === true"
    )


async def attach(page: Page, path: Path) -> None:
    await page.get_by_role("button", name="Add files and more").click()
    await page.locator("input[type=file]").set_input_files(str(path))
    # The chip near the composer is named exactly with the file name.
    await expect(page.get_by_role("button", name=path.name, exact=True)).to_be_visible()


async def send(page: Page, shell: str, text: str) -> None:
    await wait_editable(page)
    await composer(page, shell).fill(text)
    await expect(send_button(page, shell)).to_be_enabled()
    await send_button(page, shell).click()


async def wait_answer_done(page: Page, shell: str, count: int = 1) -> None:
    await expect(assistant_turns(page)).to_have_count(count)
    await expect(page.locator('[data-testid="stop-button"]')).to_have_count(0)
    # Each committed turn has its action bar ("Copy" fresh, "Copy response" after a reload).
    await expect(page.get_by_role("group", name="Response actions")).to_have_count(count)


async def raise_power_twice(page: Page, power: Locator) -> None:
    """Focus the power slider's menu item and press Right twice: Medium (2 of 5) becomes
    Extra High (4 of 5), as its accessible description says."""
    await power.focus()
    assert await power.evaluate("e => document.activeElement === e")
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("ArrowRight")
    await expect(power).to_have_accessible_description(
        "Extra High, 4 of 5. Use Left and Right arrow keys to adjust power."
    )


async def eventually(read: Callable[[], Any], expected: Any, timeout: float = 5.0) -> None:
    """Poll `read()` until it equals `expected` (server state changes after a page request)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = read()
        if value == expected:
            return
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"expected {expected!r}, still {value!r} after {timeout}s")
        await asyncio.sleep(0.05)


# The binding a careful driver makes (issue 13 §1): among the user turns, the one that shows the
# archive (its text or a chip named with it); then the first assistant turn after it in document
# order. Returns how many user turns show the archive and that assistant turn's index.
_REPLY_AFTER_ARCHIVE_JS = """(name) => {
  const users = [...document.querySelectorAll('[data-message-author-role="user"]')];
  const assistants = [...document.querySelectorAll('[data-message-author-role="assistant"]')];
  const shows = (u) => (u.textContent || "").includes(name)
    || [...u.querySelectorAll("[aria-label]")].some((e) => e.getAttribute("aria-label") === name);
  const anchors = users.filter(shows);
  if (anchors.length !== 1) return { anchors: anchors.length, index: null };
  const after = Node.DOCUMENT_POSITION_FOLLOWING;
  const follows = (a) => !!(anchors[0].compareDocumentPosition(a) & after);
  const index = assistants.findIndex(follows);
  return { anchors: 1, index: index < 0 ? null : index };
}"""

# Each turn as a driver reads it: its role, the sr-only heading whose next sibling holds it, and
# its message-id attributes (on the element, or on the redesigned body around it).
_TURN_VOCABULARY_JS = """() => {
  const headings = [...document.querySelectorAll("h1,h2,h3,h4,h5,h6")];
  return [...document.querySelectorAll("[data-message-author-role]")].map((el) => {
    const heading = headings.find((h) => h.nextElementSibling
      && (h.nextElementSibling === el || h.nextElementSibling.contains(el)));
    const selection = el.closest("[data-chatgpt-selection-message-id]");
    return {
      role: el.getAttribute("data-message-author-role"),
      heading: heading ? heading.textContent.trim() : null,
      messageId: el.getAttribute("data-message-id"),
      selectionId: selection ? selection.getAttribute("data-chatgpt-selection-message-id") : null,
    };
  });
}"""


async def reply_after_archive(page: Page, archive_name: str) -> tuple[int, int | None]:
    """(user turns showing `archive_name`, index of the first assistant turn after that one)."""
    found = await page.evaluate(_REPLY_AFTER_ARCHIVE_JS, archive_name)
    return found["anchors"], found["index"]


async def turn_vocabulary(page: Page) -> list[dict[str, Any]]:
    return await page.evaluate(_TURN_VOCABULARY_JS)  # type: ignore[no-any-return]


async def assistant_texts(page: Page) -> list[str]:
    return await assistant_turns(page).all_inner_texts()


async def assistant_ids(page: Page) -> list[str | None]:
    return await assistant_turns(page).evaluate_all(
        "es => es.map(e => e.getAttribute('data-message-id'))"
    )

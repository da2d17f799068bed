"""Driving the Grok look-alike the way a person does: by role and accessible name (facts §5)."""

from __future__ import annotations

import hashlib
import io
import re
import tarfile
from pathlib import Path

from playwright.async_api import Locator, Page, expect

COMPOSER = "Ask Grok anything"
# A model menu item's accessible name is its title then its description ("Heavy Team of experts").
HEAVY = re.compile(r"^Heavy")
THOUGHT = re.compile(r"^Thought for \d+s$")
ASSISTANT_ACTIONS = ("Regenerate", "Copy", "Like", "Dislike", "More actions")


def tar_gz(files: dict[str, bytes]) -> bytes:
    """A .tar.gz holding `files` (what Grok is sent; ChatGPT's .tar.zst is the simulator's)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    return raw.getvalue()


def make_tar_gz(path: Path, files: dict[str, bytes]) -> str:
    """Write a .tar.gz with `files`; return its sha256."""
    data = tar_gz(files)
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def composer(page: Page) -> Locator:
    return page.get_by_role("textbox", name=COMPOSER, exact=True)


def submit(page: Page) -> Locator:
    return page.get_by_role("button", name="Submit", exact=True)


def stop(page: Page) -> Locator:
    return page.get_by_role("button", name="Stop model response", exact=True)


def model_select(page: Page) -> Locator:
    return page.get_by_role("button", name="Model select", exact=True)


def user_rows(page: Page) -> Locator:
    """User messages: their bubble says data-testid="user-message"; its row holds "Edit"."""
    return page.locator('.message-bubble[data-testid="user-message"]')


def assistant_rows(page: Page) -> Locator:
    """Assistant messages as facts §5 finds them: a `.message-bubble` that is not a user one,
    taken up to its closest `.group` row (which holds the action buttons)."""
    return page.locator('.group:has(> .message-bubble:not([data-testid="user-message"]))')


async def wait_editable(page: Page) -> None:
    await page.wait_for_function(
        "() => document.querySelector('[contenteditable=\"true\"][role=textbox]') !== null"
    )


async def attach(page: Page, path: Path) -> None:
    await page.get_by_role("button", name="Attach", exact=True).click()
    await page.locator("input[type=file]").set_input_files(str(path))
    await page.keyboard.press("Escape")
    chip = page.get_by_role("group", name=path.name, exact=True)
    await expect(chip).to_have_attribute("data-state", "done")


async def send(page: Page, text: str) -> None:
    await wait_editable(page)
    await composer(page).fill(text)
    await expect(submit(page)).to_be_enabled()
    await submit(page).click()


async def wait_answer_done(page: Page, count: int = 1) -> None:
    await expect(assistant_rows(page)).to_have_count(count)
    await expect(stop(page)).to_have_count(0)
    # A finished reply carries its action buttons.
    await expect(
        assistant_rows(page).nth(count - 1).get_by_role("button", name="Regenerate")
    ).to_be_visible()


async def pick_model(page: Page, name: re.Pattern[str] | str) -> None:
    await model_select(page).click()
    await page.get_by_role("menuitemradio", name=name).click()
    await expect(model_select(page)).to_have_attribute("aria-expanded", "false")


async def reply_text(row: Locator) -> str:
    """A reply's text as facts §5 reads it: without buttons, the thinking line, or the chrome."""
    return await row.evaluate(
        """(row) => {
            const copy = row.cloneNode(true);
            copy.querySelectorAll('button, .thinking-container, [aria-label="Copy"],'
              + ' [aria-label="Like"], [aria-label="Dislike"], [aria-label="Regenerate"],'
              + ' [aria-label="More actions"]').forEach((e) => e.remove());
            document.body.append(copy);
            const text = copy.innerText.replace(/\\n{3,}/g, "\\n\\n").trim();
            copy.remove();
            return text;
        }"""
    )

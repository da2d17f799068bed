"""The Playwright driver starts with Node's compile cache: in the user's cache directory
(private), or where ``NODE_COMPILE_CACHE`` already points; a real driver start fills it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from homes import headless_browser
from oraculum.browser.chromium import launch_args, playwright_driver


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Set, then removed: monkeypatch then restores the variable as it was before the test,
    # whatever the driver set in between.
    monkeypatch.setenv("NODE_COMPILE_CACHE", "")
    monkeypatch.delenv("NODE_COMPILE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.browser
async def test_the_driver_compiles_into_a_private_cache_the_next_start_reads(
    cache_home: Path,
) -> None:
    async with playwright_driver() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(headless_browser()), args=launch_args(), headless=True
        )
        page = await browser.new_page()
        await page.set_content("<p id=ok>ready</p>")
        assert await page.inner_text("#ok") == "ready"
        await browser.close()
    cache = cache_home / "oraculum" / "node-compile-cache"
    assert os.environ["NODE_COMPILE_CACHE"] == str(cache)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    written = [p for p in cache.rglob("*") if p.is_file()]
    assert written, "Node wrote no compile cache"
    assert sum(p.stat().st_size for p in written) > 100_000  # Playwright's bundle, compiled


def test_a_cache_the_user_set_is_kept(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NODE_COMPILE_CACHE", "/somewhere/else")
    manager = playwright_driver()
    assert os.environ["NODE_COMPILE_CACHE"] == "/somewhere/else"
    assert not cache_home.exists()
    del manager  # never entered: no driver started


def test_an_unwritable_cache_place_is_only_slower(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_home.parent.mkdir(parents=True, exist_ok=True)
    cache_home.write_text("a file where the cache directory would go")
    playwright_driver()
    assert "NODE_COMPILE_CACHE" not in os.environ

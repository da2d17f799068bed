"""`selfcheck`: is this machine able to run oraculum jobs at all?"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from oraculum import __version__
from oraculum.browser.chromium import launch_args, resolve_executable
from oraculum.core.errors import OracleError
from oraculum.core.fsio import ensure_private_dir
from oraculum.core.paths import data_dir, jobs_dir, state_dir


def _writable(label: str, path: Path) -> dict[str, Any]:
    try:
        ensure_private_dir(path)
        ok = os.access(path, os.W_OK | os.X_OK)
        return {"check": label, "ok": ok, "detail": str(path)}
    except OSError as exc:
        return {"check": label, "ok": False, "detail": f"{path}: {exc.strerror}"}


async def launch_blank(executable: Path, extra_args: tuple[str, ...] = ()) -> str:
    """Launch ``executable`` headless on a blank page and read it back ("ready" when it works);
    `doctor` runs the same launch with the configured browser arguments."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(executable), headless=True, args=launch_args(extra_args)
        )
        try:
            page = await browser.new_page()
            await page.set_content("<title>oraculum</title><p id=ok>ready</p>")
            return await page.inner_text("#ok")
        finally:
            await browser.close()


def selfcheck(*, launch_browser: bool = True) -> dict[str, Any]:
    checks = [
        {"check": "python", "ok": sys.version_info >= (3, 11), "detail": sys.version.split()[0]},
        _writable("jobs dir", jobs_dir()),
        _writable("state dir", state_dir()),
        _writable("data dir", data_dir()),
    ]
    try:
        executable = resolve_executable(None)
        checks.append({"check": "chromium", "ok": True, "detail": str(executable)})
        if launch_browser:
            text = asyncio.run(launch_blank(executable))
            checks.append({"check": "chromium launch", "ok": text == "ready", "detail": text})
    except OracleError as error:
        checks.append({"check": "chromium", "ok": False, "detail": error.message})
    except Exception as exc:  # a launch failure is a finding, not a crash
        checks.append({"check": "chromium launch", "ok": False, "detail": str(exc)[:500]})
    return {"version": __version__, "ok": all(c["ok"] for c in checks), "checks": checks}

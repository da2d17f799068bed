"""`selfcheck`: is this machine able to run oraculum jobs at all?"""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oraculum import __version__
from oraculum.browser.chromium import launch_args, playwright_driver, resolve_executable
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.fsio import ensure_private_dir
from oraculum.core.paths import data_dir, jobs_dir, state_dir
from oraculum.core.surface import Surface

__all__ = ["SelfCheck", "SelfcheckReport", "launch_blank", "selfcheck"]


@dataclass(frozen=True)
class SelfCheck:
    check: str
    ok: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"check": self.check, "ok": self.ok, "detail": self.detail}


@dataclass(frozen=True)
class SelfcheckReport:
    """Whether this machine can run jobs; a failing one carries `selfcheck_failed`."""

    version: str
    checks: tuple[SelfCheck, ...]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def error(self) -> OracleError | None:
        failed = [c.check for c in self.checks if not c.ok]
        if not failed:
            return None
        return OracleError(
            ErrorCode.SELFCHECK_FAILED,
            f"Self-check failed: {', '.join(failed)}.",
            suggested_next_step="Run ./scripts/bootstrap, which installs what is missing.",
            details=self.to_json(),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "ok": self.ok,
            "checks": [c.to_json() for c in self.checks],
        }

    def text(self, surface: Surface) -> str:
        # No command in these words names a tool, so both surfaces read the same lines.
        return "\n".join(
            f"{'ok  ' if c.ok else 'FAIL'}  {c.check}: {c.detail}" for c in self.checks
        )


def _writable(label: str, path: Path) -> SelfCheck:
    try:
        ensure_private_dir(path)
        ok = os.access(path, os.W_OK | os.X_OK)
        return SelfCheck(label, ok, str(path))
    except OSError as exc:
        return SelfCheck(label, False, f"{path}: {exc.strerror}")


async def launch_blank(executable: Path, extra_args: tuple[str, ...] = ()) -> str:
    """Launch ``executable`` headless on a blank page and read it back ("ready" when it works);
    `doctor` runs the same launch with the configured browser arguments."""
    async with playwright_driver() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(executable), headless=True, args=launch_args(extra_args)
        )
        try:
            page = await browser.new_page()
            await page.set_content("<title>oraculum</title><p id=ok>ready</p>")
            return await page.inner_text("#ok")
        finally:
            await browser.close()


def selfcheck(*, launch_browser: bool = True) -> SelfcheckReport:
    checks = [
        SelfCheck("python", sys.version_info >= (3, 11), sys.version.split()[0]),
        _writable("jobs dir", jobs_dir()),
        _writable("state dir", state_dir()),
        _writable("data dir", data_dir()),
    ]
    try:
        executable = resolve_executable(None)
        checks.append(SelfCheck("chromium", True, str(executable)))
        if launch_browser:
            text = asyncio.run(launch_blank(executable))
            checks.append(SelfCheck("chromium launch", text == "ready", text))
    except OracleError as error:
        checks.append(SelfCheck("chromium", False, error.message))
    except Exception as exc:  # a launch failure is a finding, not a crash
        checks.append(SelfCheck("chromium launch", False, str(exc)[:500]))
    return SelfcheckReport(__version__, tuple(checks))

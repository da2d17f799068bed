"""A job's worker starts light: it loads what its transport drives and no more (never how
long that takes). An isolated job, the default, launches Chromium through Playwright; only the
attached transports (managed, relay) talk DevTools themselves, through aiohttp, whose import
alone is ~0.2 s of every job's start."""

from __future__ import annotations

from pathlib import Path

from fresh_process import loaded_modules, present
from oraculum.core.providers import browser_providers


def test_a_worker_with_every_browser_provider_loads_no_devtools_client(tmp_path: Path) -> None:
    code = (
        "import oraculum.worker.run\n"
        "from oraculum.providers import get_provider\n"
        f"for name in {browser_providers()!r}: get_provider(name)\n"
    )
    modules = loaded_modules(tmp_path, code)
    assert present(modules, ("playwright", "oraculum.providers.browser_job")) == [
        "playwright",
        "oraculum.providers.browser_job",
    ]
    assert present(modules, ("aiohttp", "oraculum.browser.cdp", "oraculum.browser.tabpin")) == []

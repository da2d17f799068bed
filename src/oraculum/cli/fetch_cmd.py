"""`oraculum fetch URL`: one rendered, read-only fetch of a public page (docs/fetch.md)."""

from __future__ import annotations

import click

from oraculum.cli.base import Command, argument
from oraculum.cli.output import emit


@click.command("fetch", cls=Command, examples=("oraculum fetch https://example.com/docs",))
@argument("url", help="An http:// or https:// URL of a public page.")
def fetch_command(url: str) -> None:
    """Render a public web page in a fresh headless Chromium and print it as Markdown (title,
    final URL, status, then the page). Non-public addresses, sign-in, CAPTCHA and anti-bot
    pages are reported, never reached or bypassed."""
    # The browser driver and the proxy load only for this command.
    from oraculum.fetch.service import fetch

    result = fetch(url)
    emit(result.to_json(), text=result.text("cli").rstrip("\n"))

"""`oraculum auth`: sign the isolated seed profile in (or roll it back)."""

from __future__ import annotations

import click

from oraculum.cli.base import Command, argument
from oraculum.cli.output import console, emit


def _progress(message: str) -> None:
    # Progress goes to stderr, so `--json` keeps stdout to the one result document.
    console(stderr=True).print(message, markup=False)


@click.command(
    "auth",
    cls=Command,
    examples=(
        "oraculum auth                      # import ChatGPT's sign-in from your browser",
        "oraculum auth grok --from-browser chromium",
        "oraculum auth --manual             # sign in by hand in a window",
        "oraculum auth --rollback",
    ),
)
@argument("provider", required=False, help="chatgpt (default) or grok.")
@click.option(
    "--manual", is_flag=True, help="Sign in by hand in a browser window instead of importing."
)
@click.option(
    "--from-browser",
    metavar="BROWSER|PROFILE",
    help="Import from chrome, chromium or brave, or from a profile path or Cookies file.",
)
@click.option("--rollback", is_flag=True, help="Put the previous seed profile (.prev) back.")
def auth_command(
    provider: str | None, manual: bool, from_browser: str | None, rollback: bool
) -> None:
    """Sign the isolated browser profile in to the provider (imports your browser's cookies
    read-only, or opens a sign-in window); the previous profile is kept as .prev."""
    # Playwright (through the sign-in flow) loads only when this command runs.
    from oraculum.service.auth import auth

    result = auth(
        provider,
        manual=manual,
        from_browser=from_browser,
        rollback=rollback,
        progress=_progress,
    )
    emit(result.to_json(), text=result.text("cli"))

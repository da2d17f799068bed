"""`oraculum auth`: sign the isolated seed profile in (or roll it back)."""

from __future__ import annotations

import typer

from oraculum.cli.app import app, console, emit


def _progress(message: str) -> None:
    # Progress goes to stderr, so `--json` keeps stdout to the one result document.
    console(stderr=True).print(message, markup=False)


@app.command("auth")
def auth_command(
    provider: str | None = typer.Argument(None, help="chatgpt (default) or grok."),
    manual: bool = typer.Option(
        False, "--manual", help="Sign in by hand in a browser window instead of importing."
    ),
    from_browser: str | None = typer.Option(
        None,
        "--from-browser",
        metavar="NAME|PATH",
        help="Import from chrome, chromium or brave, or from a profile path or Cookies file.",
    ),
    rollback: bool = typer.Option(
        False, "--rollback", help="Put the previous seed profile (.prev) back."
    ),
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

"""`oraculum auth`: sign the isolated seed profile in (or roll it back)."""

from __future__ import annotations

from pathlib import Path

import click

from oraculum.cli.base import Command, argument
from oraculum.cli.output import console, emit
from oraculum.core.errors import ErrorCode, OracleError


def _progress(message: str) -> None:
    # Progress goes to stderr, so `--json` keeps stdout to the one result document.
    console(stderr=True).print(message, markup=False)


@click.command(
    "auth",
    cls=Command,
    examples=(
        "oraculum auth                      # import ChatGPT's sign-in from your browser",
        "oraculum auth grok --from-browser chromium",
        "oraculum auth gemini --manual",
        "oraculum auth --manual             # sign in by hand in a window",
        "oraculum auth --rollback",
        "oraculum auth chatgpt --export chatgpt.seed      # on the machine you signed in on",
        "oraculum auth chatgpt --import-seed chatgpt.seed # on the headless one",
    ),
)
@argument("provider", required=False, help="chatgpt (default), grok or gemini.")
@click.option(
    "--manual", is_flag=True, help="Sign in by hand in a browser window instead of importing."
)
@click.option(
    "--from-browser",
    metavar="BROWSER|PROFILE",
    help="Import from chrome, chromium or brave, or from a profile path or Cookies file.",
)
@click.option("--rollback", is_flag=True, help="Put the previous seed profile (.prev) back.")
@click.option(
    "--export",
    "export_to",
    metavar="FILE",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the signed-in seed into a new 0600 FILE, for `--import-seed` elsewhere.",
)
@click.option(
    "--import-seed",
    metavar="FILE",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Make FILE (written by `--export` on a signed-in machine) this provider's seed.",
)
def auth_command(
    provider: str | None,
    manual: bool,
    from_browser: str | None,
    rollback: bool,
    export_to: Path | None,
    import_seed: Path | None,
) -> None:
    """Sign the isolated browser profile in to the provider (imports your browser's cookies
    read-only, or opens a sign-in window); the previous profile is kept as .prev. On a machine
    without a display, sign in elsewhere and carry the seed over (--export, --import-seed)."""
    chosen = [manual, from_browser is not None, rollback, export_to, import_seed]
    if sum(bool(flag) for flag in chosen) > 1:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            "--manual, --from-browser, --rollback, --export and --import-seed exclude each other.",
            suggested_next_step="Pass one of them.",
        )
    # Playwright (through the sign-in flow) loads only when this command runs.
    from oraculum.service.auth import auth, export_auth, import_auth

    carried = None
    if export_to is not None:
        carried = export_auth(provider, export_to)
    elif import_seed is not None:
        carried = import_auth(import_seed, provider)
    if carried is not None:
        emit(carried.to_json(), text=carried.text("cli"))
        return
    result = auth(
        provider,
        manual=manual,
        from_browser=from_browser,
        rollback=rollback,
        progress=_progress,
    )
    emit(result.to_json(), text=result.text("cli"))

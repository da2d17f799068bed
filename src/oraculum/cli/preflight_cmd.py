"""`oraculum preflight`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from oraculum.cli.app import MODE, app, console, emit
from oraculum.cli.wait_cmd import SESSION_OPTION

if TYPE_CHECKING:
    from rich.console import Console


def render_preflight(result: dict[str, Any], out: Console) -> None:
    mark = "[green]ready[/]" if result["ready"] else "[red]blocked[/]"
    out.print(f"preflight: {mark}")
    for part in ("session", "config", "auth", "browser"):
        info = result.get(part, {})
        extra = info.get("sessionId") or info.get("seedProfileDir") or info.get("executable") or ""
        state = "ok" if info.get("ready") else "not ready"
        out.print(f"  {part}: {state} {extra}".rstrip(), markup=False)
    if "capacityLine" in result:
        out.print(f"  {result['capacityLine']}", markup=False)
    if not result["ready"]:
        out.print(f"  {result['message']}", markup=False)


@app.command("preflight")
def preflight_command(
    provider: str | None = typer.Option(None, "--provider", help="chatgpt, grok or test."),
    follow_up: str | None = typer.Option(
        None, "--follow-up", help="Check readiness for a follow-up to this job."
    ),
    session: str | None = SESSION_OPTION,
) -> None:
    """Check that a submission would be accepted now, and show capacity; changes nothing."""
    from oraculum.service.preflight import preflight, preflight_error

    result = preflight(session=session, provider=provider, follow_up_job=follow_up)
    error = preflight_error(result)
    if error is None:
        emit(result, lambda out: render_preflight(result, out))
        return
    if not MODE.json:
        render_preflight(result, console())
    raise error

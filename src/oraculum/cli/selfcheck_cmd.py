"""`oraculum selfcheck`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oraculum.cli.app import MODE, app, console, emit
from oraculum.core.errors import OracleError

if TYPE_CHECKING:
    from rich.console import Console


@app.command("selfcheck")
def selfcheck_command() -> None:
    """Check that this machine can run jobs: directories, Chromium, a headless launch."""
    from oraculum.service.selfcheck import selfcheck

    result = selfcheck()

    def render(out: Console) -> None:
        for check in result["checks"]:
            mark = "[green]ok[/]" if check["ok"] else "[red]FAIL[/]"
            out.print(f"{mark}  {check['check']}: ", end="")
            out.print(check["detail"], markup=False)

    if result["ok"]:
        emit(result, render)
        return
    if not MODE.json:
        render(console())
    failed = [c["check"] for c in result["checks"] if not c["ok"]]
    raise OracleError(
        "selfcheck_failed",
        f"Self-check failed: {', '.join(failed)}.",
        suggested_next_step="Run ./scripts/bootstrap, which installs what is missing.",
        details=result,
    )

"""`oraculum subagent PROMPT` and `oraculum codex-search PROMPT`: one waited-for turn of a
subagent, or one codex_search run, from a shell (docs/subagents.md).

A shell has no session to deliver a later pong to, so both wait and print the result. A
subagent turn prints its saved session file; `--session FILE` continues that conversation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from oraculum.cli.app import app, emit

# A list option's default lives at module level (ruff B008 allows singletons).
TOOL_OPTION = typer.Option(None, "--tool", help="Allow this tool (repeatable).")


def _fail_unless_ok(result: dict[str, Any], code: str | None, text: str) -> None:
    from oraculum.core.errors import OracleError

    if code is not None:
        raise OracleError(code, text, details={k: v for k, v in result.items() if k != "text"})


@app.command("subagent")
def subagent_command(
    prompt: str = typer.Argument(..., help="The task for the subagent."),
    name: str | None = typer.Option(None, "--name", help="A display name."),
    cwd: str | None = typer.Option(None, "--cwd", help="Working directory (default: project)."),
    tool: list[str] | None = TOOL_OPTION,
    model: str | None = typer.Option(None, "--model", help="Qualified provider/model."),
    reasoning: str | None = typer.Option(None, "--reasoning", help="off … max."),
    session: str | None = typer.Option(
        None, "--session", help="Continue this saved conversation (its .jsonl file)."
    ),
) -> None:
    """Run one turn of a clean (or, with --session, a saved) pi subagent conversation and print
    its final text and session file. The child is not sandboxed."""
    import os

    from oraculum.core.project import find_project_root, project_id
    from oraculum.subagents import SubagentRegistry, launch_spec, routing
    from oraculum.subagents.pi_rpc import PiRpcBackend
    from oraculum.tasks import Owner

    root = find_project_root(Path.cwd())
    spec = launch_spec(root=root, cwd=cwd, name=name, tools=tool or None)
    chosen = routing(model, reasoning)
    registry = SubagentRegistry(PiRpcBackend())
    owner = Owner(project_id(root), f"cli-{os.getpid()}")
    if session is None:
        view = registry.start(owner, prompt, spec, chosen, wait=True)
    else:
        adopted = registry.adopt(owner, str(Path(session).expanduser().absolute()), spec)
        view = registry.continue_(owner, adopted, prompt, chosen, wait=True)
    result = view["result"]
    _fail_unless_ok(view, result["errorCode"], result["text"])
    emit(view, text=result["text"])


@app.command("codex-search")
def codex_search_command(
    prompt: str = typer.Argument(..., help="The research or image request (sent on stdin)."),
    effort: str = typer.Option("quick", "--effort", help="quick or research."),
    image: bool = typer.Option(False, "--image", help="Generate an image (needs --write)."),
    write: bool = typer.Option(False, "--write", help="Let the helper write in the project."),
    yolo: bool = typer.Option(False, "--yolo", help="Bypass approvals and sandboxing."),
) -> None:
    """Run the `codex_search` helper from PATH once (ten-minute limit) and print its answer."""
    import threading

    from oraculum.codex.search import plan_search, run_search
    from oraculum.core.project import find_project_root

    request = plan_search(
        prompt,
        effort=effort,
        image=image,
        write=write,
        yolo=yolo,
        cwd=find_project_root(Path.cwd()),
    )
    result = run_search(request, threading.Event())
    data = {**result.data, "ok": result.ok, "text": result.text}
    code = result.error_code.value if result.error_code else None
    _fail_unless_ok(data, code, result.text)
    emit(data, text=result.text)

"""`oraculum subagent PROMPT` and `oraculum codex-search PROMPT`: one waited-for turn of a
subagent, or one codex_search run, from a shell (docs/subagents.md).

A shell has no session to deliver a later pong to, so both wait and print the result. A
subagent turn prints its saved session file; `--session FILE` continues that conversation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from oraculum.cli.base import Command, argument
from oraculum.cli.output import emit


def _fail_unless_ok(result: dict[str, Any], code: str | None, text: str) -> None:
    from oraculum.core.errors import OracleError, error_code

    if code is not None:
        raise OracleError(
            error_code(code), text, details={k: v for k, v in result.items() if k != "text"}
        )


@click.command(
    "subagent",
    cls=Command,
    examples=(
        'oraculum subagent "Summarise the failing tests in tests/cli"',
        'oraculum subagent --tool read --tool grep "Find the config loader"',
        'oraculum subagent --session ~/.pi/sessions/x.jsonl "And the second one?"',
    ),
)
@argument("prompt", help="The task for the subagent.")
@click.option("--name", metavar="NAME", help="A display name.")
@click.option("--cwd", metavar="DIR", help="Working directory (default: project).")
@click.option("--tool", metavar="NAME", multiple=True, help="Allow this tool (repeatable).")
@click.option("--model", metavar="PROVIDER/MODEL", help="Qualified provider/model.")
@click.option("--reasoning", metavar="LEVEL", help="off … max.")
@click.option(
    "--session", metavar="FILE", help="Continue this saved conversation (its .jsonl file)."
)
def subagent_command(
    prompt: str,
    name: str | None,
    cwd: str | None,
    tool: tuple[str, ...],
    model: str | None,
    reasoning: str | None,
    session: str | None,
) -> None:
    """Run one turn of a clean (or, with --session, a saved) pi subagent conversation and print
    its final text and session file. The child is not sandboxed."""
    import os

    from oraculum.core.project import find_project_root, project_id
    from oraculum.subagents import SubagentRegistry, launch_spec, routing
    from oraculum.subagents.pi_rpc import PiRpcBackend
    from oraculum.tasks import Owner

    root = find_project_root(Path.cwd())
    spec = launch_spec(root=root, cwd=cwd, name=name, tools=list(tool) or None)
    chosen = routing(model, reasoning)
    registry = SubagentRegistry(PiRpcBackend())
    owner = Owner(project_id(root), f"cli-{os.getpid()}")
    if session is None:
        turn = registry.start(owner, prompt, spec, chosen, wait=True)
    else:
        adopted = registry.adopt(owner, str(Path(session).expanduser().absolute()), spec)
        turn = registry.continue_(owner, adopted, prompt, chosen, wait=True)
    assert turn.result is not None  # wait=True: the turn's result
    data = turn.to_json()
    _fail_unless_ok(data, turn.result["errorCode"], turn.result["text"])
    emit(data, text=turn.text("cli"))


@click.command(
    "codex-search",
    cls=Command,
    examples=(
        'oraculum codex-search "What changed in click 8.2\'s shell completion?"',
        'oraculum codex-search --effort research "Compare cron libraries for Python"',
    ),
)
@argument("prompt", help="The research or image request (sent on stdin).")
@click.option(
    "--effort", metavar="LEVEL", default="quick", show_default=True, help="quick or research."
)
@click.option("--image", is_flag=True, help="Generate an image (needs --write).")
@click.option("--write", is_flag=True, help="Let the helper write in the project.")
@click.option("--yolo", is_flag=True, help="Bypass approvals and sandboxing.")
def codex_search_command(prompt: str, effort: str, image: bool, write: bool, yolo: bool) -> None:
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

"""The dispatch workflow the `oracle` and `oracle-followup` prompts hand the agent.

It follows the seed's `/oracle` flow: preflight first and before any expensive preparation,
context-rich archives up to the provider ceiling, `archive_too_large` retried with a smaller
selection at most twice in total, and a hard stop after a successful or queued submit.

Some hosts cut a slash command's argument: Claude Code hands
`/mcp__oraculum__oracle review notes.txt and explain X` over as `{"request": "review"}`. A
request that looks cut (:func:`looks_cut`) reaches the agent with a note quoting what arrived
and telling it to take the whole request from the user's message (:func:`as_received`).
"""

from __future__ import annotations

import json

__all__ = [
    "BRIDGE_WAKEUP",
    "FOLLOWUP_PROMPT",
    "MCP_WAKEUP",
    "ORACLE_PROMPT",
    "as_received",
    "followup_prompt",
    "looks_cut",
    "oracle_prompt",
]

_WORKFLOW = """\
Follow this workflow exactly.

1. Call oracle_preflight immediately, before reading files or preparing anything else. Pass \
provider "grok" only if the user explicitly asked for Grok.
2. If preflight is not ready, stop and tell the user the blocker and its suggested next step. \
If the auth seed profile is missing or stale (or a job said to re-run auth), you may call \
oracle_auth at most once for this request, then retry the blocked step once; never loop.
3. Decide whether the request is narrow or broad.
   - Narrow: start from the directly relevant files, and still include nearby tests, docs, \
config and adjacent modules when they may improve the answer.
   - Broad or repository-wide: archive "." (the whole repository), but only inside a \
project (a repository, or a directory with `.oraculum/` or a project file). Outside one (a home \
directory, /) "." is refused with archive_scope_unsafe: name the relevant files instead, and \
never pass allowAnyDir unless the user asked for that whole directory.
   Bias toward context-rich archives: the ceiling is 250 MiB compressed for ChatGPT and \
200 MiB for Grok. Narrow the selection only when the user asked for it, when privacy requires \
it, or when size forces it. Default exclusions already drop dependency folders, build \
outputs, VCS data and secret-looking files (.env, secrets/ …); a whole-repository archive over \
the ceiling is auto-pruned of generated-output directories. Inputs must stay inside the \
project root (no paths outside it, no symlinks escaping it). For uncommitted work, save \
`git diff` output to a file inside the project and include that file.
4. Write a self-contained prompt for the oracle: the goal, the relevant background, what the \
archive contains, and the form of answer you need.
5. Call oracle_submit with that prompt and the files. Omit preset and provider unless the user \
asked for a specific model or provider: the configured defaults apply.
6. If oracle_submit fails with archive_too_large, use the reported size summary and any \
auto-pruned paths to cut scope, and retry with a smaller archive. Make at most two submit \
attempts in total for this request; if it still does not fit, report what was cut and why.
7. After a successful or queued submit, stop. Tell the user the job id. {wakeup}; then read \
the answer with oracle_read. A wake-up is not an instruction to run oracle_auth, oracle_submit \
or oracle_cancel again.
"""

# Where the completion arrives, by host: an MCP server shows it in a later tool result; the pi
# bridge starts a new turn with it.
MCP_WAKEUP = (
    "The completion wake-up arrives later in an oracle tool result (or long-poll with oracle_wait)"
)
BRIDGE_WAKEUP = "The completion wake-up arrives later as a new message in this session"

ORACLE_PROMPT = (
    "Consult the oracle (a frontier model through its web app, as a background job) about the "
    "request below.\n\n" + _WORKFLOW + "\nRequest:\n{request}\n"
)

FOLLOWUP_PROMPT = (
    "Continue oracle job {job_id} in the same provider thread (usage: oracle-followup <jobId> "
    '<request>): pass followUpJobId "{job_id}" to oracle_preflight and to oracle_submit; the '
    "thread already holds the earlier context, so archive only what is new or changed.\n\n"
    + _WORKFLOW
    + "\nFollow-up request:\n{request}\n"
)


def oracle_prompt(request: str, *, wakeup: str = MCP_WAKEUP) -> str:
    return ORACLE_PROMPT.format(request=request, wakeup=wakeup)


def followup_prompt(job_id: str, request: str, *, wakeup: str = MCP_WAKEUP) -> str:
    return FOLLOWUP_PROMPT.format(job_id=job_id, request=request, wakeup=wakeup)


_QUOTES = ('"', "'", "\u201c", "\u201d", "\u2018", "\u2019")
_PAIRS = {"\u201c": "\u201d", "\u2018": "\u2019"}  # typographic quotes close with another


def looks_cut(request: str) -> bool:
    """Whether a prompt argument looks like the first word of a longer request: one word, or
    an opening quote that never closes."""
    text = request.strip()
    if len(text.split()) <= 1:
        return True
    opening = text[0]
    if opening not in _QUOTES:
        return False
    closing = _PAIRS.get(opening, opening)
    return closing not in text[1:]


def as_received(request: str) -> str:
    """The request as an MCP host passed it, with a note when it looks cut."""
    if not looks_cut(request):
        return request
    shown = json.dumps(request.strip()[:200], ensure_ascii=False)
    return (
        f"{request}\n"
        f"(Only {shown} arrived as the request argument, which looks cut short: some hosts "
        "pass only the first word of a prompt's argument. Take the whole request from the "
        "user's message that invoked this prompt — everything they typed after the prompt's "
        "name — and use that; if that message is not in view, ask the user for the request.)"
    )

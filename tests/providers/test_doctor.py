"""`oraculum doctor --live` against the simulator (every shell and picker, each drift knob) and
against small pages of our own whose vocabulary drifted: green where a job would work, the
broken entry named where it would not, never a menu left open, nothing left behind."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psutil
import pytest

from homes import SIMULATOR_WORKER, write_global_config
from oraculum.cli import main
from oraculum.core.config import Config
from oraculum.simulator import FLAGS, SimulatorThread

from .conftest import write_config

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHELLS = ("classic", "redesign")
PICKERS = ("legacy", "chips", "intelligence", "power")
# Every entry a live report has on a page where a job would work.
ENTRIES = {
    "composer",
    "composer region",
    "add files",
    "file input",
    "add files menu",
    "model picker",
    "picker generation",
    "effort control",
    "model picker menu",
    "send",
    "stop",
    "UI language",  # issue 42 §2
}
# The drift knobs (issue 14 §4) and the pickers each applies to.
DRIFT = {
    "drift_zero_height_slider": ("power",),
    "drift_sticky_menu": PICKERS,
    "drift_opener_relabel": PICKERS,
    "drift_send_needs_text": ("power",),
    "drift_upload_lingers": ("power",),
}


@pytest.fixture
def in_project(seeded: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Config]:
    """The module's signed-in home, run from a project directory of this test."""
    (tmp_path / "pyproject.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    yield seeded


def doctor_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["--json", "doctor", *args])
    return code, json.loads(capsys.readouterr().out)


def entries_of(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["entry"]: e for e in report["live"]["entries"]}


def doctor_profiles(config: Config) -> list[Path]:
    runtime = config.browser.runtime_profiles_dir
    return sorted(runtime.glob("doctor-*")) if runtime.exists() else []


def browsers_on(directory: Path) -> list[int]:
    """Chromium processes whose profile lies under ``directory``."""
    flag = f"--user-data-dir={directory}"
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if any(arg.startswith(flag) for arg in proc.info.get("cmdline") or []):
            found.append(proc.pid)
    return found


def point_at(url: str, auth_url: str, **worker: int) -> Config:
    return write_global_config(
        {
            "browser": {"chatUrl": url, "authUrl": auth_url},
            "worker": {**SIMULATOR_WORKER, **worker},
        }
    )


@pytest.mark.parametrize("picker", PICKERS)
@pytest.mark.parametrize("shell", SHELLS)
def test_live_doctor_is_green_on_every_shell_and_picker(
    shell: str,
    picker: str,
    in_project: Config,
    sim: SimulatorThread,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = write_config(sim, shell=shell, picker=picker)
    selection = sim.state.selection.to_dict()
    sent, uploaded = len(sim.state.user_messages()), len(sim.state.uploads)

    code, report = doctor_json(capsys, "--live")

    assert code == 0, report
    assert report["ok"] is True and "error" not in report
    assert [c for c in report["checks"] if c["status"] == "fail"] == []
    checks = {c["check"]: c for c in report["checks"]}
    assert checks["seed identity"]["status"] == "ok"
    assert "demo@example.com" in checks["seed identity"]["detail"]
    assert checks["live vocabulary"]["status"] == "ok"
    entries = entries_of(report)
    assert set(entries) == ENTRIES
    assert [name for name, e in entries.items() if not e["ok"]] == []
    assert entries["picker generation"]["found"] == picker
    assert entries["model picker menu"]["found"].startswith("closed by")
    assert entries["add files menu"]["found"].startswith("closed by")
    assert report["live"]["url"] == config.browser.chat_url
    # Read-only: nothing chosen, typed, sent or uploaded.
    assert sim.state.selection.to_dict() == selection
    assert len(sim.state.user_messages()) == sent and len(sim.state.uploads) == uploaded
    assert doctor_profiles(config) == []


@pytest.mark.parametrize(
    ("flag", "picker"), [(flag, picker) for flag, pickers in DRIFT.items() for picker in pickers]
)
def test_live_doctor_on_each_drift_knob_stays_green_or_names_the_entry(
    flag: str,
    picker: str,
    in_project: Config,
    sim: SimulatorThread,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if flag not in FLAGS:
        pytest.skip(f"the simulator has no {flag} knob yet")
    write_config(sim, shell="redesign", picker=picker, scenario=flag)

    code, report = doctor_json(capsys, "--live")

    entries = entries_of(report)
    broken = [name for name, e in entries.items() if not e["ok"]]
    vocabulary = next(c for c in report["checks"] if c["check"] == "live vocabulary")
    if broken:
        assert code == 4 and report["error"]["code"] == "doctor_failed"
        assert all(name in vocabulary["detail"] for name in broken)
    else:
        assert code == 0, report
    # Whatever the knob does, no menu is ever left open.
    assert entries["model picker menu"]["ok"] is True, entries["model picker menu"]
    assert entries["add files menu"]["ok"] is True
    if flag == "drift_sticky_menu":  # Escape is ignored: the dialog's close control, or the opener
        way = "its close control" if picker == "legacy" else "a click on the opener"
        assert entries["model picker menu"]["found"] == f"closed by {way}"


@pytest.mark.parametrize(("flag", "ok"), [("lazy_file_input", True), ("no_upload_path", False)])
def test_live_doctor_counts_an_upload_entry_as_the_upload_path(
    flag: str,
    ok: bool,
    in_project: Config,
    sim: SimulatorThread,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 37 §2: a page without a standing file input uploads through its menu entry."""
    write_config(sim, scenario=flag)
    _, report = doctor_json(capsys, "--live")
    entry = entries_of(report)["file input"]
    assert entry["ok"] is ok, entry
    assert entry["found"].startswith("0 file input(s), ")
    assert entries_of(report)["add files menu"]["ok"] is True  # the menu was closed again


# Pages of our own: the same vocabulary, one entry drifted --------------------------------------

COMPOSER = (
    '<div id="prompt-textarea" contenteditable="true" role="textbox" aria-label="{label}"></div>'
)
PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>ChatGPT</title></head>
<body><form>{composer}
<button type="button" aria-label="Add files and more" aria-haspopup="menu"
 aria-expanded="false">+</button>{picker}
<input type="file" hidden>
<button type="button" aria-label="Send prompt" disabled>Send</button>
</form></body></html>"""


class DriftedPage(BaseHTTPRequestHandler):
    """A signed-in ChatGPT-like page whose composer is ``label`` and picker ``picker``."""

    body = ""

    def do_GET(self) -> None:
        if self.path.startswith("/backend-api/me"):
            self.reply("application/json", json.dumps({"id": "u1", "email": "drift@example.com"}))
        else:
            self.reply("text/html", self.body)

    def reply(self, kind: str, text: str) -> None:
        data = text.encode()
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_: Any) -> None:
        return None


@pytest.fixture
def drifted_page() -> Iterator[Any]:
    servers: list[ThreadingHTTPServer] = []

    def serve(*, composer: str = "Ask ChatGPT", picker: str = "") -> str:
        body = PAGE.format(composer=COMPOSER.format(label=composer), picker=picker)
        handler = type("Page", (DriftedPage,), {"body": body})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


def test_live_doctor_names_a_model_picker_that_no_longer_matches(
    in_project: Config, drifted_page: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    renamed = '<button type="button" aria-haspopup="menu" aria-expanded="false">Brain</button>'
    url = drifted_page(picker=renamed)
    point_at(url, url + "auth/login")

    code, report = doctor_json(capsys, "--live")

    assert code == 4
    assert report["ok"] is False and report["error"]["code"] == "doctor_failed"
    entries = entries_of(report)
    assert entries["model picker"]["ok"] is False
    assert 'button "Brain"' in entries["model picker"]["found"]
    assert entries["composer"]["ok"] and entries["add files"]["ok"] and entries["send"]["ok"]
    vocabulary = next(c for c in report["checks"] if c["check"] == "live vocabulary")
    assert vocabulary["status"] == "fail" and vocabulary["code"] == "provider_ui_drift"
    assert "model picker" in vocabulary["detail"]


def test_live_doctor_finds_a_renamed_composer_by_structure(
    in_project: Config, drifted_page: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 37 §3: the composer form's textbox is the composer, whatever its name."""
    url = drifted_page(composer="Message ChatGPT")
    point_at(url, url + "auth/login", readinessTimeoutMs=3000)

    _, report = doctor_json(capsys, "--live")

    checks = {c["check"]: c for c in report["checks"]}
    assert checks["live page"]["status"] == "ok", checks["live page"]
    entries = entries_of(report)
    assert entries["composer"]["ok"] is True
    assert entries["composer"]["found"] == 'textbox "Message ChatGPT", editable'
    assert "composer" not in checks["live vocabulary"]["detail"]


def test_live_doctor_never_takes_the_work_composer(
    in_project: Config, drifted_page: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    url = drifted_page(composer="Work with ChatGPT")
    point_at(url, url + "auth/login", readinessTimeoutMs=1000)

    code, report = doctor_json(capsys, "--live")

    assert code == 4
    checks = {c["check"]: c for c in report["checks"]}
    # The page never looked ready (the Work composer is another product): the probe says why.
    assert checks["live page"]["code"] == "provider_not_ready"
    entries = entries_of(report)
    assert entries["composer"]["ok"] is False
    assert entries["composer"]["found"] == 'textbox "Work with ChatGPT"'
    assert "composer" in checks["live vocabulary"]["detail"]


def test_doctor_leaves_no_runtime_profile_and_no_chromium_behind(
    in_project: Config, sim: SimulatorThread, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(sim, picker="power")
    runtime = config.browser.runtime_profiles_dir
    code, _ = doctor_json(capsys, "--live")
    assert code == 0
    assert doctor_profiles(config) == [] and browsers_on(runtime) == []

    # A provider that cannot be reached fails the probe, and still nothing is left.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/"
    point_at(closed, closed + "auth/login")
    code, report = doctor_json(capsys, "--live")
    assert code == 4
    failed = [c for c in report["checks"] if c["status"] == "fail"]
    assert [(c["check"], c["code"]) for c in failed] == [("seed identity", "provider_unreachable")]
    assert doctor_profiles(config) == [] and browsers_on(runtime) == []


# Issue 42 §2: the live probe in other UI languages, each on another shell and picker.
LOCALE_CASES = [
    ("de", "classic", "power", 'de (html lang "de-DE")'),
    ("ja", "redesign", "legacy", 'ja (html lang "ja-JP")'),
    ("zh-cn", "classic", "intelligence", 'zh-CN (html lang "zh-CN")'),
    ("fr", "redesign", "chips", 'fr (html lang "fr-FR")'),
]


@pytest.mark.parametrize(("locale", "shell", "picker", "language"), LOCALE_CASES)
def test_live_doctor_reports_the_page_language_and_is_green_in_it(
    locale: str,
    shell: str,
    picker: str,
    language: str,
    in_project: Config,
    sim: SimulatorThread,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_config(sim, shell=shell, picker=picker, locale=locale)
    code, report = doctor_json(capsys, "--live")
    assert code == 0, [e for e in report["live"]["entries"] if not e["ok"]] or report
    entries = entries_of(report)
    assert set(entries) == ENTRIES
    assert [name for name, e in entries.items() if not e["ok"]] == []
    assert entries["picker generation"]["found"] == picker
    assert entries["UI language"]["found"] == language


def test_live_doctor_names_a_label_its_language_table_does_not_spell(
    in_project: Config, sim: SimulatorThread, capsys: pytest.CaptureFixture[str]
) -> None:
    # A German page whose composer kept an English name: found (by structure), and named.
    write_config(sim, locale="de", composer_label="Chat with ChatGPT")
    code, report = doctor_json(capsys, "--live")
    assert code == 0, [e for e in report["live"]["entries"] if not e["ok"]] or report
    found = entries_of(report)["UI language"]["found"]
    assert (
        found == 'de (html lang "de-DE"); not spelt as de spells them: composer "Chat with ChatGPT"'
    )

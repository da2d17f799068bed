"""Usage errors in text mode: every kind typer raises is shown, never a crash."""

from __future__ import annotations

import pytest
import typer

import oraculum.cli
from oraculum.cli import main
from oraculum.core.errors import ExitCode


def _raising_app(error: Exception) -> typer.Typer:
    """A real Typer app whose only command raises ``error``."""
    tiny = typer.Typer()

    @tiny.command()
    def boom() -> None:
        raise error

    @tiny.command()
    def other() -> None:  # a second command so typer keeps command names
        return None

    return tiny


def _patch_app(monkeypatch: pytest.MonkeyPatch, tiny: typer.Typer) -> None:
    # Every command module registers first: one imported while the app is patched would
    # register on the tiny app and be missing from the real one for the rest of the session.
    oraculum.cli.load_commands()
    monkeypatch.setattr("oraculum.cli.app.app", tiny)


def test_bare_typer_exception_is_shown_as_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # typer.TyperException itself has no show() (only click's subclasses do).
    _patch_app(monkeypatch, _raising_app(typer.TyperException("bad input")))
    code = main(["boom"])
    assert code == int(ExitCode.INVALID_INPUT)
    assert "bad input" in capsys.readouterr().err


def test_click_usage_error_still_shows_its_usage(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _patch_app(monkeypatch, _raising_app(typer.BadParameter("wrong value")))
    code = main(["boom"])
    assert code == int(ExitCode.INVALID_INPUT)
    err = capsys.readouterr().err
    assert "wrong value" in err and "Usage:" in err

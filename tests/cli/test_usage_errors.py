"""Usage errors in text mode: every kind click raises is shown, never a crash."""

from __future__ import annotations

import click
import pytest

from oraculum.cli import main
from oraculum.core.errors import ExitCode


def _raising_app(error: Exception) -> click.Group:
    """A real click app whose only command raises ``error``."""
    tiny = click.Group()

    @tiny.command()
    def boom() -> None:
        raise error

    @tiny.command()
    def other() -> None:  # a second command so click keeps command names
        return None

    return tiny


def _patch_app(monkeypatch: pytest.MonkeyPatch, tiny: click.Group) -> None:
    monkeypatch.setattr("oraculum.cli.app.app", tiny)


def test_bare_click_exception_is_shown_as_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # click.ClickException itself carries no usage (only UsageError and its kin do).
    _patch_app(monkeypatch, _raising_app(click.ClickException("bad input")))
    code = main(["boom"])
    assert code == int(ExitCode.INVALID_INPUT)
    assert "bad input" in capsys.readouterr().err


def test_click_usage_error_still_shows_its_usage(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _patch_app(monkeypatch, _raising_app(click.BadParameter("wrong value")))
    code = main(["boom"])
    assert code == int(ExitCode.INVALID_INPUT)
    err = capsys.readouterr().err
    assert "wrong value" in err and "Usage:" in err

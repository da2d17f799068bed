"""`invalid_provider` from a surface lists every provider a caller may pass, the dry run too
(issue 15 §7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oraculum.core.errors import OracleError
from oraculum.service.caller import Caller
from oraculum.service.preflight import preflight
from oraculum.service.submit import submit


def test_invalid_provider_lists_test(project: Path) -> None:
    with pytest.raises(OracleError) as refused:
        submit("q", ["src"], caller=Caller(session="s"), provider="bogus")
    assert refused.value.code == "invalid_provider"
    assert refused.value.allowed_values == ["chatgpt", "grok", "gemini", "test"]
    assert (
        refused.value.message == "Unknown provider: bogus. Use one of: chatgpt, grok, gemini, test."
    )
    report = preflight(caller=Caller(session="s"), provider="bogus").to_json()
    assert report["error"]["allowedValues"] == ["chatgpt", "grok", "gemini", "test"]

"""Issue 41 §5: a delay or period too large for the calendar is refused with
`invalid_argument`, through the real CLI and a real MCP session, never an overflow's
`internal_error`; nothing is stored."""

from __future__ import annotations

import pytest

from oraculum.scheduler.store import Store

from ..mcp.support import mcp_client

HUGE = [
    ("--in", "99999999999d"),
    ("--every", "99999999999d"),
    ("--every", "3660d", "--count", "100000"),
    ("--at", "9999-12-31T00:00:00Z", "--every", "1d", "--count", "3"),
]


@pytest.mark.parametrize("timing", HUGE, ids=lambda t: " ".join(t))
def test_cli_refuses_a_huge_duration(sched, timing: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    code, refused = sched.cli("schedule", "submit", "--prompt", "later", *timing)
    assert code == 2, refused
    assert refused["error"]["code"] == "invalid_argument"
    assert Store().schedules() == []


@pytest.mark.slow
async def test_mcp_refuses_a_huge_duration(sched) -> None:  # type: ignore[no-untyped-def]
    async with mcp_client(sched.root, "--session", "bounds", "--profile", "scheduler") as client:
        for timing in ({"in": "99999999999d"}, {"every": "99999999999d"}):
            refused = await client.call_tool(
                "scheduler_submit", {"reentryPrompt": "later", "timing": timing}
            )
            assert refused.is_error
            assert refused.structured_content["error"]["code"] == "invalid_argument"
    assert Store().schedules() == []

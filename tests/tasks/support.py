"""Notices made directly for tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from oraculum.core.project import project_id
from oraculum.tasks import Notice, Owner, post_notice


def notice_for(
    project: Path,
    session: str,
    *,
    kind: str = "fetch",
    title: str = "fetched",
    text: str = "",
    data: dict[str, Any] | None = None,
) -> Notice:
    owner = Owner(project_id(project), session)
    return post_notice(owner, kind=kind, source_id="src-1", title=title, text=text, data=data or {})

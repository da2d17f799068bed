"""What every layer of a fetch reads from a URL the same way: the port it reaches, and whether
it carries ``user:password@`` credentials."""

from __future__ import annotations

from urllib.parse import SplitResult

__all__ = ["has_credentials", "url_port"]


def url_port(parts: SplitResult) -> int | None:
    """The port ``parts`` reaches (its scheme's default when none is written); None when the
    written port is malformed."""
    try:
        return parts.port or (443 if parts.scheme in ("https", "wss") else 80)
    except ValueError:
        return None


def has_credentials(parts: SplitResult) -> bool:
    return parts.username is not None or parts.password is not None

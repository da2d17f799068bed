"""The third provider's registry entry; importing this module registers it."""

from __future__ import annotations

import os

from oraculum.core.providers import MIB, CookieNames, ProviderSpec, register_provider
from oraculum.core.selection import Choice, SelectionTable

URL_ENV = "THIRD_PROVIDER_URL"
HERE = __name__.rpartition(".")[0]  # the package: its driver, scripts


def entry(url: str) -> ProviderSpec:
    """The third provider's registry entry, its site at ``url``."""
    return ProviderSpec(
        name="third",
        label="Third",
        aliases=("third", "3rd"),
        hosts=frozenset(),  # no real site: only the loopback one
        cookie_domains=frozenset({"127.0.0.1"}),
        cookies=CookieNames(session=("third_session",), allowed=(), noise=()),
        archive_suffix=".tar.gz",
        archive_compression="gzip",
        max_archive_bytes=20 * MIB,
        selection=SelectionTable(
            key="mode",
            choices=(
                Choice("swift", "Third Swift", "third", "low"),
                Choice("deep", "Third Deep", "third", "high", aliases=("slow",)),
            ),
            unknown="Unknown Third mode",
            use="Use one of the Third modes ({ids}).",
        ),
        driver=f"{HERE}.driver:ThirdProvider",
        default_chat_url=url,
        default_auth_url=url + "login",
        seed_suffix="-third",
        capture=f"{HERE}.driver:capture",
        max_prompt_bytes=64 * 1024,
    )


SPEC = register_provider(entry(os.environ[URL_ENV]))

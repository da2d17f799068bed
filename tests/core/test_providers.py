"""The provider registry (issue 17 §1): one entry per provider, asked by every layer."""

from __future__ import annotations

import importlib

import pytest

from oraculum.auth.policy import policy_for, policy_of
from oraculum.core import providers
from oraculum.core.config import Config, provider_urls, seed_profile_dir
from oraculum.core.errors import OracleError
from oraculum.core.providers import REGISTRY, conversation_id_from_url, provider_spec
from oraculum.core.selection import Choice, SelectionTable


@pytest.mark.parametrize(
    ("value", "name"),
    [("ChatGPT", "chatgpt"), ("openai", "chatgpt"), ("x.ai", "grok"), ("XAI", "grok"),
     ("test", "test")],
)  # fmt: skip
def test_aliases_name_one_provider(value: str, name: str) -> None:
    assert provider_spec(value).name == name


def test_unknown_provider_lists_every_choice() -> None:
    with pytest.raises(OracleError) as info:
        provider_spec("claude")
    assert info.value.code == "invalid_provider"
    assert info.value.allowed_values == list(REGISTRY)
    with pytest.raises(OracleError) as real_only:
        provider_spec("test", dry_run=False)
    assert real_only.value.allowed_values == ["chatgpt", "grok", "gemini"]


@pytest.mark.parametrize(
    ("url", "conversation"),
    [
        ("https://chatgpt.com/c/abc-123", "abc-123"),
        ("https://chatgpt.com/c/abc-123?model=x#top", "abc-123"),
        ("https://chatgpt.com/g/g-xyz-name/c/abc_9", "abc_9"),
        ("https://grok.com/chat/f00", "f00"),
        ("http://127.0.0.1:8765/c/0f0f/", "0f0f"),
        ("https://chatgpt.com/", None),
        ("https://chatgpt.com/c/", None),
        (None, None),
    ],
)
def test_one_rule_names_a_conversation(url: str | None, conversation: str | None) -> None:
    assert conversation_id_from_url(url) == conversation


def test_each_entry_says_its_archive_format_and_ceiling() -> None:
    assert (REGISTRY["chatgpt"].archive_suffix, REGISTRY["chatgpt"].archive_compression) == (
        ".tar.zst",
        "zstd",
    )
    assert (REGISTRY["grok"].archive_suffix, REGISTRY["grok"].archive_compression) == (
        ".tar.gz",
        "gzip",
    )
    assert REGISTRY["grok"].max_archive_bytes == 200 * 1024 * 1024


def test_every_driver_loads_by_its_name() -> None:
    for spec in REGISTRY.values():
        module, _, name = spec.driver.partition(":")
        assert hasattr(importlib.import_module(module), name), spec.name


def test_config_and_auth_ask_the_registry(oraculum_home) -> None:
    config = Config()
    assert provider_urls(config, "grok") == ("https://grok.com/", "https://grok.com/")
    assert seed_profile_dir(config, "grok").name.endswith(REGISTRY["grok"].seed_suffix)
    policy = policy_for("grok", "https://grok.com/")
    assert policy.domains == REGISTRY["grok"].cookie_domains
    assert any(p.fullmatch("sso") for p in policy.session)
    assert config.archive_max_bytes("chatgpt") == REGISTRY["chatgpt"].max_archive_bytes


def test_a_provider_without_config_keys_uses_its_own_defaults() -> None:
    """What one registry entry needs: no config fields of its own."""
    newcomer = providers.GROK._replace(
        name="newcomer",
        default_chat_url="https://chat.newcomer.example/",
        default_auth_url="https://chat.newcomer.example/login",
        chat_url_key=None,
        auth_url_key=None,
        max_bytes_key=None,
        max_archive_bytes=42,
    )
    config = Config()
    assert newcomer.urls(config.browser) == (
        "https://chat.newcomer.example/",
        "https://chat.newcomer.example/login",
    )
    assert newcomer.archive_ceiling(config.archive) == 42
    assert policy_of(newcomer).provider == "newcomer"


def test_every_named_hook_loads() -> None:
    """Each entry's sign-in check, live probe and capture function names what exists."""
    named = [
        path
        for spec in REGISTRY.values()
        for path in (spec.sign_in_check, spec.live_probe, spec.capture)
        if path
    ]
    assert len(named) >= 4
    assert all(providers.load_named(path) for path in named)


def test_a_registered_provider_is_asked_like_a_built_in_one() -> None:
    """Issue 39 §5: `register_provider` is the hook (a module named in
    $ORACULUM_PROVIDER_MODULES calls it); its name and aliases then resolve everywhere."""
    newcomer = providers.GROK._replace(name="newcomer", label="Newcomer", aliases=("nc",))
    providers.register_provider(newcomer)
    try:
        assert provider_spec("NC") is newcomer
        assert "newcomer" in providers.browser_providers()
        with pytest.raises(ValueError, match="collides"):
            providers.register_provider(newcomer._replace(name="other", aliases=("xai",)))
        assert provider_spec("xai").name == "grok"  # a refused entry shadows nothing
    finally:
        providers.unregister_provider("newcomer")
    assert providers.canonical_name("nc") is None
    assert "newcomer" not in REGISTRY
    with pytest.raises(ValueError, match="built in"):
        providers.unregister_provider("grok")


def test_a_selection_table_refuses_an_ambiguous_alias() -> None:
    with pytest.raises(ValueError, match="claimed by both"):
        SelectionTable(
            key="mode", choices=(Choice("a", "Fast", "f", None), Choice("b", "fast", "f", None))
        )

"""Pure and filesystem rules of auth: the auth page classifier, the staging sweep, the swap and
its rollback, where cookies are read from, and which environment variables are scrubbed."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from oraculum.auth.cookie_source import (
    CookieSource,
    password_variables,
    resolve_source,
    scrub_password_variables,
)
from oraculum.auth.seed import (
    PARKED_FILE,
    STALE_PARKED_S,
    StagingEntry,
    rollback_seed,
    staging_entries,
    swap_into_place,
    sweep_choice,
    sweep_staging,
)
from oraculum.auth.verify import auth_page_state
from oraculum.browser.profile import SEED_GENERATION_FILE, read_seed_generation
from oraculum.core.errors import OracleError
from oraculum.providers.chatgpt.page_state import PageObservation, PageState, allowed_origins

ORIGINS = allowed_origins("https://chatgpt.com/", "https://chatgpt.com/auth/login")
READY = PageObservation(
    url="https://chatgpt.com/",
    scoped_text="",
    login_cta=False,
    on_auth_page=False,
    me_status=200,
    me_identity=True,
    composer_ready=True,
)

# --- the auth page classifier --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("HTTP ERROR 431", PageState.LOGIN_REQUIRED),
        ("Request Header Or Cookie Too Large", PageState.LOGIN_REQUIRED),
        # a challenge still wins over the refused header
        ("Just a moment... HTTP ERROR 431", PageState.CHALLENGE_BLOCKING),
        # the refused header is not an outage to wait out, even next to outage words
        ("Something went wrong. request header or cookie too large", PageState.LOGIN_REQUIRED),
        ("Something went wrong", PageState.TRANSIENT_OUTAGE),
        ("", PageState.READY),
    ],
)
def test_auth_page_state(text: str, state: PageState) -> None:
    found = auth_page_state(replace(READY, scoped_text=text), ORIGINS)
    assert found.state == state


def test_auth_page_state_defers_to_the_job_classifier_otherwise() -> None:
    logged_out = replace(READY, me_status=401, me_identity=False)
    assert auth_page_state(logged_out, ORIGINS).state == PageState.LOGIN_REQUIRED
    login_page = replace(READY, url="https://chatgpt.com/auth/login", me_status=None)
    assert auth_page_state(replace(login_page, me_identity=False), ORIGINS).state == (
        PageState.LOGIN_REQUIRED
    )
    assert auth_page_state(login_page, ORIGINS).state == PageState.AUTH_TRANSITIONING


# --- the staging sweep -----------------------------------------------------------------------


def entry(name: str, age_h: float, parked: bool = False, alive: bool = False) -> StagingEntry:
    return StagingEntry(Path(name), age_h * 3600, parked, alive)


def test_sweep_choice() -> None:
    entries = [
        entry("crashed-young", 0.1),  # no auth run holds the lock: a leftover, at any age
        entry("crashed-old", 48),
        entry("parked-young", 1, parked=True),  # the user may still be solving the check
        entry("parked-old-open", 48, parked=True, alive=True),  # its window is still open
        entry("parked-old-closed", 48, parked=True),
    ]
    assert sweep_choice(entries) == [
        Path("crashed-young"),
        Path("crashed-old"),
        Path("parked-old-closed"),
    ]
    assert STALE_PARKED_S == 24 * 3600


def test_sweep_on_disk(tmp_path: Path) -> None:
    seed = tmp_path / "seed"
    seed.mkdir()
    leftover = tmp_path / "seed.staging-1-aaa"
    leftover.mkdir()
    parked = tmp_path / "seed.staging-2-bbb"
    parked.mkdir()
    (parked / PARKED_FILE).write_text('{"pid": 1, "started": 0}')  # pid 1 never matches
    old = tmp_path / "seed.staging-3-ccc"
    old.mkdir()
    (old / PARKED_FILE).write_text('{"pid": 1, "started": 0}')
    os.utime(old, (1, 1))
    other = tmp_path / "seedling.staging-4"  # another seed's: not ours to touch
    other.mkdir()
    found = {e.path.name: e for e in staging_entries(seed)}
    assert set(found) == {leftover.name, parked.name, old.name}
    assert found[parked.name].parked and not found[parked.name].browser_alive
    assert sorted(p.name for p in sweep_staging(seed)) == [leftover.name, old.name]
    assert parked.exists() and other.exists() and seed.exists()


# --- swap and rollback -----------------------------------------------------------------------


def make_profile(path: Path, marker: str) -> Path:
    path.mkdir(mode=0o700)
    (path / "marker").write_text(marker)
    return path


def test_swap_keeps_prev_and_writes_the_generation(tmp_path: Path) -> None:
    seed = tmp_path / "seed"
    first = swap_into_place(make_profile(tmp_path / "s1", "one"), seed)
    assert (seed / "marker").read_text() == "one" and read_seed_generation(seed) == first
    assert not (tmp_path / "seed.prev").exists()
    second = swap_into_place(make_profile(tmp_path / "s2", "two"), seed)
    assert second != first and (seed / SEED_GENERATION_FILE).read_text().strip() == second
    assert (tmp_path / "seed.prev" / "marker").read_text() == "one"
    swap_into_place(make_profile(tmp_path / "s3", "three"), seed)
    assert (tmp_path / "seed.prev" / "marker").read_text() == "two"  # only one .prev
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seed", "seed.prev"]


def test_rollback_toggles_seed_and_prev(tmp_path: Path) -> None:
    seed = tmp_path / "seed"
    with pytest.raises(OracleError) as missing:
        rollback_seed(seed)
    assert missing.value.code == "auth_rollback_unavailable"
    first = swap_into_place(make_profile(tmp_path / "s1", "one"), seed)
    second = swap_into_place(make_profile(tmp_path / "s2", "two"), seed)
    assert rollback_seed(seed) == first
    assert (seed / "marker").read_text() == "one"
    assert (tmp_path / "seed.prev" / "marker").read_text() == "two"
    assert rollback_seed(seed) == second
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seed", "seed.prev"]


def test_swap_refuses_symlinks(tmp_path: Path) -> None:
    real = make_profile(tmp_path / "elsewhere", "x")
    seed = tmp_path / "seed"
    seed.symlink_to(real)
    with pytest.raises(OracleError) as refused:
        swap_into_place(make_profile(tmp_path / "s1", "one"), seed)
    assert refused.value.code == "oracle_profile_path_unsafe"
    assert (real / "marker").read_text() == "x" and (tmp_path / "s1").exists()


# --- where cookies come from -----------------------------------------------------------------


def cookie_store(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    sqlite3.connect(path).close()
    return path


def test_resolve_source_by_name_path_and_config(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert resolve_source(None, home=home) is None  # nothing to import: sign in by hand
    chromium = home / ".config/chromium"
    (chromium / "Local State").parent.mkdir(parents=True)
    (chromium / "Local State").write_text("{}")
    default = cookie_store(chromium / "Default/Cookies")
    other = cookie_store(chromium / "Profile 2/Cookies")
    assert resolve_source(None, home=home) == CookieSource("chromium", default)
    assert resolve_source(None, home=home, profile="Profile 2") == CookieSource("chromium", other)
    assert resolve_source("Chromium", home=home) == CookieSource("chromium", default)
    assert resolve_source(str(chromium), home=home) == CookieSource("chromium", default)
    assert resolve_source(str(chromium / "Profile 2"), home=home).cookie_db == other
    assert resolve_source(str(other), home=home).cookie_db == other
    brave = cookie_store(home / ".config/BraveSoftware/Brave-Browser/Default/Cookies")
    assert resolve_source("brave", home=home) == CookieSource("brave", brave)
    assert resolve_source(None, home=home, cookie_path=brave) == CookieSource("brave", brave)
    for bad in ("chrome", str(tmp_path)):
        with pytest.raises(OracleError) as missing:
            resolve_source(bad, home=home)
        assert missing.value.code == "auth_cookie_source_missing"
    with pytest.raises(OracleError) as nowhere:  # neither a browser nor a path: bad input
        resolve_source(str(tmp_path / "nowhere"), home=home)
    assert nowhere.value.code == "invalid_argument"
    with pytest.raises(OracleError):
        resolve_source(None, home=home, cookie_path=tmp_path / "gone/Cookies")


def test_password_variables_are_found_and_scrubbed() -> None:
    environ = {
        "CHROME_SAFE_STORAGE_PASSWORD": "a",
        "SWEET_COOKIE_BRAVE_SAFE_STORAGE_PASSWORD": "b",
        "KEYRING_PASSWORD": "c",
        "oraculum_keychain_password": "d",
        "PATH": "/bin",
        "PASSWORD_STORE_DIR": "/p",  # pass(1)'s directory, not a keyring password
        "KEYRING_BACKEND": "x",
    }
    names = [
        "CHROME_SAFE_STORAGE_PASSWORD",
        "KEYRING_PASSWORD",
        "SWEET_COOKIE_BRAVE_SAFE_STORAGE_PASSWORD",
        "oraculum_keychain_password",
    ]
    assert password_variables(environ) == names
    assert scrub_password_variables(environ) == names
    assert environ == {"PATH": "/bin", "PASSWORD_STORE_DIR": "/p", "KEYRING_BACKEND": "x"}

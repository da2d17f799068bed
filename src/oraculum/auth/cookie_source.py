"""Reading the provider's cookies from the user's own Chrome, Chromium or Brave profile.

The real profile is only ever read: its cookie database (and the journal or WAL beside it) is
copied into a private temporary directory and the copy is opened, so a browser that is running
keeps its locks and a half-written transaction is rolled back in the copy, never in the original.
Decryption is `rookiepy`'s: basic storage (`v10`, the fixed "peanuts" key), the Linux keyring
(`v11`, Secret Service or KWallet over D-Bus) and the macOS Keychain, including the SHA-256 host
prefix of cookie-store version 24 and later.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError

# Where each browser keeps its user-data directory, relative to the home directory.
BROWSER_ROOTS: dict[str, tuple[str, ...]] = {
    "chrome": (
        ".config/google-chrome",
        ".config/google-chrome-beta",
        "Library/Application Support/Google/Chrome",
    ),
    "chromium": (".config/chromium", "Library/Application Support/Chromium"),
    "brave": (
        ".config/BraveSoftware/Brave-Browser",
        "Library/Application Support/BraveSoftware/Brave-Browser",
    ),
}
BROWSER_NAMES = tuple(BROWSER_ROOTS)
DEFAULT_PROFILE = "Default"
# Chromium keeps the store beside the profile's other files; Windows builds moved it.
COOKIE_DB_CANDIDATES = ("Cookies", "Network/Cookies")
SIDECARS = ("-journal", "-wal", "-shm")

# Chromium's `samesite` column: -1 unspecified, 0 no restriction, 1 lax, 2 strict.
_SAME_SITE = {0: "None", 1: "Lax", 2: "Strict"}

# Passwords for the keyring/Keychain entry that encrypts cookies, as other cookie tools accept
# them. oraculum reads the keyring itself and never these, but a browser or helper it starts
# must not inherit one, so they are removed from the environment first.
PASSWORD_VARIABLE = re.compile(r"(SAFE_STORAGE|KEYRING|KEYCHAIN)\w*PASSWORD", re.IGNORECASE)


def password_variables(environ: Mapping[str, str]) -> list[str]:
    return sorted(name for name in environ if PASSWORD_VARIABLE.search(name))


def scrub_password_variables(environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Remove keyring password variables; return their names (never their values)."""
    target = os.environ if environ is None else environ
    names = password_variables(target)
    for name in names:
        target.pop(name, None)
    return names


@dataclass(frozen=True)
class CookieSource:
    browser: str  # chrome | chromium | brave | path
    cookie_db: Path

    @property
    def description(self) -> str:
        return f"{self.browser} cookie store {self.cookie_db}"


def _problem(message: str, value: Any, step: str) -> OracleError:
    return OracleError(
        ErrorCode.AUTH_COOKIE_SOURCE_MISSING,
        message,
        rejected_value=str(value),
        suggested_next_step=step,
    )


SOURCE_STEP = (
    "Pass --from-browser chrome|chromium|brave or the path of a signed-in profile, "
    "or sign in by hand with `oraculum auth --manual`."
)


def _as_path(spec: str) -> Path:
    path = Path(os.path.expanduser(spec))
    return path if path.is_absolute() else Path.cwd() / path


def check_source_spec(spec: str) -> None:
    """Refuse (``invalid_argument``) a --from-browser that is neither a browser oraculum
    reads nor an existing path, before anything is started or written."""
    if spec.strip().lower() in BROWSER_ROOTS or _as_path(spec).exists():
        return
    raise OracleError(
        ErrorCode.INVALID_ARGUMENT,
        f"--from-browser is neither {', '.join(BROWSER_NAMES)} nor an existing path: {spec}",
        rejected_value=spec,
        allowed_values=list(BROWSER_NAMES),
        suggested_next_step=SOURCE_STEP,
    )


def cookie_db_in(directory: Path, profile: str | None) -> Path | None:
    """The cookie store of a profile directory, or of ``profile`` inside a user-data directory."""
    bases = [directory]
    if (directory / "Local State").exists() or profile:
        bases.insert(0, directory / (profile or DEFAULT_PROFILE))
    for base in bases:
        for candidate in COOKIE_DB_CANDIDATES:
            if (base / candidate).is_file():
                return base / candidate
    return None


def browser_of_path(path: Path) -> str:
    text = str(path).lower()
    if "brave" in text:
        return "brave"
    if "google-chrome" in text or "google/chrome" in text:
        return "chrome"
    return "chromium"


def find_local_profile(home: Path, profile: str | None) -> CookieSource | None:
    """The first Chrome, Chromium or Brave profile under ``home`` that has a cookie store."""
    for browser, roots in BROWSER_ROOTS.items():
        for root in roots:
            found = cookie_db_in(home / root, profile or DEFAULT_PROFILE)
            if found is not None:
                return CookieSource(browser, found)
    return None


def resolve_source(
    spec: str | None,
    *,
    home: Path,
    profile: str | None = None,
    cookie_path: Path | None = None,
) -> CookieSource | None:
    """Where to import from. ``spec`` is a browser name or a path (a `Cookies` file, a profile
    directory or a user-data directory); without it, the configured cookie path, else the first
    local browser profile found; None when there is none (sign in by hand instead)."""
    step = SOURCE_STEP
    if spec is None:
        if cookie_path is not None:
            if not cookie_path.is_file():
                raise _problem(
                    f"auth.chromeCookiePath does not exist: {cookie_path}", cookie_path, step
                )
            return CookieSource(browser_of_path(cookie_path), cookie_path)
        return find_local_profile(home, profile)
    name = spec.strip().lower()
    if name in BROWSER_ROOTS:
        for root in BROWSER_ROOTS[name]:
            found = cookie_db_in(home / root, profile or DEFAULT_PROFILE)
            if found is not None:
                return CookieSource(name, found)
        raise _problem(f"No {name} profile with a cookie store was found in {home}.", spec, step)
    check_source_spec(spec)
    path = _as_path(spec)
    if path.is_file():
        return CookieSource(browser_of_path(path), path)
    if path.is_dir():
        found = cookie_db_in(path, profile)
        if found is not None:
            return CookieSource(browser_of_path(path), found)
        raise _problem(f"No Chromium cookie store (Cookies) in {path}.", spec, step)
    raise _problem(f"--from-browser names no file or directory: {spec}", spec, step)


def snapshot(cookie_db: Path, into: Path) -> Path:
    """Copy the store and whatever sidecars exist; a sidecar may vanish while we copy."""
    target = into / "Cookies"
    shutil.copyfile(cookie_db, target)
    for suffix in SIDECARS:
        side = cookie_db.with_name(cookie_db.name + suffix)
        try:
            shutil.copyfile(side, into / ("Cookies" + suffix))
        except FileNotFoundError:
            pass
    return target


def _rookiepy() -> Any:
    import rookiepy  # imported late: a compiled module only auth needs

    return rookiepy


def read_cookies(source: CookieSource, domains: list[str]) -> list[dict[str, Any]]:
    """Rows for ``domains`` (substring match) from a private snapshot of the store."""
    rookiepy = _rookiepy()
    with tempfile.TemporaryDirectory(prefix="oraculum-cookies-") as scratch:
        os.chmod(scratch, 0o700)
        try:
            copy = snapshot(source.cookie_db, Path(scratch))
        except OSError as exc:
            raise OracleError(
                ErrorCode.AUTH_COOKIE_READ_FAILED,
                f"Could not read {source.description}: {exc.strerror or exc}",
                rejected_value=str(source.cookie_db),
            ) from None
        try:
            rows = rookiepy.chromium_based(str(copy), domains)
        except Exception as exc:  # rookiepy raises RuntimeError with a Rust backtrace
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise OracleError(
                ErrorCode.AUTH_COOKIE_READ_FAILED,
                f"Could not decrypt {source.description}: {first}. Cookies encrypted with the "
                "system keyring (v11) need that keyring unlocked in this session"
                + (" (allow Keychain access if macOS asks)." if sys.platform == "darwin" else "."),
                rejected_value=str(source.cookie_db),
                suggested_next_step="Run oraculum from the desktop session that owns the "
                "browser, or sign in by hand with `oraculum auth --manual`.",
            ) from None
    return [_row(row) for row in rows]


def _row(row: Mapping[str, Any]) -> dict[str, Any]:
    same_site = row.get("same_site")
    return {
        "name": row.get("name"),
        "value": row.get("value"),
        "domain": row.get("domain"),
        "path": row.get("path"),
        "expires": row.get("expires"),
        "secure": row.get("secure"),
        "httpOnly": row.get("http_only"),
        "sameSite": _SAME_SITE.get(same_site) if isinstance(same_site, int) else None,
    }


def stored_cookie_names(profile_dir: Path, now_unix: float) -> list[tuple[str, str]]:
    """(name, host) of every unexpired cookie in a profile's store, read without a browser
    and without decrypting anything. Raises sqlite3.Error / OSError if the store is unreadable."""
    db = cookie_db_in(profile_dir, DEFAULT_PROFILE)
    if db is None:
        return []
    chrome_now = int((now_unix + 11_644_473_600) * 1e6)
    query = "SELECT name, host_key FROM cookies WHERE expires_utc = 0 OR expires_utc > ?"
    try:
        connection = sqlite3.connect(db.absolute().as_uri() + "?mode=ro", uri=True)
        try:
            return [(str(n), str(h)) for n, h in connection.execute(query, (chrome_now,))]
        finally:
            connection.close()
    except sqlite3.OperationalError:
        # A journal left hot by a crash needs write access to roll back: read a copy instead.
        with tempfile.TemporaryDirectory(prefix="oraculum-seedcheck-") as scratch:
            copy = snapshot(db, Path(scratch))
            connection = sqlite3.connect(copy)
            try:
                return [(str(n), str(h)) for n, h in connection.execute(query, (chrome_now,))]
            finally:
                connection.close()

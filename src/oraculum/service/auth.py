"""`auth`: create or repair the signed-in seed profile of a provider (`oraculum auth`,
`oracle_auth`), put the previous one back (`--rollback`), or carry a signed-in seed to another
machine (`auth --export` on the machine with a browser, `auth --import-seed` on the headless
one)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from oraculum.auth.bootstrap import AuthRequest, Watch, run_auth
from oraculum.auth.result import AuthResult
from oraculum.auth.seed import previous_dir, rollback_seed
from oraculum.core.config import provider_urls, seed_profile_dir
from oraculum.core.errors import ErrorCode, OracleError
from oraculum.core.presets import CHATGPT, normalize_provider
from oraculum.jobs.locks import named_lock
from oraculum.service.caller import Caller


def auth(
    provider: str | None = None,
    *,
    manual: bool = False,
    from_browser: str | None = None,
    rollback: bool = False,
    caller: Caller | None = None,
    headed: bool | None = None,
    watch: Watch | None = None,
    progress: Callable[[str], None] | None = None,
    home: Path | None = None,
) -> AuthResult:
    """Sign ``provider``'s seed profile in. By default the cookies of a local Chrome, Chromium
    or Brave profile are imported (read-only); with ``manual`` (or when no profile is found) a
    browser opens on the login page for the user. ``watch`` and ``home`` are for tests."""
    name = normalize_provider(provider) if provider is not None else CHATGPT
    if manual and from_browser:
        raise OracleError(
            ErrorCode.INVALID_ARGUMENT,
            "--manual and --from-browser exclude each other.",
            suggested_next_step="Pass one of them.",
        )
    if from_browser is not None:
        from oraculum.auth.cookie_source import check_source_spec

        check_source_spec(from_browser)  # bad input: exit 2, nothing started or left behind
    config = (caller or Caller()).config
    if rollback:
        return _rollback(name, seed_profile_dir(config, name))
    request = AuthRequest(
        provider=name,
        manual=manual,
        from_browser=from_browser,
        headed=headed,
        watch=watch,
        progress=progress,
        home=home,
    )
    return asyncio.run(run_auth(config, request))


def _rollback(provider: str, seed: Path) -> AuthResult:
    with named_lock("auth", timeout=60):
        generation = rollback_seed(seed)
    previous = previous_dir(seed)
    message = f"Restored the previous {provider} seed profile into {seed}" + (
        f" (generation {generation})." if generation else "."
    )
    kept = previous if previous.exists() else None
    return AuthResult(provider, "rollback", seed, kept, generation, message)


def export_auth(provider: str | None, bundle: Path, *, caller: Caller | None = None) -> AuthResult:
    """Write ``provider``'s signed-in seed into the new 0600 file ``bundle``."""
    from oraculum.auth.transfer import export_seed

    name = normalize_provider(provider) if provider is not None else CHATGPT
    config = (caller or Caller()).config
    seed = seed_profile_dir(config, name)
    with named_lock("auth", timeout=60):  # never half of a seed that a sign-in is replacing
        facts = export_seed(seed, name, provider_urls(config, name)[0], bundle.absolute())
    message = (
        f"Exported the signed-in {name} seed ({facts.files} files) to {bundle}. It signs in as "
        f"you: copy it only to a machine you trust, run `oraculum auth {name} --import-seed "
        f"{bundle.name}` there, then delete it."
    )
    return AuthResult(name, "export", seed, None, None, message, bundle=bundle.absolute())


def import_auth(bundle: Path, provider: str | None, *, caller: Caller | None = None) -> AuthResult:
    """Make the exported ``bundle`` ``provider``'s seed, keeping the old one as `.prev`."""
    from oraculum.auth.transfer import import_seed

    name = normalize_provider(provider) if provider is not None else CHATGPT
    config = (caller or Caller()).config
    seed = seed_profile_dir(config, name)
    with named_lock("auth", timeout=60):
        facts, generation = import_seed(
            bundle.absolute(), seed, name, provider_urls(config, name)[0]
        )
    previous = previous_dir(seed)
    message = (
        f"Imported the {name} seed from {bundle} ({facts.files} files) into {seed}. Check it "
        f"with `oraculum preflight --provider {name}`."
    )
    kept = previous if previous.exists() else None
    return AuthResult(
        name, "seed_import", seed, kept, generation, message, bundle=bundle.absolute()
    )

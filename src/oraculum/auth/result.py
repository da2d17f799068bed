"""What `oraculum auth` (`oracle_auth`) returns: a frozen result both surfaces render.

It lives apart from :mod:`oraculum.auth.bootstrap` so that a surface can name the type without
loading the browser driver.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from oraculum.core.surface import Surface, for_surface

__all__ = ["AuthMode", "AuthResult", "SignIn"]

AuthMode = Literal["import", "manual", "rollback", "export", "seed_import"]


@dataclass(frozen=True)
class SignIn:
    """What a sign-in (import or manual, not a rollback) found and where its run log is."""

    identity: str | None  # the account's email (or name) from the identity probe
    source: Path | None  # the cookie store imported from; None for a manual sign-in
    cookies: tuple[str, ...]  # the labels of the cookies the policy let in
    diagnostics_dir: Path
    log: Path


@dataclass(frozen=True)
class AuthResult:
    """A provider's seed profile after a sign-in or a rollback."""

    provider: str
    mode: AuthMode
    seed_profile_dir: Path
    previous_seed_dir: Path | None  # the kept `.prev`, when one exists
    generation: str | None
    message: str
    sign_in: SignIn | None = None  # None for a rollback
    bundle: Path | None = None  # the file an export wrote or an import read

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "provider": self.provider,
            "mode": self.mode,
            "seedProfileDir": str(self.seed_profile_dir),
            "previousSeedDir": _path(self.previous_seed_dir),
            "generation": self.generation,
        }
        if self.sign_in is not None:
            out.update(
                identity=self.sign_in.identity,
                source=_path(self.sign_in.source),
                cookies=list(self.sign_in.cookies),
                diagnosticsDir=str(self.sign_in.diagnostics_dir),
                log=str(self.sign_in.log),
            )
        if self.bundle is not None:
            out["bundle"] = str(self.bundle)
        out["message"] = self.message
        return out

    def text(self, surface: Surface) -> str:
        text = for_surface(self.message, surface) or "Signed in."
        if surface == "cli" and self.previous_seed_dir is not None:
            text += f"\n  previous seed kept at {self.previous_seed_dir}"
        return text


def _path(path: Path | None) -> str | None:
    return str(path) if path is not None else None

"""The default exclusion rules as data, and pure predicates over project-relative paths.

Paths here are project-relative, ``/``-separated ``str`` (non-UTF-8 bytes carried as
surrogate escapes), split into segments by the caller. Depth is measured from the project root,
never from the input that led to the path, so ``src/build`` survives while root ``build`` does
not.
"""

from __future__ import annotations

import re

# Directory names excluded at any depth: VCS metadata, dependency trees, caches, virtualenvs,
# toolchain outputs that are never source, and directories that conventionally hold secrets.
ANY_DEPTH_DIRS: frozenset[str] = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".pi",
        ".oracle-context",
        ".cursor",
        "node_modules",
        "target",
        ".venv",
        "venv",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".hypothesis",
        ".next",
        ".nuxt",
        ".svelte-kit",
        ".turbo",
        ".parcel-cache",
        ".cache",
        ".gradle",
        ".terraform",
        "DerivedData",
        ".build",
        ".pnpm-store",
        ".serverless",
        ".aws-sam",
        "secrets",
        ".secrets",
        # Cloud, SSH, GPG, Docker and Kubernetes credentials (`.aws/credentials`,
        # `.docker/config.json`, `.kube/config`): secrets under ordinary file names.
        ".aws",
        ".ssh",
        ".gnupg",
        ".docker",
        ".kube",
    }
)

# Directories whose files are credentials whatever their names: a walk of an explicitly named
# directory skips them too, unless the directory itself is named.
CREDENTIAL_DIRS: frozenset[str] = frozenset({".aws", ".ssh", ".gnupg", ".docker", ".kube"})

# Generated-output names excluded only directly under the project root: nested ones (e.g.
# `src/build`) are often real source, so they are kept and only pruned when over the ceiling.
ROOT_ONLY_DIRS: frozenset[str] = frozenset(
    {"coverage", "htmlcov", "tmp", "temp", ".tmp", "dist", "build", "out"}
)

# Consecutive directory segments excluded anywhere (Yarn's offline cache).
PATH_SEQUENCES: tuple[tuple[str, ...], ...] = ((".yarn", "cache"),)

_SEQUENCE_STARTS = frozenset(seq[0] for seq in PATH_SEQUENCES)

# Credential files stay excluded even inside an explicitly named (force-included) directory;
# only naming the file itself includes it. Every one is also excluded by default (below).
CREDENTIAL_NAMES: frozenset[str] = frozenset(
    {
        ".env",
        ".netrc",
        # Credential stores beyond the reference list; excluded by default for the same reason.
        ".git-credentials",
        ".pgpass",
        ".htpasswd",
        # Cloud and vault credentials that end up committed to many repositories.
        "credentials.json",
        "application_default_credentials.json",
        "secrets.yml",
        "secrets.yaml",
        ".vault-token",
    }
)
CREDENTIAL_SUFFIXES: tuple[str, ...] = (
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".jks",
    ".keystore",
    ".tfstate",
)

EXCLUDED_FILE_NAMES: frozenset[str] = CREDENTIAL_NAMES | frozenset(
    {
        ".coverage",
        ".DS_Store",
        ".scratchpad.md",
        "Thumbs.db",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
        "id_rsa",
    }
)

# Google service-account keys: `service-account.json`, `service-account-prod.json`…
SERVICE_ACCOUNT_PREFIX = "service-account"

# `.env.*` files hold secrets except these conventional, committed templates.
ENV_ALLOWLIST: frozenset[str] = frozenset(
    {".env.dist", ".env.example", ".env.sample", ".env.template"}
)

EXCLUDED_SUFFIXES: tuple[str, ...] = (
    *CREDENTIAL_SUFFIXES,
    ".db",
    ".pyc",
    ".pyd",
    ".pyo",
    ".sqlite",
    ".sqlite3",
    ".tsbuildinfo",
)

# SSH private keys: `id_rsa`, `id_ed25519_sk`, `id_work`… A dot means a public key (`.pub`) or an
# ordinary source file such as `id_utils.py`, neither of which is a secret.
_SSH_KEY = re.compile(r"id_[^./]+")

# Generated-output directory names that whole-repository pruning may drop when over the ceiling,
# unless they sit under a source root.
PRUNABLE_DIRS: frozenset[str] = frozenset(
    {"build", "dist", "out", "coverage", "htmlcov", "tmp", "temp", ".tmp"}
)
SOURCE_ROOTS: frozenset[str] = frozenset({"src", "source", "sources", "lib"})


def _env_file_excluded(name: str) -> bool:
    return name.startswith(".env.") and name not in ENV_ALLOWLIST


def _service_account_key(name: str) -> bool:
    return name.startswith(SERVICE_ACCOUNT_PREFIX) and name.endswith(".json")


def is_credential_file(name: str) -> bool:
    """Whether a file name looks like a credential (kept out even of force-included dirs)."""
    if name in CREDENTIAL_NAMES or _env_file_excluded(name) or _service_account_key(name):
        return True
    if name.endswith(CREDENTIAL_SUFFIXES) or ".tfstate." in name:
        return True
    return _SSH_KEY.fullmatch(name) is not None


# `.npmrc` and `.pypirc` usually hold only registry settings, which are worth sending; they are
# excluded (and kept out of named directories, like credentials) only when a line carries a
# token or password. Their content is read to decide, up to this many bytes: both are tiny, and
# one larger than this is excluded unread rather than half checked.
TOKEN_CHECKED_NAMES: frozenset[str] = frozenset({".npmrc", ".pypirc"})
TOKEN_CHECK_MAX_BYTES = 64 * 1024

# npm: `_authToken`, `_auth`, `_password` (or `password`), bare or scoped to a registry
# (`//registry.example/:_authToken=…`). A value that is only an environment reference
# (`${NPM_TOKEN}`, which npm expands at run time) is not a secret.
_NPMRC_SECRET = re.compile(
    rb"^[ \t]*(?://[^\s=]*:)?(?:_authToken|_auth|_password|password)[ \t]*=[ \t]*(\S[^\r\n]*)",
    re.MULTILINE | re.IGNORECASE,
)
_ENV_REFERENCE = re.compile(rb"[\"']?\$\{[A-Za-z_][A-Za-z0-9_]*\}[\"']?[ \t]*")
# pypirc (INI): `password = …` or `password: …`; comment lines start with `#` or `;`.
_PYPIRC_SECRET = re.compile(rb"^[ \t]*password[ \t]*[=:][ \t]*\S", re.MULTILINE | re.IGNORECASE)


def _holds_token(name: str, head: bytes) -> bool:
    if name == ".pypirc":
        return _PYPIRC_SECRET.search(head) is not None
    return any(_ENV_REFERENCE.fullmatch(m.group(1)) is None for m in _NPMRC_SECRET.finditer(head))


def token_exclusion_reason(name: str, size: int, head: bytes | None) -> str | None:
    """Why a `.npmrc`/`.pypirc` of ``size`` bytes whose content is ``head`` is excluded (pure).

    ``head`` is the whole file; it is None (not read) when the file is over the cap."""
    if size > TOKEN_CHECK_MAX_BYTES or head is None:
        return f"excluded {name} too large to check for tokens"
    if _holds_token(name, head):
        return f"excluded {name} holding a token"
    return None


# Every suffix is one extension (a single leading dot), so a set lookup of a name's last
# extension decides what `str.endswith(EXCLUDED_SUFFIXES)` would, at a fraction of the cost;
# this runs once per file of the project.
_SUFFIX_SET = frozenset(EXCLUDED_SUFFIXES)
assert all(s.rfind(".") == 0 for s in _SUFFIX_SET)


def file_exclusion_reason(name: str) -> str | None:
    """Why a file (or non-directory symlink) with this base name is excluded by default."""
    if name in EXCLUDED_FILE_NAMES:
        return f"excluded file name {name}"
    if name.startswith(".env.") and name not in ENV_ALLOWLIST:
        return "excluded .env.* file"
    suffix = name[name.rfind(".") :]
    if suffix in _SUFFIX_SET:
        return f"excluded suffix {suffix}"
    if suffix == ".json" and name.startswith(SERVICE_ACCOUNT_PREFIX):
        return "excluded service-account key"
    if ".tfstate." in name:
        return "excluded Terraform state"
    if name.startswith("id_") and _SSH_KEY.fullmatch(name):
        return "excluded SSH private key"
    return None


def dir_exclusion_reason(parts: tuple[str, ...] | list[str]) -> str | None:
    """Why the directory at ``parts`` (segments from the root) is itself excluded by default.

    Only the last segment (and, for sequences, its predecessors) is judged: callers walk
    ancestors themselves, so an excluded ancestor is reported once, at its own path.
    """
    name = parts[-1]
    if name in ANY_DEPTH_DIRS:
        return f"excluded directory {name}"
    if len(parts) == 1 and name in ROOT_ONLY_DIRS:
        return f"excluded root directory {name}"
    for seq in PATH_SEQUENCES:
        n = len(seq)
        if len(parts) >= n and tuple(parts[-n:]) == seq:
            return f"excluded path {'/'.join(seq)}"
    return None


def excluded_ancestor(parts: list[str]) -> tuple[int, str] | None:
    """The first ancestor directory (by segment count) of ``parts`` that is excluded, if any.

    ``parts`` is a full path; only ``parts[:-1]`` are ancestors. Returns (segments, reason).
    """
    dirs = parts[:-1]
    # Fast path for the common case (runs once per listed file).
    if (
        ANY_DEPTH_DIRS.isdisjoint(dirs)
        and (not dirs or dirs[0] not in ROOT_ONLY_DIRS)
        and _SEQUENCE_STARTS.isdisjoint(dirs)
    ):
        return None
    for depth in range(1, len(parts)):
        reason = dir_exclusion_reason(parts[:depth])
        if reason is not None:
            return depth, reason
    return None


def path_exclusion(parts: list[str], *, dir_like: bool) -> tuple[str, str] | None:
    """Whether a path is excluded by default: (excluded path, reason) or None.

    ``dir_like`` marks a symlink that points at a directory: it is judged by the directory
    rules on its own name, as the walk would judge the directory itself.
    """
    hit = excluded_ancestor(parts)
    if hit is not None:
        depth, why = hit
        return "/".join(parts[:depth]), why
    reason = dir_exclusion_reason(parts) if dir_like else file_exclusion_reason(parts[-1])
    if reason is not None:
        return "/".join(parts), reason
    return None


def prune_candidate(parts: list[str]) -> str | None:
    """The generated-output directory a file belongs to for pruning purposes, if any.

    The prefix up to the first segment named like generated output (never the file itself),
    provided no earlier segment is a source root: `apps/x/build/a.js` -> `apps/x/build`, while
    `src/build/keeper.ts` and `lib/app/dist/x` are never pruned.
    """
    for i, seg in enumerate(parts[:-1]):
        if seg in SOURCE_ROOTS:
            return None
        if seg in PRUNABLE_DIRS:
            return "/".join(parts[: i + 1])
    return None

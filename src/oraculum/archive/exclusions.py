"""The default exclusion rules as data, and pure predicates over project-relative paths.

Paths here are project-relative, ``/``-separated ``str`` (non-UTF-8 bytes carried as
surrogate escapes), split into segments by the caller. Depth is measured from the project root,
never from the input that led to the path, so ``src/build`` survives while root ``build`` does
not.

File rules and the directory rules that hold secrets judge a name case-insensitively and through
backup suffixes (:func:`rule_key`: ``ID_RSA.old`` is judged as ``id_rsa``), because a copy of
a credential is as secret as the original and case-insensitive filesystems write ``.ENV``.
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
        # Azure CLI and Oracle Cloud token caches and keys; gcloud's per-account store.
        ".azure",
        ".oci",
        "legacy_credentials",
    }
)

# Directories whose files are credentials whatever their names: a walk of an explicitly named
# directory skips them too, unless the directory itself is named.
CREDENTIAL_DIRS: frozenset[str] = frozenset(
    {".aws", ".ssh", ".gnupg", ".docker", ".kube", ".azure", ".oci", "legacy_credentials"}
)
# Any-depth names compared case-insensitively (`.SSH/` on a case-insensitive filesystem).
_ANY_DEPTH_KEYS: frozenset[str] = frozenset(d.lower() for d in ANY_DEPTH_DIRS)

# Generated-output names excluded only directly under the project root: nested ones (e.g.
# `src/build`) are often real source, so they are kept and only pruned when over the ceiling.
ROOT_ONLY_DIRS: frozenset[str] = frozenset(
    {"coverage", "htmlcov", "tmp", "temp", ".tmp", "dist", "build", "out"}
)

# Consecutive directory segments excluded anywhere (Yarn's offline cache), compared
# case-insensitively; the credential stores among them stay out of named directories too.
CREDENTIAL_SEQUENCES: tuple[tuple[str, ...], ...] = (
    (".config", "gcloud"),  # gcloud's tokens and adc.json
    (".local", "share", "keyrings"),  # GNOME keyrings
)
PATH_SEQUENCES: tuple[tuple[str, ...], ...] = ((".yarn", "cache"), *CREDENTIAL_SEQUENCES)

_SEQUENCE_STARTS = frozenset(seq[0] for seq in PATH_SEQUENCES)  # lower-case already

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
        # Per-tool credential files (issue 41): cloud CLIs, registries, tunnels, databases.
        "adc.json",  # gcloud application-default credentials, short name
        ".terraformrc",
        "terraform.rc",
        ".s3cfg",
        ".boto",
        ".my.cnf",
        "auth.json",  # Composer's registry credentials
        "rclone.conf",
        "ngrok.yml",
        ".envrc",  # direnv: exports, often secrets
        ".dev.vars",  # Cloudflare Wrangler's local secrets
        "privatekey",  # WireGuard's `wg genkey > privatekey`
        # Shell and tool histories: what was typed, passwords and tokens included (issue 38).
        ".bash_history",
        ".zsh_history",
        ".python_history",
        ".node_repl_history",
        ".psql_history",
        ".mysql_history",
        ".lesshst",
        ".viminfo",
    }
)
# Credentials under a generic name, known by the directory holding them:
# parent directory -> file names (both compared case-insensitively).
CREDENTIAL_FILES_IN: dict[str, frozenset[str]] = {
    "gh": frozenset({"hosts.yml"}),  # .config/gh/hosts.yml: the GitHub CLI's tokens
    ".config": frozenset({"hub"}),  # the hub CLI's tokens
    ".cargo": frozenset({"credentials", "credentials.toml"}),
    ".gem": frozenset({"credentials"}),
    ".heroku": frozenset({"credentials"}),
    ".terraform.d": frozenset({"credentials.tfrc.json"}),
    ".streamlit": frozenset({"secrets.toml"}),
    "doctl": frozenset({"config.yaml"}),  # .config/doctl/config.yaml: DigitalOcean's token
}
# Name prefixes of credential files (`kubeconfig`, `kubeconfig-prod.yaml`).
CREDENTIAL_PREFIXES: tuple[str, ...] = ("kubeconfig",)
CREDENTIAL_SUFFIXES: tuple[str, ...] = (
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".jks",
    ".keystore",
    ".tfstate",
    ".tfvars",  # Terraform variables: provider keys and passwords
)

EXCLUDED_FILE_NAMES: frozenset[str] = CREDENTIAL_NAMES | frozenset(
    {
        ".coverage",
        ".ds_store",
        ".scratchpad.md",
        "thumbs.db",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
        "id_rsa",
    }
)
# A backup's suffixes, taken off before the rules judge a name (`privkey.pem.bak`, `.env~`).
BACKUP_SUFFIXES: tuple[str, ...] = (".bak", ".old", ".orig", ".save", "~")

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


def rule_key(name: str) -> str:
    """The name the file rules judge (pure): lower-cased, backup suffixes taken off."""
    key = name.lower()
    while key.endswith(BACKUP_SUFFIXES):
        bare = key[:-1] if key[-1] == "~" else key[: key.rfind(".")]
        if not bare:  # a file named `.bak` is no backup of anything
            break
        key = bare
    return key


def _credential_reason(key: str, name: str, parent: str) -> str | None:
    """Why a file is a credential: ``key`` is its :func:`rule_key`, ``parent`` its directory's
    name (any case; "" at the root)."""
    if key in CREDENTIAL_NAMES:
        return f"excluded file name {key}"
    if key.startswith(".env.") and key not in ENV_ALLOWLIST:
        return "excluded .env.* file"
    suffix = key[key.rfind(".") :]
    if suffix in _CREDENTIAL_SUFFIX_SET:
        return f"excluded suffix {suffix}"
    if suffix == ".json" and key.startswith(SERVICE_ACCOUNT_PREFIX):
        return "excluded service-account key"
    if ".tfstate." in key:
        return "excluded Terraform state"
    if key.endswith(".tfvars.json"):
        return "excluded suffix .tfvars"
    if key.startswith("id_") and _SSH_KEY.fullmatch(key):
        return "excluded SSH private key"
    if key.startswith(CREDENTIAL_PREFIXES):
        return "excluded kubeconfig"
    if key in TOKEN_CHECKED_NAMES and key != name:
        # A copy or case variant of a token file: no tool reads it, so it is not checked.
        return f"excluded copy of {key}"
    if parent and key in CREDENTIAL_FILES_IN.get(parent.lower(), ()):
        return f"excluded {parent.lower()}/{key}"
    return None


def is_credential_file(name: str, parent: str = "") -> bool:
    """Whether a file name (in directory ``parent``) looks like a credential: kept out even of
    force-included directories."""
    return _credential_reason(rule_key(name), name, parent) is not None


def is_credential_dir(parts: tuple[str, ...] | list[str]) -> bool:
    """Whether the directory at ``parts`` holds credentials whatever its files are called."""
    if parts[-1].lower() in _CREDENTIAL_DIR_KEYS:
        return True
    return _sequence_hit(parts, CREDENTIAL_SEQUENCES) is not None


# `.npmrc` and `.pypirc` usually hold only registry settings, which are worth sending; they are
# excluded (and kept out of named directories, like credentials) only when a line carries a
# token or password. Their content is read to decide, up to this many bytes: both are tiny, and
# one larger than this is excluded unread rather than half checked.
TOKEN_CHECKED_NAMES: frozenset[str] = frozenset({".npmrc", ".pypirc", ".yarnrc.yml"})
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
# Yarn 2+ (YAML): `npmAuthToken: …` or `npmAuthIdent: …`, at any indentation (per-registry
# and per-scope settings nest them); `${NPM_TOKEN}` is an environment reference, not a secret.
_YARNRC_SECRET = re.compile(
    rb"^[ \t]*[\"']?npmAuth(?:Token|Ident)[\"']?[ \t]*:[ \t]*(\S[^\r\n#]*)", re.MULTILINE
)


def _holds_token(name: str, head: bytes) -> bool:
    if name == ".pypirc":
        return _PYPIRC_SECRET.search(head) is not None
    found = _YARNRC_SECRET if name == ".yarnrc.yml" else _NPMRC_SECRET
    return any(_ENV_REFERENCE.fullmatch(m.group(1)) is None for m in found.finditer(head))


def token_exclusion_reason(name: str, size: int, head: bytes | None) -> str | None:
    """Why a token file (`.npmrc`, `.pypirc`, `.yarnrc.yml`) of ``size`` bytes whose content is
    ``head`` is excluded (pure).

    ``head`` is the whole file; it is None (not read) when the file is over the cap."""
    if size > TOKEN_CHECK_MAX_BYTES or head is None:
        return f"excluded {name} too large to check for tokens"
    if _holds_token(name, head):
        return f"excluded {name} holding a token"
    return None


# Every suffix is one extension (a single leading dot), so a set lookup of a name's last
# extension decides what `str.endswith(...)` would, at a fraction of the cost; this runs once
# per file of the project.
_CREDENTIAL_SUFFIX_SET = frozenset(CREDENTIAL_SUFFIXES)
_OTHER_SUFFIX_SET = frozenset(EXCLUDED_SUFFIXES) - _CREDENTIAL_SUFFIX_SET
assert all(s.rfind(".") == 0 for s in EXCLUDED_SUFFIXES)
_CREDENTIAL_DIR_KEYS = frozenset(d.lower() for d in CREDENTIAL_DIRS)


def file_exclusion_reason(name: str, parent: str = "") -> str | None:
    """Why a file (or non-directory symlink) with this base name, in a directory named
    ``parent`` ("" at the root), is excluded by default."""
    key = name.lower()  # rule_key, without a call for the names that are no backup (most)
    if key.endswith(BACKUP_SUFFIXES):
        key = rule_key(key)
    reason = _credential_reason(key, name, parent)
    if reason is not None:
        return reason
    if key in EXCLUDED_FILE_NAMES:
        return f"excluded file name {key}"
    suffix = key[key.rfind(".") :]
    if suffix in _OTHER_SUFFIX_SET:
        return f"excluded suffix {suffix}"
    return None


def _sequence_hit(
    parts: tuple[str, ...] | list[str], sequences: tuple[tuple[str, ...], ...]
) -> tuple[str, ...] | None:
    """The sequence of ``sequences`` that ``parts`` ends with, compared case-insensitively."""
    for seq in sequences:
        n = len(seq)
        if len(parts) >= n and tuple(p.lower() for p in parts[-n:]) == seq:
            return seq
    return None


def dir_exclusion_reason(parts: tuple[str, ...] | list[str]) -> str | None:
    """Why the directory at ``parts`` (segments from the root) is itself excluded by default.

    Only the last segment (and, for sequences, its predecessors) is judged: callers walk
    ancestors themselves, so an excluded ancestor is reported once, at its own path.
    """
    name = parts[-1]
    key = name.lower()
    if key in _ANY_DEPTH_KEYS:
        return f"excluded directory {key if key in _CREDENTIAL_DIR_KEYS else name}"
    if len(parts) == 1 and name in ROOT_ONLY_DIRS:
        return f"excluded root directory {name}"
    seq = _sequence_hit(parts, PATH_SEQUENCES)
    if seq is not None:
        return f"excluded path {'/'.join(seq)}"
    return None


def excluded_ancestor(parts: list[str]) -> tuple[int, str] | None:
    """The first ancestor directory (by segment count) of ``parts`` that is excluded, if any.

    ``parts`` is a full path; only ``parts[:-1]`` are ancestors. Returns (segments, reason).
    """
    dirs = parts[:-1]
    # Fast path for the common case (runs once per directory of listed files).
    keys = [d.lower() for d in dirs]
    if (
        _ANY_DEPTH_KEYS.isdisjoint(keys)
        and (not dirs or dirs[0] not in ROOT_ONLY_DIRS)
        and _SEQUENCE_STARTS.isdisjoint(keys)
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
    if dir_like:
        reason = dir_exclusion_reason(parts)
    else:
        reason = file_exclusion_reason(parts[-1], parts[-2] if len(parts) > 1 else "")
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

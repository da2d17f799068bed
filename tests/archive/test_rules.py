"""Pure decisions: exclusion rules, input syntax, prune candidates, estimates, the prune plan."""

from __future__ import annotations

import errno
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oraculum.archive import exclusions as rules
from oraculum.archive import prune
from oraculum.archive.inputs import check_input_syntax, lexical_relative, names_git_dir
from oraculum.archive.selection import Entry, open_failure_reason
from oraculum.core.errors import OracleError


@pytest.mark.parametrize(
    ("path", "dir_like", "excluded_at"),
    [
        ("node_modules/a/index.js", False, "node_modules"),
        ("packages/x/node_modules/y.js", False, "packages/x/node_modules"),
        ("crates/a/target/debug/a", False, "crates/a/target"),
        ("build/out.js", False, "build"),
        ("dist/a.js", False, "dist"),
        ("secrets/token.txt", False, "secrets"),
        ("apps/a/.secrets/x", False, "apps/a/.secrets"),
        ("packages/app/.yarn/cache/z.zip", False, "packages/app/.yarn/cache"),
        (".pi/notes.md", False, ".pi"),
        ("a/.git/config", False, "a/.git"),
        (".env", False, ".env"),
        ("conf/.env.production", False, "conf/.env.production"),
        (".netrc", False, ".netrc"),
        (".scratchpad.md", False, ".scratchpad.md"),
        ("data/dev.sqlite", False, "data/dev.sqlite"),
        ("x/server.pem", False, "x/server.pem"),
        ("x/infra.tfstate.backup", False, "x/infra.tfstate.backup"),
        ("home/id_ed25519", False, "home/id_ed25519"),
        ("coverage", True, "coverage"),  # a root symlink to a directory is judged as one
        ("linked/node_modules", True, "linked/node_modules"),
    ],
)
def test_default_exclusions_hit(path: str, dir_like: bool, excluded_at: str) -> None:
    hit = rules.path_exclusion(path.split("/"), dir_like=dir_like)
    assert hit is not None
    assert hit[0] == excluded_at


@pytest.mark.parametrize(
    "path",
    [
        "src/build/keeper.ts",
        "apps/x/build/out.js",  # nested generated output survives the default pass
        "src/regular.ts",
        ".env.example",
        ".env.template",
        "docs/id_rsa.pub",
        "src/id_utils.py",
        "coverage.txt",
        "lib/tmp.py",
        "cache/data.json",  # `cache` only counts right after `.yarn`
        "yarn/cache/x",
    ],
)
def test_default_exclusions_keep(path: str) -> None:
    assert rules.path_exclusion(path.split("/"), dir_like=False) is None


def test_root_only_dirs_are_root_only() -> None:
    assert rules.dir_exclusion_reason(["build"]) is not None
    assert rules.dir_exclusion_reason(["src", "build"]) is None
    assert rules.dir_exclusion_reason(["apps", "x", "tmp"]) is None


@pytest.mark.parametrize(
    ("path", "excluded_at"),
    [
        (".aws/credentials", ".aws"),
        ("deploy/.aws/config", "deploy/.aws"),
        (".ssh/known_hosts", ".ssh"),
        ("home/.gnupg/private-keys-v1.d/k.key", "home/.gnupg"),
        (".docker/config.json", ".docker"),
        ("ops/.kube/config", "ops/.kube"),
        ("credentials.json", "credentials.json"),
        ("config/service-account-prod.json", "config/service-account-prod.json"),
        ("service-account.json", "service-account.json"),
        ("gcp/application_default_credentials.json", "gcp/application_default_credentials.json"),
        ("secrets.yml", "secrets.yml"),
        ("deploy/secrets.yaml", "deploy/secrets.yaml"),
        (".vault-token", ".vault-token"),
        (".netrc", ".netrc"),
        ("db/.pgpass", "db/.pgpass"),
        ("infra/terraform.tfstate", "infra/terraform.tfstate"),
        ("infra/terraform.tfstate.backup", "infra/terraform.tfstate.backup"),
        ("certs/client.p12", "certs/client.p12"),
        ("certs/client.pfx", "certs/client.pfx"),
        ("android/release.jks", "android/release.jks"),
        ("android/debug.keystore", "android/debug.keystore"),
    ],
)
def test_default_exclusions_keep_cloud_credentials_out(path: str, excluded_at: str) -> None:
    hit = rules.path_exclusion(path.split("/"), dir_like=False)
    assert hit is not None, path
    assert hit[0] == excluded_at


@pytest.mark.parametrize(
    "path",
    [
        "docker/config.json",  # only the dot-directories hold credentials
        "kube/config",
        "docs/service-account.md",
        "src/credentials.py",
        "my-credentials.json.example",
        "secrets.yml.example",
        "terraform.tf",
        ".npmrc",  # judged by its content when it is read, not by its name
        "web/.pypirc",
    ],
)
def test_credential_rules_keep_lookalikes(path: str) -> None:
    assert rules.path_exclusion(path.split("/"), dir_like=False) is None


@pytest.mark.parametrize(
    ("name", "text", "excluded"),
    [
        (".npmrc", "registry=https://registry.npmjs.org/\nsave-exact=true\n", False),
        (".npmrc", "//registry.npmjs.org/:_authToken=npm_abc123\n", True),
        (".npmrc", "registry=https://r.example/\n//r.example/:_auth=dXNlcjpwYXNz\n", True),
        (".npmrc", "_auth = dXNlcjpwYXNz\n", True),
        (".npmrc", "//r.example/:_password=cGFzcw==\n", True),
        (".npmrc", "_authToken=abc\n", True),
        (".npmrc", "; //registry.npmjs.org/:_authToken=abc\n# _auth=x\n", False),
        (".npmrc", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n", False),
        (".npmrc", "//registry.npmjs.org/:_authToken=\n", False),
        (".pypirc", "[distutils]\nindex-servers = pypi\n[pypi]\nusername = __token__\n", False),
        (".pypirc", "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc\n", True),
        (".pypirc", "[pypi]\nPassword: hunter2\n", True),
        (".pypirc", "[pypi]\npassword =\n", False),
        (".pypirc", "[pypi]\n# password = old\n", False),
    ],
)
def test_npmrc_excluded_only_with_token(name: str, text: str, excluded: bool) -> None:
    data = text.encode()
    reason = rules.token_exclusion_reason(name, len(data), data)
    assert (reason is not None) is excluded, reason
    if excluded:
        assert reason == f"excluded {name} holding a token"


def test_token_checked_file_too_large_to_check_stays_out() -> None:
    size = rules.TOKEN_CHECK_MAX_BYTES + 1
    reason = rules.token_exclusion_reason(".npmrc", size, None)
    assert reason == "excluded .npmrc too large to check for tokens"
    # A file within the cap is judged by what it says.
    small = b"registry=https://r.example/\n"
    assert rules.token_exclusion_reason(".npmrc", len(small), small) is None


@pytest.mark.parametrize(
    ("rel", "names_git"),
    [
        (".git", True),
        (".git/objects", True),
        (".git/config", True),
        ("vendor/lib/.git", True),
        ("vendor/lib/.git/HEAD", True),
        (".github/workflows/ci.yml", False),
        (".gitignore", False),
        ("repo.git", False),
        ("src/.gitkeep", False),
    ],
)
def test_naming_git_dir_is_recognised(rel: str, names_git: bool) -> None:
    assert names_git_dir(rel) is names_git


def test_unreadable_reason_is_the_strerror() -> None:
    denied = PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    assert open_failure_reason(denied) == "unreadable: Permission denied"
    refused = OSError(errno.EPERM, os.strerror(errno.EPERM))
    assert open_failure_reason(refused) == "unreadable: Operation not permitted"
    gone = FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))
    assert open_failure_reason(gone) == "could not open while archiving: No such file or directory"


@pytest.mark.parametrize(
    ("name", "credential"),
    [
        (".env", True),
        (".env.local", True),
        (".env.example", False),
        ("id_rsa", True),
        ("id_ed25519_sk", True),
        ("id_rsa.pub", False),
        ("id_utils.py", False),
        ("tls.key", True),
        ("cert.pem", True),
        (".netrc", True),
        (".npmrc", False),  # judged by content: see test_npmrc_excluded_only_with_token
        (".pypirc", False),
        ("credentials.json", True),
        ("service-account-prod.json", True),
        ("application_default_credentials.json", True),
        ("secrets.yml", True),
        ("secrets.yaml", True),
        (".vault-token", True),
        ("terraform.tfstate", True),
        ("terraform.tfstate.backup", True),
        ("store.jks", True),
        ("service-account.md", False),
        ("credentials.py", False),
        ("index.js", False),
        ("package.json", False),
    ],
)
def test_credential_files(name: str, credential: bool) -> None:
    assert rules.is_credential_file(name) is credential


@pytest.mark.parametrize(
    ("path", "candidate"),
    [
        ("apps/RalphMac/build/app.bin", "apps/RalphMac/build"),
        ("apps/x/dist/deep/out/a.js", "apps/x/dist"),  # the first generated segment wins
        ("src/build/keeper.ts", None),
        ("packages/lib/ui/dist/x.js", None),  # under a source root
        ("apps/build", None),  # the file itself is never a candidate
        ("docs/readme.md", None),
    ],
)
def test_prune_candidate(path: str, candidate: str | None) -> None:
    assert rules.prune_candidate(path.split("/")) == candidate


# -- input syntax ------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["", " ", "   ", "\t"])
def test_blank_inputs_rejected(raw: str) -> None:
    with pytest.raises(OracleError) as info:
        check_input_syntax(raw)
    assert info.value.code == "archive_input_blank"


@pytest.mark.parametrize("raw", [" . ", "./", ".//", "./.", "a/..", "extensions/..", " ./ "])
def test_root_aliases_rejected(raw: str) -> None:
    with pytest.raises(OracleError) as info:
        check_input_syntax(raw)
    assert info.value.code == "archive_input_whole_repo_sentinel_invalid"
    assert info.value.allowed_values == ["."]


@pytest.mark.parametrize("raw", [".", "src", " leading", "a/../b", ".env"])
def test_valid_syntax(raw: str) -> None:
    check_input_syntax(raw)


def test_lexical_relative() -> None:
    assert lexical_relative("/p", "src/../lib") == "lib"
    assert lexical_relative("/p", "../p2/x") is None
    assert lexical_relative("/p", "/p/x") == "x"
    assert lexical_relative("/p", "/etc/passwd") is None
    assert lexical_relative("/p", "a/..") == "."
    assert lexical_relative("/p", " x") == " x"


# -- grouping, estimates, plan -------------------------------------------------------------------


def _entries(*spec: tuple[str, int]) -> list[Entry]:
    return [Entry(path, "file", size, 0o644) for path, size in spec]


def test_group_entries_contiguous_runs() -> None:
    entries = _entries(
        ("README", 10), ("apps/a/build/x", 100), ("apps/a/build/y", 50), ("apps/a/src", 5)
    )
    top = prune.group_entries(entries, prune.top_level_key)
    assert [(g.path, g.is_dir, g.start, g.end, g.bytes) for g in top] == [
        ("README", False, 0, 1, 10),
        ("apps", True, 1, 4, 155),
    ]
    cands = prune.candidate_groups(entries)
    assert [(g.path, g.files(), g.bytes) for g in cands] == [("apps/a/build", 2, 150)]


def test_compressed_at_interpolates_and_is_exact_at_points() -> None:
    points = [(0, 0), (1000, 100), (3000, 1100)]
    assert prune.compressed_at(points, 1000) == 100
    assert prune.compressed_at(points, 2000) == 600
    assert prune.compressed_at(points, 5000) == 1100
    group = prune.Group("g", True, 1, 2, 0)
    assert prune.estimate_group(group, [0, 1000, 3000], points) == 1000


def _sized(path: str, compressed: int, size: int | None = None) -> prune.Sized:
    return prune.Sized(path, True, 1, size if size is not None else compressed * 2, compressed)


def test_plan_prune_largest_first_until_it_fits() -> None:
    cands = [_sized("a/build", 30), _sized("b/dist", 50), _sized("c/out", 10)]
    plan = prune.plan_prune(cands, size=120, limit=100)
    assert plan is not None
    assert [c.path for c in plan] == ["b/dist"]  # 120 - 50 = 70 < 99
    plan = prune.plan_prune(cands, size=170, limit=100)
    assert plan is not None
    assert [c.path for c in plan] == ["b/dist", "a/build"]


def test_plan_prune_none_when_everything_is_not_enough() -> None:
    assert prune.plan_prune([_sized("a/build", 10)], size=200, limit=100) is None


@given(
    st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=12),
    st.integers(min_value=1, max_value=200_000),
    st.integers(min_value=1, max_value=100_000),
)
def test_plan_prune_properties(sizes: list[int], total_extra: int, limit: int) -> None:
    cands = [_sized(f"p{i}/build", s) for i, s in enumerate(sizes)]
    size = sum(sizes) + total_extra
    plan = prune.plan_prune(cands, size=size, limit=limit)
    if plan is None:
        assert size - sum(sizes) >= limit
        return
    remaining = size - sum(c.compressed for c in plan)
    assert remaining < limit
    # Largest first: nothing left out is larger than anything chosen.
    chosen = {c.path for c in plan}
    left = [c.compressed for c in cands if c.path not in chosen]
    if plan and left:
        assert max(left) <= min(c.compressed for c in plan)


def test_too_large_message_shape() -> None:
    text = prune.too_large_message(
        provider_label="ChatGPT",
        size=20_000,
        limit=10_000,
        pruned=[],
        top_level=[prune.Sized("big.bin", False, 1, 20_000, 19_990)],
        remaining=[],
        prune_shortfall=None,
    )
    assert (
        "Oracle archive exceeds ChatGPT upload limit (0.01 MiB) after default exclusions." in text
    )
    assert "so submission stopped before dispatch" in text
    assert "- big.bin — 0.02 MiB" in text
    assert "Recommended retry order: (1)" in text


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("ID_RSA.old", "id_rsa"),
        ("privkey.pem.bak", "privkey.pem"),
        (".env~", ".env"),
        ("x.pem.bak.orig~", "x.pem"),
        ("Server.PEM.save", "server.pem"),
        (".bak", ".bak"),  # no backup of anything
        ("~", "~"),
        ("notes.txt", "notes.txt"),
    ],
)
def test_rule_key_lowers_and_strips_backup_suffixes(name: str, key: str) -> None:
    assert rules.rule_key(name) == key


@pytest.mark.parametrize(
    ("path", "excluded_at"),
    [
        (".SSH/id_work", ".SSH"),
        ("home/.Aws/config", "home/.Aws"),
        (".azure/msal_token_cache.json", ".azure"),
        (".oci/config", ".oci"),
        (".config/gcloud/configurations/config_default", ".config/gcloud"),
        ("h/.config/gcloud/legacy_credentials/me/adc.json", "h/.config/gcloud"),
        (".local/share/keyrings/login.keyring", ".local/share/keyrings"),
        (".config/gh/hosts.yml", ".config/gh/hosts.yml"),
        (".config/hub", ".config/hub"),
        (".cargo/credentials.toml", ".cargo/credentials.toml"),
        (".gem/credentials", ".gem/credentials"),
        (".heroku/credentials", ".heroku/credentials"),
        (".terraform.d/credentials.tfrc.json", ".terraform.d/credentials.tfrc.json"),
        (".streamlit/secrets.toml", ".streamlit/secrets.toml"),
        (".config/doctl/config.yaml", ".config/doctl/config.yaml"),
        ("env/prod.tfvars", "env/prod.tfvars"),
        ("env/x.auto.tfvars.json", "env/x.auto.tfvars.json"),
        ("kubeconfig-staging", "kubeconfig-staging"),
        (".npmrc.bak", ".npmrc.bak"),
        ("web/.NPMRC", "web/.NPMRC"),
        (".Bash_History", ".Bash_History"),
        ("a/.viminfo", "a/.viminfo"),
        ("Thumbs.DB", "Thumbs.DB"),
    ],
)
def test_issue_41_families_are_excluded_by_name(path: str, excluded_at: str) -> None:
    hit = rules.path_exclusion(path.split("/"), dir_like=False)
    assert hit is not None, path
    assert hit[0] == excluded_at


@pytest.mark.parametrize(
    "path",
    [
        ".config/gh/config.yml",
        "gh/hosts.yaml",
        ".cargo/config.toml",
        ".streamlit/config.toml",
        "config/hub.py",
        "src/Build/x.py",  # generated-output names keep their exact case
        "notes.old",
        "backup~/a.py",
    ],
)
def test_issue_41_neighbours_stay(path: str) -> None:
    assert rules.path_exclusion(path.split("/"), dir_like=False) is None


def test_credential_dirs_and_stores_stay_out_of_named_directories() -> None:
    assert rules.is_credential_dir(["build", ".AZURE"])
    assert rules.is_credential_dir(["x", ".config", "gcloud"])
    assert not rules.is_credential_dir(["x", "gcloud"])
    assert rules.is_credential_file("hosts.yml", "gh")
    assert not rules.is_credential_file("hosts.yml", "ansible")
    assert rules.is_credential_file("ID_ED25519.orig")


@pytest.mark.parametrize(
    ("name", "text", "excluded"),
    [
        (".yarnrc.yml", 'npmAuthToken: "npm_abc"\n', True),
        (".yarnrc.yml", "npmScopes:\n  acme:\n    npmAuthToken: abc123\n", True),
        (".yarnrc.yml", "npmAuthIdent: user:pass\n", True),
        (".yarnrc.yml", 'npmAuthToken: "${NPM_TOKEN}"\n', False),
        (".yarnrc.yml", "nodeLinker: node-modules\n", False),
    ],
)
def test_yarnrc_token_detection(name: str, text: str, excluded: bool) -> None:
    data = text.encode()
    assert (rules.token_exclusion_reason(name, len(data), data) is not None) is excluded

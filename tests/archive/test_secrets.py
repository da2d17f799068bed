"""Credentials stay out of archives by default, inside git and on plain directories, and naming
`.git` is refused unless asked for explicitly (issue 13 §5)."""

from __future__ import annotations

import base64
import json
import os
import random
from pathlib import Path

import pytest

from oraculum.archive import build_archive, select_entries
from oraculum.archive.exclusions import TOKEN_CHECK_MAX_BYTES
from oraculum.cli import main
from oraculum.core.errors import OracleError

from .support import extract, git_init, tree_listing, write

NPMRC_TOKEN = b"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=npm_s3cret\n"
NPMRC_PLAIN = b"registry=https://registry.npmjs.org/\nsave-exact=true\n"
PYPIRC_TOKEN = b"[pypi]\nusername = __token__\npassword = pypi-s3cret\n"
PYPIRC_PLAIN = b"[distutils]\nindex-servers = pypi\n"

CREDENTIALS = (
    ".aws/credentials",
    ".aws/config",
    "deploy/.ssh/id_work",
    "deploy/.ssh/known_hosts",
    ".gnupg/pubring.kbx",
    ".docker/config.json",
    "ops/.kube/config",
    "credentials.json",
    "config/service-account-prod.json",
    "gcloud/application_default_credentials.json",
    "secrets.yml",
    "deploy/secrets.yaml",
    ".vault-token",
    ".netrc",
    ".pgpass",
    "infra/terraform.tfstate",
    "infra/terraform.tfstate.backup",
    "certs/client.p12",
    "certs/client.pfx",
    "android/release.jks",
    "android/debug.keystore",
)
KEPT = ("src/app.py", "docker/config.json", "docs/service-account.md", "infra/main.tf")


def _archived(root: Path, inputs: list[str], out: Path) -> set[str]:
    """What the real build puts in the archive, read back with the system tar."""
    out.mkdir(parents=True, exist_ok=True)
    result = build_archive(root, inputs, out, "j", "chatgpt")
    return {p.decode() for p in tree_listing(extract(result.path, out / "x"))}


def test_default_exclusions_keep_cloud_credentials_out(tmp_path: Path, mode: str) -> None:
    root = tmp_path / "repo"
    for rel in CREDENTIALS + KEPT:
        write(root, rel, b"secret-" + rel.encode())
    if mode == "git":
        git_init(root)  # committed, as they are in many repositories
    selection = select_entries(root, ["."])
    assert [e.path for e in selection.entries] == sorted(KEPT)
    excluded = {x.path for x in selection.excluded}
    for directory in (".aws", "deploy/.ssh", ".gnupg", ".docker", "ops/.kube"):
        assert directory in excluded, directory
    assert _archived(root, ["."], tmp_path / "out") == set(KEPT)


def test_npmrc_excluded_only_with_token(tmp_path: Path, mode: str) -> None:
    root = tmp_path / "repo"
    write(root, ".npmrc", NPMRC_PLAIN)
    write(root, "web/.npmrc", NPMRC_TOKEN)
    write(root, ".pypirc", PYPIRC_PLAIN)
    write(root, "tools/.pypirc", PYPIRC_TOKEN)
    write(root, "big/.npmrc", b"registry=https://r.example/\n" * (TOKEN_CHECK_MAX_BYTES // 20))
    write(root, "src/app.py", b"print(1)\n")
    if mode == "git":
        git_init(root)
    selection = select_entries(root, ["."])
    kept = [".npmrc", ".pypirc", "src/app.py"]
    assert [e.path for e in selection.entries] == kept
    reasons = {x.path: x.reason for x in selection.excluded}
    assert reasons["web/.npmrc"] == "excluded .npmrc holding a token"
    assert reasons["tools/.pypirc"] == "excluded .pypirc holding a token"
    assert reasons["big/.npmrc"] == "excluded .npmrc too large to check for tokens"
    # The real build decides the same (it checks through the descriptor it then reads).
    assert _archived(root, ["."], tmp_path / "out") == set(kept)
    # Named itself, a token file goes in: the explicit override.
    assert [e.path for e in select_entries(root, ["web/.npmrc"]).entries] == ["web/.npmrc"]


def test_new_credentials_inside_explicit_directory_stay_out(tmp_path: Path, mode: str) -> None:
    """The credential rule: a named directory that the defaults exclude is walked without
    exclusions, except credentials (now also the new names, token files and credential
    directories); naming them themselves includes them."""
    root = tmp_path / "repo"
    for rel in (
        "build/out.js",
        "build/credentials.json",
        "build/service-account-ci.json",
        "build/secrets.yaml",
        "build/.vault-token",
        "build/terraform.tfstate",
        "build/.aws/credentials",
        "build/nested/.kube/config",
    ):
        write(root, rel, b"s")
    write(root, "build/.npmrc", NPMRC_TOKEN)
    write(root, "build/sub/.npmrc", NPMRC_PLAIN)
    if mode == "git":
        git_init(root)
    selection = select_entries(root, ["build"])
    assert [e.path for e in selection.entries] == ["build/out.js", "build/sub/.npmrc"]
    credentials = {x.path for x in selection.excluded if x.reason.startswith("credential")}
    assert credentials == {
        "build/.aws",
        "build/.npmrc",
        "build/.vault-token",
        "build/credentials.json",
        "build/nested/.kube",
        "build/secrets.yaml",
        "build/service-account-ci.json",
        "build/terraform.tfstate",
    }
    named = ["build/credentials.json", "build/.npmrc", "build/.aws"]
    assert [e.path for e in select_entries(root, named).entries] == [
        "build/.aws/credentials",
        "build/.npmrc",
        "build/credentials.json",
    ]


def _git_repo(root: Path) -> None:
    write(root, "src/app.py", b"print(1)\n")
    write(root, ".env", b"TOKEN=committed-secret")
    git_init(root)


@pytest.mark.parametrize("raw", [".git", ".git/objects", ".git/config", "src/../.git"])
def test_naming_git_dir_is_refused_without_flag(tmp_path: Path, raw: str) -> None:
    _git_repo(tmp_path)
    with pytest.raises(OracleError) as info:
        select_entries(tmp_path, [raw])
    error = info.value
    assert error.code == "archive_input_git_dir"
    assert error.exit_code == 2
    assert error.rejected_value == raw
    assert "--include-git-dir" in (error.suggested_next_step or "")
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(OracleError) as built:
        build_archive(tmp_path, ["src", raw], out, "j", "chatgpt")
    assert built.value.code == "archive_input_git_dir"
    assert os.listdir(out) == []


def test_naming_git_dir_with_flag_archives_it(tmp_path: Path) -> None:
    _git_repo(tmp_path)
    selection = select_entries(tmp_path, [".git"], include_git_dir=True)
    paths = {e.path for e in selection.entries}
    assert ".git/HEAD" in paths and ".git/config" in paths
    out = tmp_path / "out"
    out.mkdir()
    result = build_archive(tmp_path, [".git"], out, "j", "chatgpt", include_git_dir=True)
    assert b".git/HEAD" in tree_listing(extract(result.path, tmp_path / "x"))
    # The flag only permits naming it: the whole repository still leaves `.git` out.
    whole = select_entries(tmp_path, ["."], include_git_dir=True)
    assert not any(e.path.startswith(".git/") for e in whole.entries)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["--json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_archive_command_refuses_git_dir_without_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], oraculum_home: Path
) -> None:
    root = tmp_path / "repo"
    _git_repo(root)
    for extra in ([], ["--list"]):
        code, doc = _cli(capsys, "archive", *extra, "--project", str(root), ".git/objects")
        assert code == 2
        assert doc["error"]["code"] == "archive_input_git_dir"
        assert "--include-git-dir" in doc["error"]["suggestedNextStep"]
    code, doc = _cli(
        capsys, "archive", "--list", "--include-git-dir", "--project", str(root), ".git"
    )
    assert code == 0
    assert ".git/HEAD" in [e["path"] for e in doc["entries"]]
    out = tmp_path / "ctx.tar.zst"
    code, doc = _cli(
        capsys, "archive", "--include-git-dir", "--project", str(root), "--out", str(out), ".git"
    )
    assert code == 0
    assert b".git/HEAD" in tree_listing(extract(out, tmp_path / "x"))


def _pem(label: str) -> bytes:
    """A private key's shape: header, base64 body, footer (random bytes: no real key)."""
    body = base64.b64encode(random.Random(label).randbytes(300)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n{chr(10).join(lines)}\n-----END {label}-----\n".encode()


SERVICE_ACCOUNT_KEY = json.dumps(
    {
        "type": "service_account",
        "project_id": "demo",
        "private_key_id": "0123456789abcdef",
        "private_key": _pem("PRIVATE KEY").decode(),
        "client_email": "ci@demo.iam.gserviceaccount.com",
    },
    indent=2,
).encode()
TOKEN = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # 36 characters

# Issue 41 item 2: every family it names, and upper-case and backup spellings.
BY_NAME_41 = (
    ".config/gh/hosts.yml",
    ".config/gcloud/application_default_credentials.json",
    ".config/gcloud/legacy_credentials/me@example.com/adc.json",
    "adc.json",
    ".azure/msal_token_cache.json",
    ".azure/azureProfile.json",
    ".terraformrc",
    ".terraform.d/credentials.tfrc.json",
    "infra/prod.tfvars",
    "infra/secrets.auto.tfvars.json",
    "kubeconfig",
    "ops/kubeconfig-prod.yaml",
    ".s3cfg",
    ".boto",
    ".my.cnf",
    "auth.json",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".config/hub",
    ".config/rclone/rclone.conf",
    ".config/doctl/config.yaml",
    ".config/ngrok/ngrok.yml",
    ".heroku/credentials",
    ".oci/config",
    ".oci/oci_api_key.pem",
    ".envrc",
    "worker/.dev.vars",
    ".streamlit/secrets.toml",
    "wireguard/privatekey",
    "wireguard/wg0.key",
    # Backups.
    "home/id_rsa.old",
    "tls/privkey.pem.bak",
    ".npmrc.bak",
    ".git-credentials.bak",
    ".env~",
    "deploy/secrets.yml.orig",
    "kube/kubeconfig.save",
    # Upper-case spellings.
    ".ENV",
    "ID_RSA",
    "tls/Server.PEM",
    ".SSH/authorized_keys",
    ".AWS/credentials",
    "Credentials.JSON",
    # Issue 38 item 1: histories and per-user stores.
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".lesshst",
    ".viminfo",
    ".local/share/keyrings/login.keyring",
)
YARNRC_TOKEN = f'npmRegistryServer: "https://npm.example"\nnpmAuthToken: "npm_{TOKEN}"\n'.encode()
YARNRC_PLAIN = b'nodeLinker: node-modules\nnpmAuthToken: "${NPM_TOKEN}"\n'
# Innocent names, credential content: path -> (content, the reason it is excluded for).
BY_CONTENT_41 = {
    "app/config.json": (SERVICE_ACCOUNT_KEY, "credential content: service-account key"),
    "keys/deploy_key": (_pem("OPENSSH PRIVATE KEY"), "credential content: private key"),
    "certs/tls.txt": (_pem("RSA PRIVATE KEY"), "credential content: private key"),
    "notes/gpg.asc": (_pem("PGP PRIVATE KEY BLOCK"), "credential content: private key"),
    "scripts/token.txt": (f"ghp_{TOKEN}\n".encode(), "credential content: GitHub token"),
    "ci/settings.ini": (
        b"[gitlab]\ntoken = glpat-abcdefghij0123456789\n",
        "credential content: GitLab token",
    ),
    "bot/env.yaml": (
        b"slack: xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp\n",
        "credential content: Slack token",
    ),
    "llm/key.cfg": (
        b"key=sk-ant-api03-" + b"x" * 40 + b"\n",
        "credential content: Anthropic API key",
    ),
    "aws/profile.cfg": (
        b"[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
        b"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
        "credential content: AWS access key",
    ),
    "vpn/wg0.conf": (
        b"[Interface]\nAddress = 10.0.0.2/32\n"
        b"PrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\n",
        "credential content: WireGuard private key",
    ),
    ".yarnrc.yml": (YARNRC_TOKEN, "excluded .yarnrc.yml holding a token"),
}
# Lookalikes that stay in: a name rule's neighbours and content that only mentions a marker.
KEPT_41 = {
    "src/app.py": b"print(1)\n",
    "src/pem.py": b'HEADER = "-----BEGIN PRIVATE KEY-----"\n',  # a header with no body
    "docs/tokens.md": b"GitHub tokens start with `ghp_`; Slack's with `xoxb-`.\n",
    "docs/aws.md": b"An access key id alone (AKIAIOSFODNN7EXAMPLE) is not a secret.\n",
    "docs/history.md": b"# .bash_history\n",
    ".config/gh/config.yml": b"git_protocol: ssh\n",
    ".cargo/config.toml": b"[build]\njobs = 2\n",
    ".streamlit/config.toml": b"[server]\nport = 8501\n",
    "notes.old": b"old notes\n",
    "web/.yarnrc.yml": YARNRC_PLAIN,
    "infra/main.tf": b'resource "x" "y" {}\n',
    "big/config.json": SERVICE_ACCOUNT_KEY + b" " * 4096,  # over the content check's cap
}


def _tree_41(root: Path, mode: str) -> None:
    for rel in BY_NAME_41:
        write(root, rel, b"secret-" + rel.encode())
    for rel, (data, _why) in BY_CONTENT_41.items():
        write(root, rel, data)
    for rel, data in KEPT_41.items():
        write(root, rel, data)
    if mode == "git":
        git_init(root)  # committed, as they are in many repositories


def test_issue_41_families_cases_backups_and_contents_stay_out(tmp_path: Path, mode: str) -> None:
    root = tmp_path / "repo"
    _tree_41(root, mode)
    selection = select_entries(root, ["."])
    assert [e.path for e in selection.entries] == sorted(KEPT_41)
    reasons = {x.path: x.reason for x in selection.excluded}
    for rel, (_data, why) in BY_CONTENT_41.items():
        assert reasons[rel] == why, rel
    # The real build, reading each small file once, leaves out exactly the same.
    assert _archived(root, ["."], tmp_path / "out") == set(KEPT_41)


def test_content_exclusions_are_reported_by_the_build_and_archive_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], oraculum_home: Path
) -> None:
    root = tmp_path / "repo"
    _tree_41(root, "git")
    out = tmp_path / "out"
    out.mkdir()
    result = build_archive(root, ["."], out, "j", "chatgpt")
    built = {row["reason"]: row for row in result.excluded}
    assert built["credential content: private key"]["paths"] == 3
    assert "keys/deploy_key" in built["credential content: private key"]["examples"]
    code, doc = _cli(capsys, "archive", "--list", "--project", str(root), ".")
    assert code == 0
    listed = {row["reason"]: row for row in doc["excluded"]}
    assert listed["credential content: service-account key"]["examples"] == ["app/config.json"]
    assert main(["archive", "--list", "--project", str(root), "."]) == 0
    assert "credential content: GitHub token" in capsys.readouterr().out


def test_content_check_spares_named_files_not_named_directories(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _tree_41(root, "git")
    # Named itself, a file goes in whatever it holds: the explicit override.
    named = select_entries(root, ["keys/deploy_key", "scripts/token.txt"])
    assert [e.path for e in named.entries] == ["keys/deploy_key", "scripts/token.txt"]
    assert _archived(root, ["keys/deploy_key"], tmp_path / "a") == {"keys/deploy_key"}
    # Inside a named directory it is checked, and reported.
    write(root, "build/out.js", b"x")
    write(root, "build/key.txt", _pem("EC PRIVATE KEY"))
    forced = select_entries(root, ["build"])
    assert [e.path for e in forced.entries] == ["build/out.js"]
    assert {x.path: x.reason for x in forced.excluded} == {
        "build/key.txt": "credential content: private key"
    }
    assert _archived(root, ["build"], tmp_path / "b") == {"build/out.js"}

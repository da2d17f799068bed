"""Credentials stay out of archives by default, inside git and on plain directories, and naming
`.git` is refused unless asked for explicitly (issue 13 §5)."""

from __future__ import annotations

import json
import os
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

"""Issue 38 §7: sign in on the machine with a browser, carry the verified seed to a headless one
(`auth export` → `auth import-seed`), and run a real job there. Two oraculum homes stand in for
the two machines; real Chromium signs the first in through the simulator."""

from __future__ import annotations

import asyncio
import io
import json
import tarfile
from pathlib import Path

import pytest

from homes import finished
from oraculum.auth.simulator import seed_simulator_profile
from oraculum.auth.transfer import MANIFEST_NAME
from oraculum.browser.profile import read_seed_generation
from oraculum.browser.session import LaunchOptions
from oraculum.core.config import seed_profile_dir
from oraculum.core.errors import OracleError
from oraculum.core.paths import private_home_environment
from oraculum.jobs.model import Status
from oraculum.service.auth import export_auth, import_auth
from oraculum.service.caller import Caller
from oraculum.service.preflight import preflight
from oraculum.service.submit import submit
from oraculum.simulator import SimulatorThread

from .conftest import write_config


def _use_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in private_home_environment(home).items():
        monkeypatch.setenv(name, value)


@pytest.mark.browser
@pytest.mark.slow
def test_a_seed_signed_in_on_one_machine_runs_a_job_on_another(
    home: Path, sim: SimulatorThread, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(sim)  # the laptop: signed in through a real browser
    laptop_seed = seed_profile_dir(config, "chatgpt")
    asyncio.run(seed_simulator_profile(laptop_seed, sim.url, LaunchOptions.from_config(config)))
    bundle = tmp_path / "chatgpt-seed.bundle"
    exported = export_auth("chatgpt", bundle).to_json()
    assert exported["mode"] == "export" and exported["bundle"] == str(bundle)
    assert bundle.stat().st_mode & 0o777 == 0o600
    with tarfile.open(bundle) as tar:
        names = tar.getnames()
    assert MANIFEST_NAME in names and not any("Cache" in n.split("/") for n in names)
    with pytest.raises(OracleError) as again:
        export_auth("chatgpt", bundle)  # never overwrites
    assert again.value.code == "invalid_argument"

    _use_home(tmp_path / "server-home", monkeypatch)  # the headless machine
    server = write_config(sim)
    imported = import_auth(bundle, "chatgpt").to_json()
    server_seed = seed_profile_dir(server, "chatgpt")
    assert imported["mode"] == "seed_import" and imported["seedProfileDir"] == str(server_seed)
    assert read_seed_generation(server_seed) == imported["generation"]
    assert preflight(caller=Caller(session="s1"), provider="chatgpt").to_json()["ready"] is True
    job = submit(
        "Say hi.", ["README.md"], caller=Caller(session="s1"), provider="chatgpt", preset="instant"
    )
    done = finished(job.job["id"])
    assert done.status == Status.COMPLETE, done.error
    assert done.seed_generation == imported["generation"]


def _bundle(path: Path, members: dict[str, bytes], manifest: object = None) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        given = {MANIFEST_NAME: json.dumps(manifest).encode()} if manifest is not None else {}
        for name, data in {**given, **members}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


OURS = {"format": 1, "provider": "chatgpt", "files": 1}


@pytest.mark.parametrize(
    ("members", "manifest", "why"),
    [
        ({"profile/Default/Cookies": b"x"}, None, "no oraculum seed manifest"),
        ({"profile/../../evil": b"x"}, OURS, "points outside the profile"),
        ({"/etc/passwd": b"x"}, OURS, "points outside the profile"),
        ({"elsewhere/file": b"x"}, OURS, "points outside the profile"),
        ({"profile/Default/Cookies": b"x"}, {**OURS, "provider": "grok"}, "not chatgpt"),
        ({"profile/Default/Cookies": b"x"}, {"format": 99}, "not a format"),
        ({"profile/Default/Preferences": b"{}"}, OURS, "no signed-in chatgpt session"),
    ],
)
def test_a_bundle_that_is_not_ours_changes_nothing(
    home: Path, tmp_path: Path, members: dict[str, bytes], manifest: object, why: str
) -> None:
    bundle = _bundle(tmp_path / "b.bundle", members, manifest)
    with pytest.raises(OracleError) as refused:
        import_auth(bundle, "chatgpt")
    assert refused.value.code == "auth_bundle_invalid" and why in refused.value.message
    seeds = home / "data" / "seed-profiles"
    assert not seeds.exists() or list(seeds.iterdir()) == []  # nothing staged is left


def test_a_link_inside_a_bundle_is_refused(home: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "link.bundle"
    with tarfile.open(bundle, "w:gz") as tar:
        link = tarfile.TarInfo("profile/Default/Cookies")
        link.type = tarfile.SYMTYPE
        link.linkname = "/home/someone/.ssh/id_ed25519"
        tar.addfile(link)
    with pytest.raises(OracleError) as refused:
        import_auth(bundle, "chatgpt")
    assert refused.value.code == "auth_bundle_invalid"
    assert "neither a file nor a directory" in refused.value.message


def test_nothing_to_export_says_sign_in_first(home: Path, tmp_path: Path) -> None:
    with pytest.raises(OracleError) as refused:
        export_auth("grok", tmp_path / "grok.bundle")
    assert refused.value.code == "auth_seed_profile_unauthenticated"
    assert "oraculum auth grok" in (refused.value.suggested_next_step or "")
    assert not (tmp_path / "grok.bundle").exists()

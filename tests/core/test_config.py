"""Config schema, files, merge order, validation rules and provenance, on real files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from homes import bare_project, private_home  # noqa: F401 (the fixtures: project, home)
from oraculum.core import paths
from oraculum.core.config import (
    ARGUMENTS,
    BUILTIN,
    MIB,
    Config,
    LoadedConfig,
    all_keys,
    load_config,
    provider_urls,
    seed_profile_dir,
)
from oraculum.core.errors import ExitCode, OracleError
from oraculum.core.presets import PRESET_IDS

DAY_MS = 24 * 60 * 60 * 1000


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def write_global(data: Any) -> Path:
    return write_json(paths.global_config_path(), data)


def write_project(root: Path, data: Any) -> Path:
    return write_json(paths.project_config_path(root), data)


def invalid(
    *, project_root: Path | None = None, overrides: dict[str, Any] | None = None
) -> OracleError:
    with pytest.raises(OracleError) as caught:
        load_config(project_root, overrides)
    error = caught.value
    assert error.code == "oracle_config_invalid"
    assert error.exit_code == ExitCode.NOT_READY
    return error


def browser_invalid(key: str, value: Any) -> OracleError:
    """Set ``browser.<key>`` in the global file and expect a refusal naming file and key."""
    path = write_global({"browser": {key: value}})
    error = invalid()
    assert error.details == {"file": str(path), "key": f"browser.{key}"}
    assert str(path) in error.message
    assert f"browser.{key}" in error.message
    return error


def browser_ok(key: str, value: Any) -> Config:
    write_global({"browser": {key: value}})
    return load_config().config


# --- defaults and files -----------------------------------------------------------------------


def test_builtin_defaults(home: Path) -> None:
    loaded = load_config()
    config = loaded.config
    assert loaded.files == []
    assert set(loaded.sources) == set(all_keys())
    assert set(loaded.sources.values()) == {BUILTIN}
    assert (config.defaults.provider, config.defaults.preset, config.defaults.grok_mode) == (
        "chatgpt",
        "pro_extended",
        "heavy",
    )
    browser = config.browser
    assert browser.session_prefix == "oracle"
    assert browser.auth_seed_profile_dir == paths.data_dir() / "seed-profiles" / "chatgpt"
    assert browser.runtime_profiles_dir == paths.data_dir() / "runtime-profiles"
    assert (browser.max_concurrent_jobs, browser.clone_strategy, browser.run_mode) == (
        2,
        "auto",
        "headless",
    )
    assert browser.chat_url == "https://chatgpt.com/"
    assert browser.auth_url == "https://chatgpt.com/auth/login"
    assert browser.grok_url == "https://grok.com/"
    assert browser.executable_path is None and browser.user_agent is None
    assert browser.args == ("--disable-blink-features=AutomationControlled",)
    assert (config.auth.poll_ms, config.auth.bootstrap_timeout_ms) == (1000, 600_000)
    assert config.auth.chrome_profile is None and config.auth.chrome_cookie_path is None
    worker = config.worker
    assert (worker.poll_ms, worker.completion_timeout_ms) == (5000, 5_400_000)
    assert (worker.heartbeat_interval_ms, worker.stale_heartbeat_ms) == (10_000, 180_000)
    assert (worker.no_worker_grace_ms, worker.terminate_grace_ms) == (30_000, 5000)
    assert (worker.send_accept_timeout_ms, worker.url_verify_timeout_ms) == (20_000, 60_000)
    assert (worker.stale_stop_ms, worker.readiness_timeout_ms) == (120_000, 30_000)
    assert config.poller.interval_ms == 5000
    assert (config.artifacts.capture, config.artifacts.max_bytes) == (True, 25 * MIB)
    assert config.cleanup.complete_job_retention_ms == 14 * DAY_MS
    assert config.cleanup.failed_job_retention_ms == 30 * DAY_MS
    assert config.cleanup.wakeup_grace_ms == 10 * 60 * 1000
    archive = config.archive
    assert (archive.zstd_level, archive.threads, archive.timeout_ms) == (3, 0, 120_000)
    assert (archive.chatgpt_max_bytes, archive.grok_max_bytes) == (250 * MIB, 200 * MIB)
    assert (config.queue.max_queued_per_slot, config.queue.max_queued_archive_bytes) == (1, None)
    assert (config.notify.hook, config.notify.timeout_ms) == (None, 10_000)


def test_json_keys_are_camel_case(home: Path) -> None:
    data = load_config().config.to_json_dict()
    assert data["browser"]["maxConcurrentJobs"] == 2
    assert data["browser"]["authSeedProfileDir"] == str(paths.data_dir() / "seed-profiles/chatgpt")
    assert data["worker"]["completionTimeoutMs"] == 5_400_000
    assert "max_concurrent_jobs" not in json.dumps(data)
    assert json.loads(json.dumps(data)) == data


def test_seed_profile_dir_per_provider(home: Path) -> None:
    config = load_config().config
    seed = paths.data_dir() / "seed-profiles" / "chatgpt"
    assert seed_profile_dir(config, "chatgpt") == seed
    assert seed_profile_dir(config, "openai") == seed
    assert seed_profile_dir(config, "grok") == seed.with_name("chatgpt-grok")
    assert seed_profile_dir(config, "x.ai") == seed.with_name("chatgpt-grok")
    with pytest.raises(OracleError) as caught:
        seed_profile_dir(config, "claude")
    assert caught.value.code == "invalid_provider"


def test_provider_urls(home: Path) -> None:
    config = load_config(overrides={"browser": {"grokUrl": "http://127.0.0.1:9000/"}}).config
    assert provider_urls(config, "chatgpt") == (
        "https://chatgpt.com/",
        "https://chatgpt.com/auth/login",
    )
    assert provider_urls(config, "grok") == ("http://127.0.0.1:9000/", "http://127.0.0.1:9000/")


def test_queue_and_archive_limits(home: Path) -> None:
    config = load_config(overrides={"browser": {"maxConcurrentJobs": 3}}).config
    assert config.queue_depth == 3
    assert config.max_queued_archive_bytes == 3 * 250 * MIB
    assert config.archive_max_bytes("chatgpt") == 250 * MIB
    assert config.archive_max_bytes("grok") == 200 * MIB
    explicit = load_config(
        overrides={"queue": {"maxQueuedPerSlot": 4, "maxQueuedArchiveBytes": 1000}}
    ).config
    assert explicit.queue_depth == 8
    assert explicit.max_queued_archive_bytes == 1000


# --- precedence and provenance ----------------------------------------------------------------


def test_four_layers_on_one_key(home: Path, project: Path) -> None:
    key = "worker.pollMs"
    loaded = load_config(project)
    assert (loaded.config.worker.poll_ms, loaded.sources[key]) == (5000, BUILTIN)

    global_path = write_global({"worker": {"pollMs": 1000}, "browser": {"maxConcurrentJobs": 4}})
    loaded = load_config(project)
    assert (loaded.config.worker.poll_ms, loaded.sources[key]) == (1000, str(global_path))
    assert loaded.files == [global_path]

    project_path = write_project(project, {"worker": {"pollMs": 2000}})
    loaded = load_config(project)
    assert (loaded.config.worker.poll_ms, loaded.sources[key]) == (2000, str(project_path))
    assert loaded.files == [global_path, project_path]

    loaded = load_config(project, overrides={"worker": {"pollMs": 3000}})
    assert (loaded.config.worker.poll_ms, loaded.sources[key]) == (3000, ARGUMENTS)
    # Layers that did not touch a key leave its provenance alone.
    assert loaded.config.browser.max_concurrent_jobs == 4
    assert loaded.sources["browser.maxConcurrentJobs"] == str(global_path)
    assert loaded.sources["worker.completionTimeoutMs"] == BUILTIN


def test_project_file_is_ignored_without_a_project_root(home: Path, project: Path) -> None:
    write_project(project, {"worker": {"pollMs": 2000}})
    assert load_config().config.worker.poll_ms == 5000


def test_objects_merge_and_arrays_replace(home: Path, project: Path) -> None:
    write_global(
        {
            "worker": {"pollMs": 1000},
            "browser": {"args": ["--lang=en", "--disable-gpu"]},
            "notify": {"hook": ["notify-send", "oraculum"]},
        }
    )
    write_project(project, {"worker": {"completionTimeoutMs": 60_000}})
    loaded = load_config(project, overrides={"browser": {"args": ["--mute-audio"]}})
    assert loaded.config.worker.poll_ms == 1000
    assert loaded.config.worker.completion_timeout_ms == 60_000
    assert loaded.config.browser.args == ("--mute-audio",)
    assert loaded.config.notify.hook == ("notify-send", "oraculum")
    assert loaded.sources["browser.args"] == ARGUMENTS


def test_null_clears_an_optional_value(home: Path) -> None:
    write_global({"browser": {"executablePath": "/usr/bin/chromium"}})
    assert load_config().config.browser.executable_path == Path("/usr/bin/chromium")
    config = load_config(overrides={"browser": {"executablePath": None}}).config
    assert config.browser.executable_path is None


def test_error_blames_the_layer_that_set_the_value(home: Path, project: Path) -> None:
    write_global({"worker": {"pollMs": 1000}})
    error = invalid(overrides={"worker": {"pollMs": 5}})
    assert error.details == {"file": ARGUMENTS, "key": "worker.pollMs"}
    assert error.rejected_value == 5
    project_path = write_project(project, {"worker": {"pollMs": 7}})
    error = invalid(project_root=project)
    assert error.details == {"file": str(project_path), "key": "worker.pollMs"}


# --- files ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["{", "{'a': 1}", "", '{"worker": {}} trailing'])
def test_unparseable_json_names_the_file(home: Path, text: str) -> None:
    path = write_global(text)
    error = invalid()
    assert error.details == {"file": str(path), "key": None}
    assert str(path) in error.message and "not valid JSON" in error.message


@pytest.mark.parametrize("data", [[], "a string", 3, None])
def test_non_object_file_is_refused(home: Path, project: Path, data: Any) -> None:
    path = write_project(project, json.dumps(data))
    error = invalid(project_root=project)
    assert error.details["file"] == str(path)
    assert "JSON object" in error.message


def test_duplicate_keys_are_refused(home: Path) -> None:
    path = write_global('{"worker": {"pollMs": 1000, "pollMs": 2000}}')
    error = invalid()
    assert error.details["file"] == str(path)
    assert "pollMs" in error.message


def test_unreadable_file_is_refused(home: Path) -> None:
    paths.global_config_path().mkdir(parents=True)  # a directory where the file should be
    error = invalid()
    assert error.details["file"] == str(paths.global_config_path())


def test_project_file_may_not_set_browser_executable_path(home: Path, project: Path) -> None:
    path = write_project(project, {"browser": {"executablePath": "/usr/bin/chromium"}})
    error = invalid(project_root=project)
    assert error.details == {"file": str(path), "key": "browser.executablePath"}
    assert str(path) in error.message
    assert "browser.executablePath" in error.message
    assert "project config" in error.message


@pytest.mark.parametrize(
    "data",
    [
        {"auth": {"pollMs": 1000}},
        {"archive": {"zstdLevel": 5}},
        {"queue": {"maxQueuedPerSlot": 2}},
        {"notify": {"hook": ["sh", "-c", "curl evil"]}},
        {"browser": {}},
    ],
)
def test_project_file_may_only_set_job_sections(
    home: Path, project: Path, data: dict[str, Any]
) -> None:
    path = write_project(project, data)
    error = invalid(project_root=project)
    assert error.details["file"] == str(path)
    section = next(iter(data))
    assert error.details["key"].split(".")[0] == section


def test_project_file_may_set_the_allowed_sections(home: Path, project: Path) -> None:
    write_project(
        project,
        {
            "defaults": {"preset": "thinking_light"},
            "worker": {"completionTimeoutMs": 1000},
            "poller": {"intervalMs": 100},
            "artifacts": {"capture": False},
            "cleanup": {"failedJobRetentionMs": 0},
        },
    )
    config = load_config(project).config
    assert config.defaults.preset == "thinking_light"
    assert config.poller.interval_ms == 100
    assert config.artifacts.capture is False


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"bogus": {}}, "bogus"),
        ({"browser": {"bogus": 1}}, "browser.bogus"),
        ({"browser": {"max_concurrent_jobs": 3}}, "browser.max_concurrent_jobs"),
        ({"browser": {"sessionName": "x"}}, "browser.sessionName"),
    ],
)
def test_unknown_keys_are_refused(home: Path, data: dict[str, Any], key: str) -> None:
    path = write_global(data)
    error = invalid()
    assert error.details == {"file": str(path), "key": key}
    path.unlink()
    error = invalid(overrides=data)
    assert error.details == {"file": ARGUMENTS, "key": key}


def test_section_must_be_an_object(home: Path) -> None:
    path = write_global({"worker": [1]})
    error = invalid()
    assert error.details == {"file": str(path), "key": "worker"}


# --- browser profile paths --------------------------------------------------------------------

PROFILE_KEYS = ["authSeedProfileDir", "runtimeProfilesDir"]

BROWSER_TREES = [
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware/Brave-Browser",
    "Library/Application Support/Google/Chrome",
    "Library/Application Support/Chromium",
    "Library/Application Support/BraveSoftware/Brave-Browser",
]


@pytest.mark.parametrize("key", PROFILE_KEYS)
def test_profile_path_tilde_is_expanded(home: Path, key: str) -> None:
    config = browser_ok(key, "~/oraculum/profile")
    assert getattr(config.browser, _snake(key)) == home / "oraculum" / "profile"


@pytest.mark.parametrize("key", PROFILE_KEYS)
def test_profile_path_is_normalised(home: Path, tmp_path: Path, key: str) -> None:
    config = browser_ok(key, f"{tmp_path}/a/./b/../c//d/")
    assert getattr(config.browser, _snake(key)) == tmp_path / "a" / "c" / "d"


@pytest.mark.parametrize("key", PROFILE_KEYS)
@pytest.mark.parametrize("value", ["relative/dir", "./x", "", "   ", "~x-not-a-user/y"])
def test_profile_path_must_be_absolute(home: Path, key: str, value: str) -> None:
    error = browser_invalid(key, value)
    assert error.rejected_value == value


@pytest.mark.parametrize("key", PROFILE_KEYS)
def test_profile_path_must_be_a_string(home: Path, key: str) -> None:
    browser_invalid(key, 7)


@pytest.mark.parametrize("key", PROFILE_KEYS)
@pytest.mark.parametrize("value", ["/", "//", "/.", "/tmp/.."])
def test_profile_path_may_not_be_root(home: Path, key: str, value: str) -> None:
    assert "filesystem root" in browser_invalid(key, value).message


@pytest.mark.parametrize("key", PROFILE_KEYS)
@pytest.mark.parametrize("value", ["~", "~/", "HOME", "HOME/", "HOME/x/.."])
def test_profile_path_may_not_be_home(home: Path, key: str, value: str) -> None:
    error = browser_invalid(key, value.replace("HOME", str(home)))
    assert "home directory itself" in error.message


@pytest.mark.parametrize("key", PROFILE_KEYS)
def test_profile_path_may_not_contain_home(home: Path, key: str) -> None:
    error = browser_invalid(key, str(home.parent))
    assert "contain the home directory" in error.message


@pytest.mark.parametrize("key", PROFILE_KEYS)
@pytest.mark.parametrize("tree", BROWSER_TREES)
@pytest.mark.parametrize("below", ["", "/Default", "/Profile 1/Cookies"])
def test_profile_path_may_not_be_inside_a_browser_tree(
    home: Path, key: str, tree: str, below: str
) -> None:
    error = browser_invalid(key, f"~/{tree}{below}")
    assert "inside a real browser's user-data directory" in error.message
    assert str(home / tree) in error.message


@pytest.mark.parametrize("key", PROFILE_KEYS)
@pytest.mark.parametrize("value", ["~/.config", "~/Library/Application Support", "~/Library"])
def test_profile_path_may_not_contain_a_browser_tree(home: Path, key: str, value: str) -> None:
    assert "contain a real browser's" in browser_invalid(key, value).message


@pytest.mark.parametrize("key", PROFILE_KEYS)
def test_profile_path_symlinked_into_a_browser_tree_is_refused(
    home: Path, tmp_path: Path, key: str
) -> None:
    chrome = home / ".config" / "google-chrome"
    chrome.mkdir(parents=True)
    link = tmp_path / "innocent"
    link.symlink_to(chrome)
    browser_invalid(key, str(link / "Default"))


@pytest.mark.parametrize("key", PROFILE_KEYS)
def test_sibling_of_a_browser_tree_is_fine(home: Path, key: str) -> None:
    config = browser_ok(key, "~/.config/oraculum-profiles")
    assert getattr(config.browser, _snake(key)) == home / ".config" / "oraculum-profiles"


@pytest.mark.parametrize(
    ("seed", "runtime"),
    [
        ("/srv/o/seed", "/srv/o/seed"),
        ("/srv/o/seed", "/srv/o/seed/runtime"),
        ("/srv/o/seed/", "/srv/o/seed/a/b"),
        ("/srv/o/all/seed", "/srv/o/all"),
        ("/srv/o/seed", "/srv/o/seed-grok"),
        ("/srv/o/seed", "/srv/o/seed-grok/runtime"),
    ],
)
def test_runtime_dir_and_seed_dir_must_not_overlap(home: Path, seed: str, runtime: str) -> None:
    path = write_global({"browser": {"authSeedProfileDir": seed, "runtimeProfilesDir": runtime}})
    error = invalid()
    assert error.details == {"file": str(path), "key": "browser.runtimeProfilesDir"}
    assert "auth seed profile" in error.message


def test_runtime_dir_next_to_seed_dir_is_fine(home: Path) -> None:
    write_global(
        {"browser": {"authSeedProfileDir": "/srv/o/seed", "runtimeProfilesDir": "/srv/o/seedling"}}
    )
    assert load_config().config.browser.runtime_profiles_dir == Path("/srv/o/seedling")


def test_overlap_blames_the_layer_that_set_the_runtime_dir(home: Path) -> None:
    write_global({"browser": {"authSeedProfileDir": "/srv/o/seed"}})
    error = invalid(overrides={"browser": {"runtimeProfilesDir": "/srv/o/seed/rt"}})
    assert error.details == {"file": ARGUMENTS, "key": "browser.runtimeProfilesDir"}


# --- other browser settings -------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, 33, -1, 2.0, "3", True, None])
def test_max_concurrent_jobs_range(home: Path, value: Any) -> None:
    error = browser_invalid("maxConcurrentJobs", value)
    assert error.rejected_value == value


@pytest.mark.parametrize("value", [1, 32])
def test_max_concurrent_jobs_bounds_are_accepted(home: Path, value: int) -> None:
    assert browser_ok("maxConcurrentJobs", value).browser.max_concurrent_jobs == value


@pytest.mark.parametrize(
    "url",
    [
        "https://chatgpt.com/",
        "https://chatgpt.com",
        "https://ChatGPT.com/?model=x",
        "https://chatgpt.com:443/",
        "https://chat.openai.com/auth/login",
        "http://127.0.0.1:8123/",
        "http://localhost/",
        "http://LOCALHOST:1/auth/login",
        "http://[::1]:9/",
    ],
)
@pytest.mark.parametrize("key", ["chatUrl", "authUrl"])
def test_chatgpt_urls_accepted(home: Path, key: str, url: str) -> None:
    assert getattr(browser_ok(key, url).browser, _snake(key)) == url


@pytest.mark.parametrize(
    "url",
    [
        "http://chatgpt.com/",
        "https://evil.example/",
        "https://chatgpt.com.evil.example/",
        "https://evil.chatgpt.com/",
        "https://user:pw@chatgpt.com/",
        "https://user@chatgpt.com/",
        "https://chatgpt.com@evil.example/",
        "http://user:pw@127.0.0.1:8000/",
        "https://chatgpt.com:8443/",
        "https://chatgpt.com:bad/",
        "https://grok.com/",
        "http://10.0.0.1/",
        "http://127.0.0.2/",
        "https://127.0.0.1/",
        "ftp://localhost/",
        "chatgpt.com",
        "https://chatgpt.com/ x",
        "https://chatgpt.com\\@evil.example/",
        "",
    ],
)
@pytest.mark.parametrize("key", ["chatUrl", "authUrl"])
def test_chatgpt_urls_refused(home: Path, key: str, url: str) -> None:
    error = browser_invalid(key, url)
    assert error.rejected_value == url


@pytest.mark.parametrize("url", ["https://grok.com/", "http://127.0.0.1:7000/", "http://[::1]/"])
def test_grok_url_accepted(home: Path, url: str) -> None:
    assert browser_ok("grokUrl", url).browser.grok_url == url


@pytest.mark.parametrize(
    "url",
    ["https://chatgpt.com/", "http://grok.com/", "https://x.ai/", "https://a:b@grok.com/"],
)
def test_grok_url_refused(home: Path, url: str) -> None:
    browser_invalid("grokUrl", url)


@pytest.mark.parametrize(
    "arg",
    [
        "--user-data-dir=/home/me/.config/google-chrome",
        "--user-data-dir",
        "-user-data-dir=/x",
        "/user-data-dir=/x",
        "--USER-DATA-DIR=/x",
        " --user-data-dir=/x",
        "--remote-debugging-port=9222",
        "--remote-debugging-port",
        "-remote-debugging-pipe",
        "/Remote-Debugging-Address=0.0.0.0",
        "--remote-debugging-targets=x",
        "--remote-allow-origins=*",
        "-REMOTE-ALLOW-ORIGINS",
        "/remote-allow-origins",
    ],
)
def test_browser_args_may_not_take_over_profile_or_debugging(home: Path, arg: str) -> None:
    error = browser_invalid("args", ["--lang=en", arg])
    assert error.rejected_value == arg
    assert "entry 1" in error.message


@pytest.mark.parametrize("arg", ["", "   "])
def test_browser_args_entries_must_not_be_empty(home: Path, arg: str) -> None:
    browser_invalid("args", [arg])


@pytest.mark.parametrize("value", ["--lang=en", ["--lang=en", 5], {"a": 1}])
def test_browser_args_must_be_a_list_of_strings(home: Path, value: Any) -> None:
    browser_invalid("args", value)


def test_harmless_browser_args_are_accepted(home: Path) -> None:
    args = ["--lang=en", "--disable-gpu", "--user-data-directory-hint", "--window-size=800,600"]
    assert browser_ok("args", args).browser.args == tuple(args)
    assert browser_ok("args", []).browser.args == ()


def test_executable_path_must_be_absolute(home: Path) -> None:
    browser_invalid("executablePath", "chromium")
    config = browser_ok("executablePath", "~/bin/chromium")
    assert config.browser.executable_path == home / "bin" / "chromium"


@pytest.mark.parametrize("value", ["", "  ", 5])
def test_user_agent_must_be_a_non_empty_string(home: Path, value: Any) -> None:
    browser_invalid("userAgent", value)


@pytest.mark.parametrize("value", ["", "a b", "a/b", "x" * 33, 5])
def test_session_prefix_is_a_short_safe_name(home: Path, value: Any) -> None:
    browser_invalid("sessionPrefix", value)


@pytest.mark.parametrize(("key", "value"), [("cloneStrategy", "apfs-clone"), ("runMode", "gui")])
def test_enums_list_allowed_values(home: Path, key: str, value: str) -> None:
    error = browser_invalid(key, value)
    assert error.allowed_values
    assert value not in error.allowed_values


@pytest.mark.parametrize("value", ["auto", "reflink", "copy"])
def test_clone_strategies(home: Path, value: str) -> None:
    assert browser_ok("cloneStrategy", value).browser.clone_strategy == value


# --- the other sections -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("section", "key", "bad", "good"),
    [
        ("auth", "pollMs", 99, 100),
        ("auth", "bootstrapTimeoutMs", 999, 1000),
        ("worker", "pollMs", 99, 100),
        ("worker", "completionTimeoutMs", 999, 1000),
        ("worker", "heartbeatIntervalMs", 99, 100),
        ("worker", "terminateGraceMs", -1, 0),
        ("poller", "intervalMs", 99, 100),
        ("artifacts", "maxBytes", 0, 1),
        ("cleanup", "completeJobRetentionMs", -1, 0),
        ("cleanup", "failedJobRetentionMs", -1, 0),
        ("cleanup", "wakeupGraceMs", -1, 0),
        ("archive", "zstdLevel", 0, 1),
        ("archive", "zstdLevel", 23, 22),
        ("archive", "threads", -1, 0),
        ("archive", "timeoutMs", 999, 1000),
        ("archive", "chatgptMaxBytes", 0, 1),
        ("archive", "grokMaxBytes", 0, 1),
        ("queue", "maxQueuedPerSlot", -1, 0),
        ("queue", "maxQueuedArchiveBytes", 0, 1),
        ("notify", "timeoutMs", 99, 100),
    ],
)
def test_numeric_bounds(home: Path, section: str, key: str, bad: int, good: int) -> None:
    path = write_global({section: {key: bad}})
    error = invalid()
    assert error.details == {"file": str(path), "key": f"{section}.{key}"}
    assert error.rejected_value == bad
    write_global({section: {key: good}})
    assert load_config().config.to_json_dict()[section][key] == good


@pytest.mark.parametrize(
    ("section", "key", "value"),
    [
        ("worker", "pollMs", "5000"),
        ("worker", "pollMs", 5000.0),
        ("worker", "pollMs", True),
        ("artifacts", "capture", 1),
        ("artifacts", "capture", "true"),
        ("auth", "chromeProfile", 3),
    ],
)
def test_types_are_strict(home: Path, section: str, key: str, value: Any) -> None:
    write_global({section: {key: value}})
    assert invalid().details["key"] == f"{section}.{key}"


def test_stale_heartbeat_must_outlast_the_heartbeat(home: Path) -> None:
    error = invalid(overrides={"worker": {"heartbeatIntervalMs": 5000, "staleHeartbeatMs": 5000}})
    assert error.details == {"file": ARGUMENTS, "key": "worker.staleHeartbeatMs"}


def test_auth_optional_values(home: Path) -> None:
    write_global({"auth": {"chromeCookiePath": "relative/Cookies"}})
    assert invalid().details["key"] == "auth.chromeCookiePath"
    write_global({"auth": {"chromeProfile": " "}})
    assert invalid().details["key"] == "auth.chromeProfile"
    write_global({"auth": {"chromeProfile": "Profile 1", "chromeCookiePath": "~/Cookies"}})
    auth = load_config().config.auth
    assert (auth.chrome_profile, auth.chrome_cookie_path) == ("Profile 1", home / "Cookies")


@pytest.mark.parametrize("hook", ["notify-send done", [], ["notify-send", ""], ["ok", 3]])
def test_notify_hook_is_an_argv_list(home: Path, hook: Any) -> None:
    write_global({"notify": {"hook": hook}})
    assert invalid().details["key"] == "notify.hook"


def test_notify_hook_accepted(home: Path) -> None:
    write_global({"notify": {"hook": ["notify-send", "oraculum", "job done"]}})
    assert load_config().config.notify.hook == ("notify-send", "oraculum", "job done")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("pro_extended", "pro_extended"),
        ("Thinking - Heavy", "thinking_heavy"),
        ("instant-auto-switch", "instant_auto_switch"),
        ("DEEP RESEARCH", "deep_research"),
    ],
)
def test_default_preset_is_normalised_on_load(home: Path, value: str, expected: str) -> None:
    config = load_config(overrides={"defaults": {"preset": value}}).config
    assert config.defaults.preset == expected


@pytest.mark.parametrize("value", ["pro", "heavy", "", 3])
def test_default_preset_must_be_a_preset(home: Path, value: Any) -> None:
    error = invalid(overrides={"defaults": {"preset": value}})
    assert error.details == {"file": ARGUMENTS, "key": "defaults.preset"}
    assert error.allowed_values == list(PRESET_IDS)


def test_default_provider_and_grok_mode(home: Path) -> None:
    config = load_config(overrides={"defaults": {"provider": "xai", "grokMode": "grok-heavy"}})
    assert (config.config.defaults.provider, config.config.defaults.grok_mode) == ("grok", "heavy")
    error = invalid(overrides={"defaults": {"provider": "claude"}})
    assert error.details["key"] == "defaults.provider"
    assert error.allowed_values == ["chatgpt", "grok", "gemini"]
    assert invalid(overrides={"defaults": {"grokMode": "light"}}).allowed_values == ["heavy"]


# --- snapshots --------------------------------------------------------------------------------


def test_snapshot_round_trip(home: Path, project: Path) -> None:
    write_global({"browser": {"maxConcurrentJobs": 5, "args": ["--lang=de"]}})
    write_project(project, {"defaults": {"preset": "Instant"}})
    loaded: LoadedConfig = load_config(project)
    snapshot = json.loads(json.dumps(loaded.config.to_json_dict()))
    restored = Config.from_snapshot(snapshot)
    assert restored == loaded.config
    assert restored.to_json_dict() == snapshot


def test_snapshot_fills_keys_added_since(home: Path) -> None:
    snapshot = load_config().config.to_json_dict()
    del snapshot["worker"]["readinessTimeoutMs"]
    del snapshot["queue"]
    restored = Config.from_snapshot(snapshot)
    assert restored.worker.readiness_timeout_ms == 30_000
    assert restored.queue.max_queued_per_slot == 1


@pytest.mark.parametrize(
    ("mutate", "key"),
    [
        (lambda s: s["browser"].update(maxConcurrentJobs=99), "browser.maxConcurrentJobs"),
        (lambda s: s["browser"].update(chatUrl="https://evil.example/"), "browser.chatUrl"),
        (lambda s: s.update(extra={}), "extra"),
    ],
)
def test_invalid_snapshot_is_refused(home: Path, mutate: Any, key: str) -> None:
    snapshot = load_config().config.to_json_dict()
    mutate(snapshot)
    with pytest.raises(OracleError) as caught:
        Config.from_snapshot(snapshot)
    assert caught.value.code == "oracle_config_invalid"
    assert caught.value.details == {"file": "snapshot", "key": key}


def test_config_is_immutable(home: Path) -> None:
    config = load_config().config
    with pytest.raises(ValidationError):
        config.browser.max_concurrent_jobs = 3  # type: ignore[misc]


def test_error_json_shape(home: Path) -> None:
    path = write_global({"browser": {"maxConcurrentJobs": 40}})
    data = invalid().to_dict()
    assert data["code"] == "oracle_config_invalid"
    assert data["rejectedValue"] == 40
    assert data["details"] == {"file": str(path), "key": "browser.maxConcurrentJobs"}
    assert data["retryable"] is False
    assert "suggestedNextStep" in data


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)

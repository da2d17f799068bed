"""The agent hosts the host tests drive, installed from the npm registry at pinned versions.

`tests/hosts/package.json` and its committed `package-lock.json` pin pi
(`@earendil-works/pi-coding-agent`), the MCP Inspector, a Node 22 binary (pi needs
Node >= 22.19; the `node-linux-<arch>` packages carry the official binary), Claude Code
(`@anthropic-ai/claude-code`), Codex (`@openai/codex`) and opencode. The last three are native
binaries their packages take from per-platform optional dependencies (`npm ci` installs this
machine's); opencode is pinned by its platform package (`opencode-linux-x64`, what the
`opencode-ai` launcher runs) because the registry lacks some of `opencode-ai`'s other platform
packages, which `npm ci` would then refuse as a lockfile out of sync. They are installed
with `npm ci --ignore-scripts` into `<repo>/.cache/hosts` (git-ignored), once per lockfile: a
stamp holding the lockfile's hash says the tree is current, and an flock keeps parallel test
workers from installing at the same time.

Run it directly (`.venv/bin/python tests/hosts/host_tools.py`) to install ahead of a test run.
After changing a pin, regenerate the lockfile in tests/hosts with
`npm install --package-lock-only --ignore-scripts --before=<a date a week or more back>`: the
registry's abbreviated metadata can lag `npm view` by days, and `npm ci` then cannot find a
version published since (ETARGET).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import platform
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CACHE = REPO / ".cache" / "hosts"
MANIFESTS = ("package.json", "package-lock.json")
PI_PACKAGE = "@earendil-works/pi-coding-agent"
INSPECTOR_PACKAGE = "@modelcontextprotocol/inspector"
# Each native host: its binary under node_modules, by npm's name for this machine's arch.
NATIVE_HOSTS = {
    "claude": "@anthropic-ai/claude-code-linux-{arch}/claude",
    "codex": "@openai/codex-linux-{arch}/vendor/{triple}/bin/codex",
    "opencode": "opencode-linux-{arch}/bin/opencode",
}
RUST_TRIPLES = {"x64": "x86_64-unknown-linux-musl", "arm64": "aarch64-unknown-linux-musl"}
NODE_MINIMUM = (22, 19)
INSTALL_TIMEOUT_S = 600


class RegistryUnreachable(RuntimeError):
    """npm cannot reach its registry (or is not installed): the only reason to skip."""


class HostUnavailable(RuntimeError):
    """A native host has no binary for this machine: its tests skip, saying so."""


@dataclass(frozen=True)
class HostTools:
    node: Path
    pi_cli: Path
    inspector_cli: Path
    modules: Path = CACHE / "node_modules"

    def native(self, host: str) -> Path:
        """A native host's binary (`claude`, `codex`, `opencode`); HostUnavailable when none
        is pinned for this machine or npm did not install it."""
        arch = linux_arch()
        if arch is None:
            raise HostUnavailable(f"no {host} is pinned for {sys.platform}/{platform.machine()}")
        binary = self.modules / NATIVE_HOSTS[host].format(arch=arch, triple=RUST_TRIPLES[arch])
        if not binary.is_file():
            raise HostUnavailable(
                f"{binary} is not installed: tests/hosts/package.json pins no {host} for "
                f"linux-{arch}, or the registry has none"
            )
        return binary

    @property
    def pi(self) -> list[str]:
        return [str(self.node), str(self.pi_cli)]

    @property
    def inspector(self) -> list[str]:
        return [str(self.node), str(self.inspector_cli)]


def lock_digest(directory: Path = HERE) -> str:
    """What the installed tree must match: the manifest and the lockfile."""
    digest = hashlib.sha256()
    for name in MANIFESTS:
        digest.update((directory / name).read_bytes())
    return digest.hexdigest()


def pinned_versions(directory: Path = HERE) -> dict[str, str]:
    manifest = json.loads((directory / "package.json").read_text())
    return {**manifest.get("dependencies", {}), **manifest.get("optionalDependencies", {})}


def linux_arch() -> str | None:
    """npm's name for this machine's architecture, on Linux (the only platform pinned)."""
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower()
    )
    return arch if sys.platform == "linux" else None


def node_package() -> str | None:
    """The npm package holding this machine's Node binary, when one is pinned for it."""
    arch = linux_arch()
    return None if arch is None else f"node-linux-{arch}"


def node_version(node: Path | str) -> tuple[int, int] | None:
    try:
        out = subprocess.run(
            [str(node), "--version"], capture_output=True, text=True, timeout=30, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"v(\d+)\.(\d+)", out.strip())
    return (int(match[1]), int(match[2])) if match else None


def find_node(cache: Path = CACHE) -> Path:
    """The pinned Node binary, else a system Node that is new enough."""
    package = node_package()
    if package is not None:
        pinned = cache / "node_modules" / package / "bin" / "node"
        if pinned.exists():
            return pinned
    system = shutil.which("node")
    if system and (node_version(system) or (0, 0)) >= NODE_MINIMUM:
        return Path(system)
    raise RuntimeError(
        f"no Node >= {NODE_MINIMUM[0]}.{NODE_MINIMUM[1]} for pi: none is pinned for "
        f"{sys.platform}/{platform.machine()} in tests/hosts/package.json and the system's "
        "is older; install one"
    )


def registry_reachable(timeout_s: float = 15.0) -> bool:
    """Whether npm's configured registry answers at all (any HTTP status counts)."""
    npm = shutil.which("npm")
    if npm is None:
        return False
    try:
        registry = subprocess.run(
            [npm, "config", "get", "registry"], capture_output=True, text=True, timeout=60
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return False
    url = (registry or "https://registry.npmjs.org/").rstrip("/") + "/-/ping"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s):
            return True
    except urllib.error.HTTPError:
        return True
    except (OSError, ValueError):
        return False


def _run_npm_ci(cache: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise RegistryUnreachable("npm is not installed: it installs the pinned host tools")
    for name in MANIFESTS:
        shutil.copyfile(HERE / name, cache / name)
    # No install scripts: nothing pi or the Inspector runs needs them, and none runs unreviewed.
    result = subprocess.run(
        [npm, "ci", "--prefix", str(cache), "--ignore-scripts", "--no-audit", "--no-fund"],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )
    if result.returncode != 0:
        if not registry_reachable():
            raise RegistryUnreachable(f"the npm registry is unreachable: {result.stderr[-500:]}")
        raise RuntimeError(f"npm ci failed ({result.returncode}):\n{result.stderr[-4000:]}")


def ensure_installed(cache: Path = CACHE) -> HostTools:
    """Install the pinned tools unless the stamp says they are current; return their paths."""
    cache.mkdir(parents=True, exist_ok=True)
    stamp = cache / ".installed"
    with open(cache / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other test worker waits for this install
        wanted = lock_digest()
        if not stamp.exists() or stamp.read_text().strip() != wanted:
            stamp.unlink(missing_ok=True)
            _run_npm_ci(cache)
            stamp.write_text(wanted + "\n")
    modules = cache / "node_modules"
    tools = HostTools(
        node=find_node(cache),
        pi_cli=modules / PI_PACKAGE / "dist" / "cli.js",
        inspector_cli=modules / INSPECTOR_PACKAGE / "clients" / "launcher" / "build" / "index.js",
        modules=modules,
    )
    for path in (tools.pi_cli, tools.inspector_cli):
        if not path.is_file():
            raise RuntimeError(f"{path} is missing after npm ci: has the package layout changed?")
    return tools


if __name__ == "__main__":
    try:
        installed = ensure_installed()
    except RegistryUnreachable as exc:
        sys.exit(f"host tools not installed: {exc}")
    print(f"pi: {' '.join(installed.pi)}\ninspector: {' '.join(installed.inspector)}")
    for host in NATIVE_HOSTS:
        try:
            print(f"{host}: {installed.native(host)}")
        except HostUnavailable as exc:
            print(f"{host}: not installed: {exc}")

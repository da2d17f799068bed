"""End to end against the simulator: submit → saved answer, and seed-profile clone time.

Target (DESIGN): a job with an instant answer completes (response saved) in < 5 s end to end.
Run: `.venv/bin/python bench/e2e.py [--runs 10]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _report import record


def setup_home(home: Path) -> None:
    from oraculum.core.paths import private_home_environment

    os.environ.update(private_home_environment(home))


def end_to_end(runs: int) -> list[float]:
    from oraculum.auth.simulator import seed_simulator_profile
    from oraculum.browser.session import LaunchOptions
    from oraculum.core.config import seed_profile_dir
    from oraculum.jobs.store import JobStore
    from oraculum.service.caller import Caller
    from oraculum.service.submit import submit
    from oraculum.simulator import SimulatorThread

    project = Path(os.environ["ORACULUM_DATA_DIR"]).parent / "project"
    project.mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "bench"\n')
    (project / "main.py").write_text("print('hello')\n")
    store = JobStore()
    with SimulatorThread(think_ms=0, token_ms=0, hydrate_ms=0, upload_ms=0) as sim:
        overrides = {
            "browser": {"chatUrl": sim.chat_url(), "authUrl": sim.sign_in_url},
            "worker": {"pollMs": 200},
        }
        caller = Caller(cwd=project, session="bench", overrides=overrides)
        config = caller.config
        seed = seed_profile_dir(config, "chatgpt")
        asyncio.run(seed_simulator_profile(seed, sim.url, LaunchOptions.from_config(config)))
        samples = []
        for n in range(runs):
            began = time.perf_counter()
            job_id = submit(
                f"Question {n}",
                ["."],
                caller=caller,
                preset="thinking_standard",
                provider="chatgpt",
            ).job["id"]
            while True:
                job = store.load(job_id)
                if job.is_terminal:
                    break
                time.sleep(0.02)
            elapsed = time.perf_counter() - began
            if job.status.value != "complete" or not Path(job.response_path).exists():
                raise SystemExit(f"job {job_id} ended {job.status}: {job.error}")
            samples.append(elapsed)
            print(f"  run {n + 1:2}: {elapsed:5.2f} s  ({job.id})")
            while not store.load(job_id).is_terminal or store.load(job_id).cleanup_pending:
                time.sleep(0.05)
        if os.environ.get("BENCH_SHOW_LOG"):
            print(Path(store.load(job_id).logs_dir, "worker.log").read_text())
    return samples


def clone_benchmark(size_mb: int) -> None:
    from oraculum.browser.profile import clone_profile

    root = Path(os.environ["ORACULUM_DATA_DIR"]).parent / "clone"
    seed = root / "seed"
    root.mkdir(parents=True)
    chunk = os.urandom(1 << 20)
    layout = {  # a used profile: mostly caches (skipped), some storage (copied)
        "Default/Cache/Cache_Data": int(size_mb * 0.55),
        "Default/Code Cache/js": int(size_mb * 0.10),
        "Default/GPUCache": int(size_mb * 0.05),
        "Default/IndexedDB/https_chatgpt.com_0.indexeddb.leveldb": int(size_mb * 0.20),
        "Default/Local Storage/leveldb": int(size_mb * 0.05),
        "Default/Service Worker/CacheStorage": int(size_mb * 0.05),
    }
    for folder, megabytes in layout.items():
        directory = seed / folder
        directory.mkdir(parents=True)
        for index in range(megabytes):
            (directory / f"f{index:05}").write_bytes(chunk)
    (seed / "Default" / "Cookies").write_bytes(os.urandom(64 << 10))
    (seed / "Local State").write_text("{}")
    total = sum(p.stat().st_size for p in seed.rglob("*") if p.is_file())
    started = time.perf_counter()
    report = clone_profile(seed, root / "runtime")
    elapsed = time.perf_counter() - started
    print(
        f"clone of a {total / 2**20:.0f} MiB seed: {elapsed:.2f} s, copied {report.files} files "
        f"({report.bytes / 2**20:.0f} MiB), {report.reflinked} reflinked"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--seed-mb", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="oraculum-e2e-") as tmp:
        setup_home(Path(tmp) / "home")
        print(f"submit → saved answer against the simulator, {args.runs} runs:")
        samples = end_to_end(args.runs)
        median = statistics.median(samples)
        record("e2e", "submit -> saved answer, simulator (median)", median, 5.0, unit="s")
        print(
            f"median {median:.2f} s (target < 5 s: {'ok' if median < 5 else 'MISSED'}), "
            f"min {min(samples):.2f} s, max {max(samples):.2f} s"
        )
        clone_benchmark(args.seed_mb)
        return 0 if median < 5 else 1


if __name__ == "__main__":
    sys.exit(main())

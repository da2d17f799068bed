"""A fake `codex_search` helper for the tests: records its argv, stdin and pid, then acts as
the prompt's first word says — `ok` (echo), `sleep` (forever), `fail` (exit 3 with stderr),
`flood` (200,000 bytes of stdout). The record goes to `$FAKE_CODEX_RECORDS/<pid>.json`."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def main() -> int:
    prompt = sys.stdin.buffer.read().decode("utf-8")
    record = {"argv": sys.argv, "stdin": prompt, "pid": os.getpid(), "cwd": os.getcwd()}
    records = Path(os.environ["FAKE_CODEX_RECORDS"])
    (records / f"{os.getpid()}.json").write_text(json.dumps(record))
    mode = prompt.split()[0] if prompt.split() else "ok"
    if mode == "sleep":
        while True:
            time.sleep(1)
    if mode == "fail":
        sys.stderr.write("x" * 5000 + "\nthe helper broke\n")
        return 3
    if mode == "flood":
        sys.stdout.write("y" * 200_000)
        return 0
    sys.stdout.write(f"answer to: {prompt}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

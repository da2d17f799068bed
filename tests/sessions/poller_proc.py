"""A live host process of one session for the stress test: holds the session's liveness file
and scans every few milliseconds, appending each wake-up it sends to a shared log."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

from oraculum.sessions.liveness import SessionLiveness
from oraculum.sessions.poller import Poller, PollerThread
from oraculum.sessions.wakeup import Wakeup


def main() -> None:
    project_id, session, log_path = sys.argv[1], sys.argv[2], Path(sys.argv[3])

    def sink(wakeup: Wakeup) -> None:
        line = f"{session} {wakeup.job_id} {wakeup.attempt}\n".encode()
        fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)  # one O_APPEND write per line: lines never interleave
        finally:
            os.close(fd)

    with SessionLiveness(project_id, session):
        thread = PollerThread(Poller(project_id, session, sink), interval_s=0.02)
        thread.start()
        print("ready", flush=True)
        sys.stdin.read()  # until the test closes our stdin
        thread.stop()
        thread.join(5)
    threading.Event().wait(0)


if __name__ == "__main__":
    main()

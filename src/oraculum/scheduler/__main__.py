"""`python -m oraculum.scheduler run`: the detached runner (started by `control.ensure_runner`)."""

from __future__ import annotations

import sys


def _main(argv: list[str]) -> int:
    if argv != ["run"]:
        sys.stderr.write("usage: python -m oraculum.scheduler run\n")
        return 2
    from oraculum.scheduler.runner import main

    return main()


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))

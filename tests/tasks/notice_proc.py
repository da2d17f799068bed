"""A separate process posting notices for one owner, for the race test: prints each id."""

from __future__ import annotations

import sys

from oraculum.tasks import Owner, post_notice


def main() -> None:
    project_id, session, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    owner = Owner(project_id, session)
    for n in range(count):
        notice = post_notice(
            owner, kind="fetch", source_id=f"src-{n}", title=f"fetched {n}", text="", data={"n": n}
        )
        print(notice.id, flush=True)


if __name__ == "__main__":
    main()

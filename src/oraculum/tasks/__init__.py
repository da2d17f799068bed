"""Background tasks and their durable notices (the one path every finite companion tool uses).

``from oraculum.tasks import Owner, Notice, post_notice, BackgroundTasks, TaskResult``:
see :mod:`oraculum.tasks.notices` and :mod:`oraculum.tasks.runner`. Delivery is the sessions
layer's: its pollers hand a due notice to the owning session exactly once.
"""

from oraculum.tasks.notices import Notice, NoticeStore, Owner, post_notice
from oraculum.tasks.runner import BackgroundTasks, TaskResult

# The modules and names other layers may import; the rest of the package is internal to it.
__all__ = [
    "BackgroundTasks",
    "Notice",
    "NoticeStore",
    "Owner",
    "TaskResult",
    "notices",
    "post_notice",
    "runner",
]

"""`python -m oraculum.worker run|recollect|watch …` (see `jobs.process`).

The watchdog is routed before the worker's modules are imported: it starts light.
"""

from __future__ import annotations

import sys

if sys.argv[1:2] == ["watch"]:
    from oraculum.worker.watchdog import main
else:
    from oraculum.worker.run import main

sys.exit(main(sys.argv[1:]))

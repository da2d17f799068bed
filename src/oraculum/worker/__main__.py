from __future__ import annotations

import sys

from oraculum.worker.run import main

sys.exit(main(sys.argv[1:]))

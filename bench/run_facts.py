"""What a benchmark's JSON report says of its run, whichever benchmark wrote it: the command,
when it ended, the CPUs it could use and the machine's load then (the figures are read with
the load beside them)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any


def run_facts() -> dict[str, Any]:
    """The command line, the date (UTC), the CPUs this process may run on and the load
    averages, as a report's first keys."""
    return {
        "command": " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": len(os.sched_getaffinity(0)),
        "load_average_at_end": os.getloadavg(),
    }

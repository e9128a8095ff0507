"""A bench section for tests/bench/test_run_sections.py: the peak RSS of one command it runs, as a section measures it."""

from __future__ import annotations

import os
import subprocess
import sys


def main() -> list[dict]:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    _, _, usage = os.wait4(child.pid, 0)
    return [{"workload": "probe", "child_peak_mb": usage.ru_maxrss / 1024, "ratio": float("nan")}]

"""The budgets a question runs with when none is given (standard library only, so that `--help` can say them).

A program's kernel starts with the engine's ``DEFAULT_BUDGET`` (``rofl.engine.costs``).
"""

from __future__ import annotations

CODE_BUDGET = 50_000_000  # derivation steps over a scan's code facts: a closure over a big repository is costly
COUNT_BUDGET = 1_000_000  # row counts of derived relations stop here (a closure over a big scan is costly)

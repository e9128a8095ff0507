"""`rofl run` user errors: unstratifiable programs, no files, malformed --collect relations.

The contract and the shared helpers: tests/cli/user_errors.py.
"""

from __future__ import annotations

import pytest

from tests.cli.user_errors import (
    COUNTER,
    assert_user_error,
)
from tests.conftest import EXAMPLES


def test_run_unstratifiable_and_no_files(rofl, tmp_path):
    code, _, err = rofl("run", EXAMPLES / "unstratifiable.rofl")
    assert code == 2 and err.startswith("unstratified")
    assert rofl("run") == (0, "tick 0: (nothing collected)\n-- 1 tick(s), quiescent\n", "")
    code, out, _ = rofl("run", COUNTER, "--ticks", str(10**20), "--budget", "1000", "--collect", "count")
    assert code == 0 and "Traceback" not in out


@pytest.mark.parametrize("rel", ["count(X)", "Count", "$x", ""])
def test_run_collect_malformed_relation(rofl, rel):
    assert_user_error(rofl("run", COUNTER, "--collect", rel), "--collect")

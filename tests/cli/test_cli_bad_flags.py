"""Bad flags and option values: exit 2 and one line, never a traceback (click's usage errors included).

The contract and the shared helpers: tests/cli/user_errors.py.
"""

from __future__ import annotations

import pytest

from tests.cli.user_errors import (
    COUNTER,
    TC,
    assert_user_error,
)
from tests.conftest import EXAMPLES

BAD_FLAGS = {
    "ask_directory_as_file": ("ask", "x(X)", EXAMPLES),
    "ask_budget_0": ("ask", "x(X)", TC, "--budget", "0"),
    "ask_budget_negative": ("ask", "x(X)", TC, "--budget", "-1"),
    "ask_budget_not_a_number": ("ask", "x(X)", TC, "--budget", "lots"),
    "ask_unknown_option": ("ask", "x(X)", TC, "--bogus"),
    "ask_missing_query": ("ask",),
    "ask_store_directory": ("ask", "x(X)", "--store", EXAMPLES),
    "ask_facts_is_a_file": ("ask", "x(X)", "--facts", TC),
    "ask_rules_directory": ("ask", "x(X)", "--facts", EXAMPLES, "--rules", EXAMPLES),
    "why_missing_fact": ("why",),
    "run_ticks_0": ("run", COUNTER, "--ticks", "0"),
    "run_ticks_negative": ("run", COUNTER, "--ticks", "-5"),
    "export_bad_format": ("export", "dependency", TC, "--format", "png"),
    "export_output_directory": ("export", "edge", TC, "-o", EXAMPLES),
    "save_out_directory": ("save", EXAMPLES, TC),
    "audit_src_is_a_file": ("audit", "--facts", EXAMPLES, "--src", TC),
    "repl_directory_as_file": ("repl", EXAMPLES),
    "unknown_command": ("frobnicate",),
}


@pytest.mark.parametrize("name", sorted(BAD_FLAGS))
def test_bad_flag_exits_2_without_traceback(rofl, name):
    code, out, err = rofl(*BAD_FLAGS[name])
    assert code == 2 and "Traceback" not in out + err and err.strip()


@pytest.mark.parametrize("name", sorted(BAD_FLAGS))
def test_bad_flag_is_one_line(rofl, name):
    assert_user_error(rofl(*BAD_FLAGS[name]))


@pytest.mark.parametrize(
    "args, needle",
    [
        (("--jobs", "0"), "--jobs 0"),
        (("--jobs", "-3"), "--jobs -3"),
        (("--jobs", "x"), "--jobs"),
        (("--max-bytes", "-1"), "--max-bytes -1"),
        (("--max-bytes", "0"), "--max-bytes 0"),
        (("--bogus",), "--bogus"),
    ],
    ids=["jobs0", "jobs_neg", "jobs_nan", "max_bytes_neg", "max_bytes_0", "unknown"],
)
def test_scan_bad_flags_are_one_line(rofl, tiny, tmp_path, args, needle):
    assert_user_error(rofl("scan", tiny[0], "--out", tmp_path / "out", *args), "rofl scan:", needle)

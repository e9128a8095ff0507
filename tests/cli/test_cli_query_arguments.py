"""Queries and FACT arguments: malformed and unsafe ones are one line; exit codes of findings.

The contract and the shared helpers: tests/cli/user_errors.py.
"""

from __future__ import annotations

import pytest

from tests.cli.user_errors import (
    TC,
    assert_user_error,
)

BAD_QUERIES = [
    "",
    "   ",
    "path(",
    "path(a, X",
    "path(a, X) extra",
    "path(a, X)..",
    "X",
    "Path(a, X)",
    "path",
    "path()",
    "path[](a, X)",
    "$path(a, X)",
    "path[$p](a, X)",
    "path(a, $X)",
    "path(a, X) :- edge(a, X)",
    "path(a, X)@async",
    "path(a, 1 + 2)",
    'path(a, "\\q")',
    "\x00",
    'path(a, "\\u{110000}")',
    "path(a, X),",
    "path(a, X), , edge(X, Y)",
]


@pytest.mark.parametrize("query", BAD_QUERIES)
def test_bad_query_is_one_line(rofl, query):
    assert_user_error(rofl("ask", query, TC), "<query>:1:")


@pytest.mark.parametrize("command", ["why", "whynot", "excise"])
@pytest.mark.parametrize(
    "fact, needle",
    [
        ("path(a, X)", "has variables"),
        ("path(a, _)", "has variables"),
        ("path[P](a, b)", "has variables"),
        ("", "<fact>:1:1:"),
        ("$x(a)", "'$' names"),
        ("path(a, b) extra", "<fact>:1:"),
    ],
)
def test_bad_fact_argument_is_one_line(rofl, command, fact, needle):
    assert_user_error(rofl(command, fact, TC), needle)


@pytest.mark.parametrize("flag", ["--why", "--whynot"])
def test_ask_why_flag_with_variables_is_one_line(rofl, flag):
    assert_user_error(rofl("ask", "path(a, X)", TC, flag, "path(a, Y)"), "has variables")


@pytest.mark.parametrize("fact", ["path(a, b)", "path(a, z)", "stratum(path, 0)", 'authority(main, "$kernel")'])
def test_excise_of_a_non_base_fact_is_one_line(rofl, fact):
    assert_user_error(rofl("excise", fact, TC), "not a base fact")


def test_finding_exit_codes(rofl):
    assert rofl("why", "path(a, z)", TC)[0] == 1
    assert rofl("why", "path(a, d)", TC)[0] == 0
    assert rofl("whynot", "path(a, d)", TC)[0] == 1
    assert rofl("whynot", "path(a, z)", TC)[0] == 0
    assert rofl("whynot", 'path(f(x), "s")', TC)[0] == 0
    assert rofl("excise", "edge(a, b)", TC)[0] == 0

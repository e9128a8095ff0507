"""--load-as WHO and --budget: who may be named, and answers under an exhausted budget say partial.

The contract and the shared helpers: tests/cli/user_errors.py.
"""

from __future__ import annotations

import pytest

from tests.cli.user_errors import (
    SENSORS,
    TC,
    assert_user_error,
    write,
)
from tests.conftest import EXAMPLES


@pytest.mark.parametrize("who", ["", "X", "Sensor", "a b", "a-b", "$kernel", "_x", "1a", "a.b"])
def test_load_as_bad_who_is_one_line(rofl, who):
    assert_user_error(rofl("ask", "reading[S](V)", *SENSORS[:1], "--load-as", who, SENSORS[3]), "not an atom")


@pytest.mark.parametrize("who", ["kernel", "main", "a" * 5000])
def test_load_as_odd_but_valid_who(rofl, who):
    code, out, _ = rofl("ask", "reading[S](V)", *SENSORS[:1], "--load-as", who, SENSORS[3])
    assert code == 0 and out.count("\n") == 3


def test_load_as_directory_or_missing_file(rofl, tmp_path):
    assert_user_error(rofl("ask", "x(X)", "--load-as", "who"), "--load-as", "2 arguments")
    assert_user_error(rofl("ask", "x(X)", "--load-as", "who", EXAMPLES), str(EXAMPLES))
    assert_user_error(rofl("ask", "x(X)", "--load-as", "who", tmp_path / "nope.rofl"), "no such file")


@pytest.mark.parametrize("who", ["\u00e9", "caf\u00e9", "\uff41"])
def test_load_as_non_ascii_who(rofl, who):
    assert_user_error(rofl("ask", "reading[S](V)", *SENSORS[:1], "--load-as", who, SENSORS[3]), "not an atom")


@pytest.mark.parametrize(
    "query, needle",
    [
        ("not path(a, X)", "not path[main](a, X) needs X bound"),
        ("path(a, X), not edge(X, Y)", "needs Y bound"),
        ("X > 1, path(a, X), Y < 2", "Y < 2 needs Y bound"),
        ("X = Y", "needs X, Y bound"),
    ],
)
def test_unsafe_query_is_one_line(rofl, query, needle):
    assert_user_error(rofl("ask", query, TC), "unsafe question", needle)


def test_budget_one_and_huge(rofl):
    code, out, err = rofl("ask", "path(a, X)", TC, "--budget", "1")
    assert code == 3 and "partial" in err
    assert rofl("ask", "path(a, X)", TC, "--budget", str(10**30)) == (0, "X = b\nX = c\nX = d\n", "")


def test_audit_with_exhausted_budget_is_not_clean(rofl, tmp_path):
    forged = write(tmp_path / "forged.rofl", "reading[s1](99).\n")
    args = ("audit", *SENSORS, "--load-as", "mallory", forged)
    assert rofl(*args)[0] == 1  # the finding is there with the default budget
    code, _, err = rofl(*args, "--budget", "100")
    assert code != 0 and "budget" in err


@pytest.mark.parametrize(
    "command, fact", [("why", "verified(20)"), ("whynot", "verified(20)"), ("excise", "reading[s1](20)")]
)
def test_explanations_with_exhausted_budget_say_partial(rofl, command, fact):
    code, _, err = rofl(command, fact, *SENSORS, "--budget", "10")
    assert "budget" in err

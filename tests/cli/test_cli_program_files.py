"""Program files users hand to the commands: bad encodings and syntax, deep and huge terms and integers, long rules.

The contract and the shared helpers: tests/cli/user_errors.py.
"""

from __future__ import annotations

import json

import pytest

from tests.cli.user_errors import (
    BIG,
    TC,
    assert_user_error,
    write,
)

BAD_PROGRAMS = {
    "binary": (bytes(range(256)), "UTF-8"),
    "not_utf8": (b"edge(a, b).\n\xff\xfe\n", "UTF-8"),
    "latin1_atom": ("edge(a, caf\u00e9).\n".encode("latin-1"), "UTF-8"),
    "nul_byte": (b"edge(a, b).\x00\n", ":1:12:"),
    "vertical_tab": (b"edge(a, b).\v\n", ":1:"),
    "unterminated_string_at_eof": (b'edge(a, "b', "unterminated string"),
    "unterminated_term_at_eof": (b"edge(a, b", ":1:10:"),
    "rule_without_dot_at_eof": (b"p(X) :- edge(X, _)", "expected '.'"),
    "newline_in_string": (b'edge(a, "b\nc").\n', "unterminated string"),
    "unknown_escape": (b'edge(a, "\\q").\n', "unknown escape"),
    "fullwidth_paren": ("edge\uff08a, b).\n".encode(), ":1:5:"),
    "block_comment": (b"/* no */ edge(a, b).\n", ":1:1:"),
    "hash_comment": (b"# no\nedge(a, b).\n", ":1:1:"),
    "zero_arity": (b"edge().\n", ":1:6:"),
    "variable_in_fact": (b"edge(a, X).\n", "must be ground"),
    "next_on_fact": (b"edge(a, b)@next.\n", "@next"),
    "rule_into_reserved": (b"edb(X) :- edge(X, _).\nedge(a, b).\n", "reserved relation 'edb'"),
    "unsafe_is": (b"p(Y) :- Y is X + 1.\n", "unsafe rule"),
    "dollar_name": (b"$p(a).\n", "'$' names"),
}


@pytest.mark.parametrize("name", sorted(BAD_PROGRAMS))
def test_bad_program_file_is_one_line_naming_the_file(rofl, tmp_path, name):
    data, needle = BAD_PROGRAMS[name]
    prog = write(tmp_path / f"{name}.rofl", data)
    line = assert_user_error(rofl("ask", "edge(X, Y)", prog), needle)
    assert str(prog) in line


def test_bom_is_refused_in_one_line_at_its_position(rofl, tmp_path):
    prog = write(tmp_path / "bom.rofl", b"\xef\xbb\xbfedge(a, b).\n")
    assert_user_error(rofl("ask", "edge(X, Y)", prog), f"{prog}:1:1:", "unexpected character")


def test_missing_program_file(rofl, tmp_path):
    assert_user_error(rofl("ask", "x(X)", tmp_path / "nope.rofl"), "no such file", str(tmp_path / "nope.rofl"))


def test_store_file_given_as_program(rofl, tmp_path):
    store = tmp_path / "s.store"
    assert rofl("save", store, TC)[0] == 0
    assert_user_error(rofl("ask", "x(X)", store), str(store), ":1:1:")


@pytest.mark.parametrize(
    "data", [b"", b"\n\n", b"-- only a comment", b"   \t\n-- c\n"], ids=["empty", "blank", "comment_eof", "ws"]
)
def test_empty_programs_answer_no(rofl, tmp_path, data):
    prog = write(tmp_path / "p.rofl", data)
    assert rofl("ask", "hole(Q, R)", prog) == (1, "no\n", "")
    code, out, err = rofl("ask", "x(X)", prog)
    assert (code, out) == (2, "") and err == "no relation x[main]/1; no fact and no rule defines it\n"


def test_crlf_and_cr_line_endings_and_comment_at_eof(rofl, tmp_path):
    crlf = write(tmp_path / "crlf.rofl", b"edge(a, b).\r\nedge(b, c). -- c\r\npath(X, Y) :- edge(X, Y).\r\n")
    assert rofl("ask", "path(a, X)", crlf) == (0, "X = b\n", "")
    cr = write(tmp_path / "cr.rofl", b"edge(a, b).\redge(b, c).\r-- no newline at the end")
    assert rofl("ask", "edge(X, c)", cr) == (0, "X = b\n", "")


@pytest.mark.slow
def test_huge_single_line_and_huge_string(rofl, tmp_path):
    line = write(tmp_path / "line.rofl", " ".join(f"e(n{i}, n{i + 1})." for i in range(5000)))
    assert rofl("ask", "e(n4999, X)", line) == (0, "X = n5000\n", "")
    big = write(tmp_path / "str.rofl", 'p("' + "x" * 1_000_000 + '").\n')
    code, out, _ = rofl("ask", "p(X)", big)
    assert code == 0 and len(out) == len('X = ""\n') + 1_000_000


@pytest.mark.slow
@pytest.mark.parametrize("where", ["program", "query"])
def test_term_nested_10k_deep_is_answered(rofl, tmp_path, where):
    deep = "f(" * 10_000 + "a" + ")" * 10_000
    if where == "program":
        code, out, err = rofl("ask", "p(X)", write(tmp_path / "deep.rofl", f"p({deep}).\n"))
        assert (code, out, err) == (0, f"X = {deep}\n", "")
    else:
        code, out, err = rofl("ask", f"p({deep})", write(tmp_path / "p.rofl", "p(a).\n"))
        assert (code, out, err) == (1, "no\n", "")


@pytest.mark.slow
def test_term_deeper_than_the_stack_is_one_line(rofl, tmp_path):
    from rofl.deep import RECURSION_LIMIT

    deep = "f(" * (RECURSION_LIMIT + 10) + "a" + ")" * (RECURSION_LIMIT + 10)
    assert_user_error(rofl("ask", "p(X)", write(tmp_path / "deep.rofl", f"p({deep}).\n")), "nests too deeply")


def test_deep_derivation_why_prints(rofl, tmp_path):
    lines = [f"e(n{i}, n{i + 1})." for i in range(3000)] + ["r(X) :- e(n0, X).", "r(Y) :- r(X), e(X, Y)."]
    prog = write(tmp_path / "chain.rofl", "\n".join(lines) + "\n")
    code, out, _ = rofl("why", "r(n3000)", prog)
    assert code == 0 and out.count("\n") == 2 * 3000 and out.startswith("r[main](n3000)    -- by r")


@pytest.mark.parametrize(
    "text, query, answer",
    [
        pytest.param(f"p({BIG}).\n", "p(X)", (0, f"X = {BIG}\n"), id="fact_5000_digits"),
        pytest.param(
            "p(" + "9" * 1_000_000 + ").\n",
            "p(X)",
            (0, "X = " + "9" * 1_000_000 + "\n"),
            id="fact_10e6_digits",
            marks=pytest.mark.slow,
        ),
        pytest.param(f"q(1).\np(X) :- q(X), X < {BIG}.\n", "p(X)", (0, "X = 1\n"), id="rule_5000_digits"),
        pytest.param("q(1).\n", f"q({BIG})", (1, "no\n"), id="query_5000_digits"),
    ],
)
def test_huge_integer_literal_is_read_exactly(rofl, tmp_path, text, query, answer):
    prog = write(tmp_path / "big.rofl", text)
    assert rofl("ask", query, prog) == (*answer, "")


def test_huge_integer_in_rules_file_over_facts(rofl, facts_copy, tmp_path):
    rules = write(tmp_path / "r.rofl", f"limit({BIG}).\n")
    assert rofl("ask", "limit(X)", "--facts", facts_copy, "--rules", rules) == (0, f"X = {BIG}\n", "")


SQUARES = "s(0, 2).\ns(N1, Y) :- s(N, X), N < 14, N1 is N + 1, Y is X * X.\ndone(x) :- s(14, _).\n"  # s(14, 2^16384): 4933 digits


def test_derived_huge_integer_prints(rofl, tmp_path):
    prog = write(tmp_path / "sq.rofl", SQUARES)
    assert rofl("ask", "s(14, Y)", prog) == (0, f"Y = {2**16384}\n", "")
    code, out, err = rofl("ask", "s(N, Y)", "--json", prog)
    assert (code, err) == (0, "")
    assert sorted((a["N"], a["Y"]) for a in json.loads(out)["answers"]) == [(n, 2 ** (2**n)) for n in range(15)]
    code, out, err = rofl("why", "done(x)", prog)
    assert (code, err) == (0, "") and out.startswith("done[main](x)") and str(2**16384) in out


def test_run_collect_huge_integer(rofl, tmp_path):
    prog = write(tmp_path / "sq.rofl", "n(2).\nn(Y)@next :- n(X), Y is X * X.\n")
    # the integers built here (about 2**16 bits over the run) cost a step per bit past 64: a budget above that
    code, out, err = rofl("run", prog, "--ticks", "16", "--collect", "n", "--budget", "1000000")
    assert (code, err) == (0, "")
    assert rofl("run", prog, "--ticks", "16", "--collect", "n", "--budget", "20000")[0] == 3  # past it: partial
    for tick in range(16):
        assert f"tick {tick}:\n  n[main]({2 ** (2**tick)})\n" in out


def test_save_huge_integer(rofl, tmp_path):
    prog = write(tmp_path / "sq.rofl", SQUARES)
    code, out, _ = rofl("save", tmp_path / "sq.store", prog)
    assert code == 0 and out.startswith("saved ")
    assert rofl("ask", "s(14, Y)", "--store", tmp_path / "sq.store") == (0, f"Y = {2**16384}\n", "")


def test_lone_surrogate_string_survives_save_and_restore(rofl, tmp_path):
    prog = write(tmp_path / "s.rofl", 'p("\\u{d800}").\n')
    assert rofl("save", tmp_path / "s.store", prog)[0] == 0
    assert rofl("ask", "p(X)", "--store", tmp_path / "s.store") == (0, 'X = "\\u{d800}"\n', "")


def test_rule_with_19_premises_runs(rofl, tmp_path):
    prog = write(tmp_path / "p.rofl", "q(1).\np(X) :- " + ", ".join(["q(X)"] * 19) + ".\n")
    assert rofl("ask", "p(X)", prog) == (0, "X = 1\n", "")


@pytest.mark.parametrize("premises", [20, 100])
def test_rule_with_many_premises(rofl, tmp_path, premises):
    prog = write(tmp_path / "p.rofl", "q(1).\np(X) :- " + ", ".join(["q(X)"] * premises) + ".\n")
    assert rofl("ask", "p(X)", prog) == (0, "X = 1\n", "")

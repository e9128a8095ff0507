"""The language: parsing errors, closure, structured terms, arithmetic, perspectives, runtime rules."""

from __future__ import annotations

import pytest
from rofl.engine.base.errors import LoadRejected, RoflSyntaxError, UnknownRelation
from rofl.engine.parse import parse_program

from tests.conftest import EXAMPLES


def rows(kernel, query):
    return [tuple(r) for r in kernel.query(query).rows]


def test_transitive_closure(kernel):
    kernel.load_file(EXAMPLES / "tc.rofl")
    assert rows(kernel, "path(a, X)") == [(("b",),), (("c",),), (("d",),)]
    assert rows(kernel, "path(x, X)") == [(("y",),)]
    assert rows(kernel, "path(d, X)") == []


def test_append_over_cons_lists(kernel):
    kernel.load_file(EXAMPLES / "append.rofl")
    cons = lambda h, t: ("cons", h, t)  # noqa: E731
    nil = ("nil",)
    got = rows(kernel, "joined_length(R, N)")
    assert got == [(cons(1, cons(2, cons(3, nil))), 3), (cons(("a",), nil), 1)]
    # a demand call from the query itself, with the inputs bound
    assert rows(kernel, "append(cons(x, nil), cons(y, nil), R)") == [(cons(("x",), cons(("y",), nil)),)]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("quot(-7, 2, Q)", -3),  # truncates toward zero
        ("quot(7, -2, Q)", -3),
        ("quot(7, 2, Q)", 3),
        ("quot(-7, -2, Q)", 3),
        ("rem(-7, 2, Q)", 1),  # sign of the divisor
        ("rem(7, -2, Q)", -1),
        ("rem(7, 2, Q)", 1),
    ],
)
def test_arithmetic(kernel, query, expected):
    kernel.load_file(EXAMPLES / "arith.rofl")
    assert rows(kernel, query) == [(expected,)]


def test_arithmetic_precedence_and_negative_literals(kernel):
    kernel.load_file(EXAMPLES / "arith.rofl")
    # X is -3 * A + (10 - 4) / 4 for A in {-7, -2}
    assert rows(kernel, "calc(X)") == [(7,), (22,)]


def test_division_by_zero_fails_the_firing(kernel):
    kernel.load_text("v(0). v(5). r(Q) :- v(A), v(B), Q is A / B.")
    assert rows(kernel, "r(Q)") == [(0,), (1,)]


@pytest.mark.parametrize(
    "text, line, col, fragment",
    [
        ("p(a).\nq(X) :- p(X)\nr(b).", 3, 1, "expected '.'"),
        ("p(a", 1, 4, "expected ',' or ')'"),
        ("p().", 1, 3, "expected a term"),
        ("p(a) :- q(a)@next.", 1, 1, "@next is not allowed in a rule body"),
        ("p(X)@init :- q(X).", 1, 1, "@init is not allowed on a rule head"),
        ("p(a)@async.", 1, 6, "@async is not in v0"),
        ("p(X).", 1, 1, "a fact must be ground"),
        ("p.", 1, 2, "every relation has at least one argument"),
        ('p("abc).', 1, 3, "unterminated string"),
        ("p($x).", 1, 3, "'$'"),
        ("p(1a).", 1, 4, "a number cannot run into a name"),
    ],
)
def test_syntax_errors_name_file_line_and_column(text, line, col, fragment):
    with pytest.raises(RoflSyntaxError) as err:
        parse_program(text, "prog.rofl")
    assert (err.value.line, err.value.col) == (line, col)
    assert fragment in err.value.message
    assert str(err.value).startswith(f"prog.rofl:{line}:{col}: ")


def test_a_syntax_error_loads_nothing(kernel, tmp_path):
    good = tmp_path / "good.rofl"
    good.write_text("fine(1).\n")
    bad = tmp_path / "bad.rofl"
    bad.write_text("ok(1).\nbroken(\n")
    with pytest.raises(RoflSyntaxError):
        kernel.load_sources([(good, None), (bad, None)])
    for query in ("fine(X)", "ok(X)"):  # nothing of either file was loaded: the relations do not exist
        with pytest.raises(UnknownRelation):
            kernel.query(query)


def test_string_escapes_round_trip(kernel):
    from rofl.engine.terms import quote

    weird = 'a"b\\c\nd\te\x01f\u00e9'
    kernel.load_text(f"s({quote(weird)}).")
    assert rows(kernel, "s(X)") == [(weird,)]


def test_perspective_isolation(kernel):
    kernel.load_text("p[a](1). p[b](2). p(3). q(X) :- p(X). qa(X) :- p[a](X). any(S, X) :- p[S](X).")
    assert rows(kernel, "q(X)") == [(3,)]
    assert rows(kernel, "qa(X)") == [(1,)]
    assert rows(kernel, "any(S, X)") == [(("a",), 1), (("b",), 2), (("main",), 3)]
    assert rows(kernel, "p[b](X)") == [(2,)]


def test_rule_added_at_runtime_derives_at_once(kernel):
    kernel.load_text("e(1, 2). e(2, 3).")
    with pytest.raises(UnknownRelation, match=r"no relation t\[main\]/2"):
        kernel.query("t(X, Y)")
    kernel.load_text("t(X, Y) :- e(X, Y). t(X, Z) :- e(X, Y), t(Y, Z).")
    assert rows(kernel, "t(1, X)") == [(2,), (3,)]
    kernel.load_text("e(3, 4).")
    assert rows(kernel, "t(1, X)") == [(2,), (3,), (4,)]


def test_loading_a_rule_twice_is_idempotent(kernel):
    kernel.load_text("e(1). f(X) :- e(X).")
    before = len(kernel.store.base["rule"])
    kernel.load_text("f(X) :- e(X).")
    assert len(kernel.store.base["rule"]) == before
    assert kernel.outcome.provenance("f", ("main", 1)).support == 1


def test_stratified_negation(kernel):
    kernel.load_text(
        "node(1). node(2). node(3). e(1, 2). e(2, 3)."
        "r(X) :- e(1, X). r(X) :- e(Y, X), r(Y)."
        "unreached(X) :- node(X), not r(X)."
        "lonely(X) :- unreached(X), not e(X, _)."
    )
    assert rows(kernel, "unreached(X)") == [(1,)]
    assert rows(kernel, "lonely(X)") == []


def test_wildcards_in_negation_are_existential(kernel):
    kernel.load_text("n(1). n(2). e(1, 5). sink(X) :- n(X), not e(X, _).")
    assert rows(kernel, "sink(X)") == [(2,)]


def test_unsafe_rule_is_rejected_with_a_message(kernel):
    with pytest.raises(LoadRejected, match="unsafe rule"):
        kernel.load_text("bad(X) :- n(Y), not m(Z).")


def test_rule_concluding_into_reserved_relation_is_rejected(kernel):
    with pytest.raises(LoadRejected, match="reserved relation 'authority'"):
        kernel.load_text("authority(P, W) :- wants(P, W).")
    with pytest.raises(UnknownRelation):
        kernel.query("wants(P, W)")


def test_unstratifiable_program_rolls_back(kernel):
    kernel.load_text("base(1).")
    before = {rel: dict(facts) for rel, facts in kernel.store.base.items()}
    with pytest.raises(LoadRejected) as err:
        kernel.load_file(EXAMPLES / "unstratifiable.rofl")
    assert err.value.message.startswith("unstratified")
    assert "reach[boot]" in err.value.trace and "dep_neg[boot](p, q)" in err.value.trace
    after = {rel: dict(facts) for rel, facts in kernel.store.base.items()}
    assert after == before
    with pytest.raises(UnknownRelation):
        kernel.query("d(X)")
    assert rows(kernel, "base(X)") == [(1,)]


def test_demand_relation_without_bindings_answers_nothing_and_does_not_crash(kernel):
    kernel.load_text("close(A, B) :- D is A - B, D <= 2, D >= -2.")
    assert rows(kernel, "close(X, Y)") == []
    assert rows(kernel, "close(3, 4)") == [()]


def _full_parse(text):
    from rofl.engine import lexer
    from rofl.engine.parse import _Parser

    try:
        return _Parser(lexer.tokenize(text, "f.rofl"), "f.rofl").program()
    except RoflSyntaxError as exc:
        return str(exc)


def _fast_or_full(text):
    try:
        return parse_program(text, "f.rofl")
    except RoflSyntaxError as exc:
        return str(exc)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_names = st.sampled_from(["p", "src_file", "x1", "not", "is", "want", "a_b"])
_args = st.one_of(
    st.text(max_size=8).map(lambda s: __import__("rofl.engine.terms", fromlist=["quote"]).quote(s)),
    st.integers(-50, 50).map(str),
    st.sampled_from(
        [
            "foo",
            "bar",
            "X",
            "_",
            "f(a)",
            "1a",
            '"open',
            "",
            "$x",
            "a b",
            "\u00a0a",
            "a\u2003",
            " -3 ",
            "\t7\r",
            "\va",
            "\x0cb",
        ]
    ),
)
_lines = st.builds(
    lambda rel, persp, args, tail: f"{rel}{persp}({', '.join(args)}){tail}",
    _names,
    st.sampled_from(["", "[code]", "[S]", "[ ]"]),
    st.lists(_args, max_size=3),
    st.sampled_from([".", ". -- note", "@init.", "@next.", "", ".)", ". q(1).", " .\r", ".\u00a0", "\n."]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_lines, st.sampled_from(["", "-- comment", "  ", "\u00a0", " -- x"])), max_size=4))
def test_fact_file_fast_path_agrees_with_the_full_parser(lines):
    text = "\n".join(lines)
    assert _fast_or_full(text) == _full_parse(text)


_terms = st.recursive(
    st.one_of(st.integers(-5, 5), st.text(max_size=3), st.sampled_from([("a",), ("b",), ("nil",)])),
    lambda inner: (
        st.tuples(st.sampled_from(["f", "g"]), inner) | st.tuples(st.sampled_from(["f", "cons"]), inner, inner)
    ),
    max_leaves=4,
)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 3).flatmap(lambda w: st.lists(st.tuples(*[_terms] * w), max_size=12)))
def test_fast_canonical_sort_equals_the_keyed_sort(rows):
    from rofl.engine.terms import canonical_rows, fact_key

    assert canonical_rows(rows) == sorted(rows, key=fact_key)


_column_kinds = st.sampled_from(
    [st.integers(-1000, 1000), st.text(max_size=4), st.sampled_from([("a",), ("b",), ("zz",), ("a_1",)])]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_column_kinds, min_size=1, max_size=3).flatmap(lambda cols: st.lists(st.tuples(*cols), max_size=20)))
def test_fast_canonical_sort_on_uniform_columns(rows):
    from rofl.engine.terms import canonical_rows, fact_key

    assert canonical_rows(rows) == sorted(rows, key=fact_key)

"""Deep terms: Compounds (cached hashes) are the same terms as plain tuples, and a list that grows one
cell per tick runs in time linear in its ticks (each tick builds one cell and shares the rest)."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine.kernel import Kernel
from rofl.engine.terms import DEEP, Compound, compound, plain, sort_key

from tests.conftest import BOOT

scalars = st.one_of(st.integers(-5, 5), st.sampled_from(["a", "b", ""]), st.sampled_from([("x",), ("nil",)]))


def plain_terms(depth: int):
    if depth == 0:
        return scalars
    inner = plain_terms(depth - 1)
    return st.one_of(
        scalars,
        st.tuples(st.sampled_from(["f", "g", "cons"]), inner),
        st.tuples(st.sampled_from(["f", "cons"]), inner, inner),
    )


def build(term):
    """The same term built bottom-up through ``compound`` (as the parser and the evaluator do)."""
    if not isinstance(term, tuple) or len(term) == 1:
        return term
    return compound(term[0], *[build(a) for a in term[1:]])


def old_sort_key(term) -> tuple:
    """The canonical order as it was defined before Compounds: integers, strings, then compounds."""
    if type(term) is int:
        return (0, term)
    if type(term) is str:
        return (1, term)
    return (2, len(term), term[0], tuple(old_sort_key(a) for a in term[1:]))


def nest(term, levels: int):
    for _ in range(levels):
        term = ("cons", "x", term)
    return term


deep_terms = st.builds(nest, plain_terms(3), st.integers(0, 2 * DEEP))


@settings(max_examples=200, deadline=None)
@given(deep_terms, deep_terms)
def test_a_built_term_equals_hashes_and_orders_like_its_plain_tuple(a, b):
    ca, cb = build(a), build(b)
    assert ca == a and hash(ca) == hash(a) and plain(ca) == a and type(plain(ca)) is type(a)
    assert (ca == cb) == (a == b) and (ca != cb) == (a != b)
    assert (sort_key(ca) < sort_key(cb)) == (old_sort_key(a) < old_sort_key(b))
    assert sort_key(ca) == old_sort_key(a)
    assert {ca: 1}.get(a) == 1  # a plain tuple finds the Compound it equals in a dict, and back
    restored = pickle.loads(pickle.dumps(ca))
    assert restored == a and hash(restored) == hash(a)


def test_a_term_deep_enough_is_a_compound_with_its_depth():
    t = ("nil",)
    for i in range(1, 3 * DEEP):
        t = compound("cons", "x", t)
        assert (type(t) is Compound) == (i >= DEEP)  # an atom is no level; each cons cell one
    assert t.depth == 3 * DEEP - 1  # type: ignore[attr-defined]


def cells_shared(term) -> bool:
    """Whether every cell of a cons list at least DEEP levels deep is a Compound (so nothing is re-hashed)."""
    cells = []
    while term != ("nil",):
        cells.append(term)
        term = term[2]
    return all((type(c) is Compound) == (len(cells) - i >= DEEP) for i, c in enumerate(cells))


@pytest.mark.parametrize("ticks", [3_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_a_list_growing_one_cell_per_tick_runs_its_ticks(ticks):
    k = Kernel(BOOT, budget=10**12)
    k.load_text("l(nil) @init.\nl(cons(x, T)) @next :- l(T).\n")
    report = k.run(max_ticks=ticks, budget=10**12)
    assert report.ticks == ticks and not report.partial
    ((_, (_, last)),) = k.facts("l")
    assert cells_shared(last)
    length, t = 0, last
    while t != ("nil",):
        length, t = length + 1, t[2]
    assert length == ticks - 1  # tick 0 holds nil; each later tick one more cell


def _quote_by_character(text: str) -> str:
    """``quote``'s definition, one character at a time."""
    escapes = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    out = []
    for ch in text:
        if ch in escapes:
            out.append(escapes[ch])
        elif ch < " " or ch == "\x7f" or "\ud800" <= ch <= "\udfff":
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


@given(
    st.text(alphabet=st.characters(codec=None, exclude_categories=()))
    | st.text(alphabet='ab"\\\n\t\r\x00\x1f\x7f\ud800é')
)
def test_quote_is_its_definition_and_parses_back(text):
    from rofl.engine.parse import parse_program
    from rofl.engine.terms import quote

    assert quote(text) == _quote_by_character(text)
    assert parse_program(f"p({quote(text)}).", "<t>")[0].head.args == (text,)

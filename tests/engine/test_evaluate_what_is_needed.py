"""Evaluate only what a question needs, and the kernel's fast paths equal its general ones.

A rule with a premise over a relation that only base facts fill, and no fact that premise could
match (``use(no_circular)`` while that preset is off), cannot fire: what only such rules read is
not evaluated (issue 22, item 7).  The goal relations' rows are those of a full evaluation.
Fast paths checked against the general path: the parser's line-by-line reading of leading fact
lines, fact metadata kept between evaluations, base tables shared between evaluations, and the
garbage collector paused during an evaluation.
"""

from __future__ import annotations

import gc
import random
import weakref

from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine import lexer
from rofl.engine.kernel import Kernel
from rofl.engine.parse import _Parser, parse_program
from rofl.engine.rulebook import RuleBook

from tests.conftest import BOOT
from tests.engine.program_gen import generate

_BOOK = RuleBook()

PRESETS = """\
file("a.ts"). file("b.test.ts"). file("c.ts"). file("d.test.ts").
test_glob("**/*.test.ts").
use(no_cycles).
test_file(F) :- file(F), test_glob(G), glob(F, G).
production_file(F) :- file(F), not test_file(F).
violation(no_test_imports, F) :- use(no_test_imports), production_file(F).
violation(no_cycles, F) :- use(no_cycles), file(F), not exempt(no_cycles, F).
exempt(R, F) :- allow(R, G), file(F), glob(F, G).
"""


def _kernel(text: str) -> Kernel:
    k = Kernel(None, budget=10**7)
    k.book = _BOOK
    k.load_boot(BOOT)
    k.add_clauses(parse_program(text, "<test>"), evaluate_now=False)
    return k


def _rows(result, rel: str) -> set:
    return set(result.rows(rel))


def test_rules_that_cannot_fire_leave_what_only_they_read_unevaluated():
    asked = _kernel(PRESETS).evaluate(goals={"violation"})
    full = _kernel(PRESETS).evaluate()
    assert (
        _rows(asked, "violation")
        == _rows(full, "violation")
        == {("main", ("no_cycles",), f) for f in ("a.ts", "b.test.ts", "c.ts", "d.test.ts")}
    )
    # the preset that reads production_file is off: neither it nor test_file is computed
    for rel in ("test_file", "production_file"):
        assert rel not in asked.relations(), rel
    assert not asked.rows("exempt")  # no allow fact: the rule cannot fire
    assert _rows(full, "test_file") == {("main", "b.test.ts"), ("main", "d.test.ts")}


def test_a_preset_turned_on_brings_what_it_reads_back():
    k = _kernel(PRESETS)
    before = k.evaluate(goals={"violation"})
    assert "test_file" not in before.relations()
    k.assert_fact("use", "main", (("no_test_imports",),))
    k.assert_fact("allow", "main", (("no_cycles",), "a.ts"))
    after = k.evaluate(goals={"violation"})
    full = _kernel(PRESETS + 'use(no_test_imports).\nallow(no_cycles, "a.ts").\n').evaluate()
    assert _rows(after, "violation") == _rows(full, "violation")
    assert ("main", ("no_test_imports",), "a.ts") in _rows(after, "violation")
    assert ("main", ("no_cycles",), "a.ts") not in _rows(after, "violation")  # exempt now
    assert _rows(after, "test_file") == _rows(full, "test_file")


@settings(deadline=None)
@given(seed=st.integers(0, 10**6), pick=st.integers(0, 10**6), drop=st.booleans())
def test_goals_answer_as_a_full_evaluation_does(seed, pick, drop):
    """Random stratified programs, some base relation emptied, random goals asked one after another
    of one kernel (later questions reuse what earlier ones evaluated): each goal's rows equal the
    full evaluation's."""
    prog = generate(seed)
    rng = random.Random(pick)
    base = [rel for rel in prog.relations if prog.level[rel] == 0]
    if drop and base:
        gone = rng.choice(base)
        prog.facts[:] = [f for f in prog.facts if f.rel != gone]
    text = prog.rofl()
    full = _kernel(text).evaluate()
    k = _kernel(text)
    for goal in rng.sample(list(prog.relations), min(3, len(prog.relations))):
        k.invalidate()
        assert _rows(k.evaluate(goals={goal}), goal) == _rows(full, goal), goal


# ------------------------------------------------------------------------------------------ the parser
_NAMES = st.sampled_from(["p", "edge", "q2", "fileName", "is_x"])
_ARG = st.one_of(
    st.integers(-(10**12), 10**12).map(str),
    st.sampled_from(["a", "nil", "b_1"]),
    st.text(st.sampled_from('ab \\"\tn.-'), max_size=6).map(
        lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    ),
)
_FACT = st.builds(
    lambda ws, rel, persp, args, temporal: f"{ws}{rel}{persp}({', '.join(args)}){temporal}.",
    st.sampled_from(["", "  ", "\t"]),
    _NAMES,
    st.sampled_from(["", "[s1]"]),
    st.lists(_ARG, min_size=1, max_size=3),
    st.sampled_from(["", " @init", "@now"]),
)
_OTHER = st.sampled_from(
    [
        "r(X) :- p(X).",
        "r(X) :-\n  edge(X, 1).",
        "-- a comment",
        "",
        "edge(1, 2). r(X) :- edge(X, _).",
        "q(X) :- p(X), not r(X).",
        "edge(1, 2).",
    ]
)


@given(st.lists(_FACT, max_size=8), st.lists(st.one_of(_FACT, _OTHER), max_size=6))
def test_leading_fact_lines_parse_as_the_full_parser_parses_them(lead, rest):
    """Fact lines before the first other line take the line-by-line path; the clauses (with their
    lines and columns) equal what the full parser makes of the whole text."""
    text = "\n".join(lead + rest) + "\n"
    fast = parse_program(text, "t.rofl")
    full = _Parser(lexer.tokenize(text, "t.rofl"), "t.rofl").program()
    assert [(c, c.line, c.col) for c in fast] == [(c, c.line, c.col) for c in full]


# ------------------------------------------------------------------------------------------ reuse between evaluations
def test_a_carried_fact_loses_its_asserter_in_the_cached_metadata():
    k = _kernel("keep(X) @next :- keep(X).\n")
    k.assert_fact("keep", "main", (1,), who="alice")
    assert any(row[1][0] == "$fact" for row in k.evaluate().rows("asserted_by"))
    k.tick()
    assert not k.evaluate().rows("asserted_by")
    k.assert_fact("keep", "main", (2,), who="bob")
    assert [row[2] for row in k.evaluate().rows("asserted_by")] == [("bob",)]


def test_an_earlier_result_keeps_its_rows_while_later_ones_share_its_tables():
    k = _kernel("edge(1, 2). edge(2, 3).\nnode(1).\npath(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n")
    first = k.evaluate()
    rows = first.rows("path"), first.rows("edge"), first.rows("node")
    k.assert_fact("edge", "main", (3, 4))
    second = k.evaluate()
    assert (first.rows("path"), first.rows("edge"), first.rows("node")) == rows
    assert ("main", 1, 4) in second.rows("path") and second.rows("node") == rows[2]


def test_an_evaluation_resumes_the_garbage_collector_only_if_it_paused_it():
    k = _kernel("p(1).\nq(X) :- p(X).\n")
    assert gc.isenabled()
    k.evaluate()
    assert gc.isenabled()
    gc.disable()
    try:
        k.assert_fact("p", "main", (2,))
        k.evaluate()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_what_an_evaluation_allocated_is_not_walked_by_a_young_collection_yet_stays_collectable():
    chain = "".join(f"edge({i}, {i + 1}).\n" for i in range(150))
    k = _kernel(chain + "path(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n")

    class Node:
        pass

    cycle = Node()
    cycle.me = cycle  # type: ignore[attr-defined]
    alive = weakref.ref(cycle)
    walks: list[int] = []

    def seen(phase: str, info: dict) -> None:
        if phase == "start":
            walks.append(info["generation"])

    gc.collect()
    gc.callbacks.append(seen)
    try:
        result = k.evaluate()
    finally:
        gc.callbacks.remove(seen)
    assert len(result.rows("path")) == 150 * 151 // 2
    assert walks == []  # its 11,325 facts and their records are not walked again right after it
    del cycle
    gc.collect()
    assert alive() is None

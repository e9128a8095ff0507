"""Demand for bound arguments (engine.magic): a question that binds arguments of a linearly recursive
relation (in any of its literals) is answered without building the relation, and gives exactly the answers of the full
evaluation (differential: hypothesis over transitive closures of every shape, and the random
stratified programs of tests/engine/program_gen.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine.kernel import Kernel
from rofl.engine.terms import format_term

from tests.conftest import BOOT
from tests.engine.program_gen import generate
from tests.engine.proofs import assert_valid_proof

NODES = "abcdef"

# (rules for r, whether a question binding r's first or second argument must run by demand)
SHAPES = {
    "right-linear": ("r(A, B) :- e(A, B).\nr(A, C) :- e(A, B), r(B, C).", True),
    "left-linear": ("r(A, B) :- e(A, B).\nr(A, C) :- r(A, B), e(B, C).", True),
    "premise after the call": ("r(A, B) :- e(A, B).\nr(A, C) :- r(B, C), e(A, B).", True),
    "builtin filter": ('r(A, B) :- e(A, B), B != c.\nr(A, C) :- e(A, B), r(B, C), A != "x".', True),
    "negated filter": (
        "blocked(d).\nr(A, B) :- e(A, B), not blocked(B).\nr(A, C) :- r(A, B), e(B, C), not blocked(C).",
        True,
    ),
    "base facts and two exits": (
        "r(f, a).\nr(A, B) :- e(A, B).\nr(A, A) :- e(A, _).\nr(A, C) :- e(A, B), r(B, C).",
        True,
    ),
    "compound arguments": ("r(A, p(B)) :- e(A, B).\nr(A, C) :- e(A, B), r(B, C).", True),
    "non-linear": ("r(A, B) :- e(A, B).\nr(A, C) :- r(A, B), r(B, C).", False),
    "mutual recursion": ("r(A, B) :- e(A, B).\nr(A, C) :- e(A, B), s(B, C).\ns(A, B) :- r(A, B).", False),
}

edges = st.lists(st.tuples(st.sampled_from(NODES), st.sampled_from(NODES)), max_size=14, unique=True)


def both(k: Kernel, question: str):
    """The answers by demand (and whether the relation was left unevaluated), and by full evaluation."""
    k.invalidate()
    by_demand = k.query(question)
    current = k.current
    demanded = current is not None and current.goals is not None and "r" not in current.goals
    k.invalidate()
    return by_demand, demanded, k.query(question, demand=False)


@settings(max_examples=60, deadline=None)
@given(
    shape=st.sampled_from(sorted(SHAPES)),
    graph=edges,
    question=st.sampled_from(
        [
            "r(a, X)",
            "r(X, a)",
            "r(a, d)",
            "r(X, Y)",
            "r(a, X), e(X, Y)",
            "r(b, X), X != a",
            "e(X, Y), r(Y, c)",
            "e(X, Y), not e(Y, X), r(a, Y)",
            "e(b, Y), r(Y, Z), r(a, Z)",
        ]
    ),
)
@pytest.mark.slow
def test_demand_answers_equal_the_full_evaluation(shape, graph, question):
    rules, linear = SHAPES[shape]
    k = Kernel(BOOT)
    k.load_text("e(z, z).\n" + "".join(f"e({a}, {b}).\n" for a, b in graph) + rules)
    by_demand, demanded, full = both(k, question)
    assert by_demand.rows == full.rows and by_demand.variables == full.variables
    # by demand exactly when r has linear rules, one literal binds it, and nothing else reads it
    assert demanded == (linear and question.count("r(") == 1 and not question.startswith("r(X, Y)"))


@pytest.mark.slow
def test_random_stratified_programs_agree_when_asked_with_a_bound_argument():
    demanded_questions = 0
    for seed in range(30):
        prog = generate(seed, max_levels=4, max_idb=6, domain_size=4, perspectives=seed % 2 == 0, recursion=0.7)
        k = Kernel(BOOT)
        k.load_text(prog.rofl(), source=f"<seed {seed}>")
        rows = k.facts()
        for rel in prog.relations:
            persps = sorted({row[0] for name, row in rows if name == rel})  # asked where it has rows
            for pos in range(prog.arity[rel]):
                values = sorted({format_term(row[1 + pos]) for name, row in rows if name == rel})[:2]
                for persp in persps:
                    for value in [*values, "nothing_here"]:
                        args = [f"X{i}" for i in range(prog.arity[rel])]
                        args[pos] = value
                        question = f"{rel}[{persp}]({', '.join(args)})"
                        k.invalidate()
                        by_demand = k.query(question)
                        current = k.current
                        demanded_questions += (
                            current is not None and current.goals is not None and rel not in current.goals
                        )
                        k.invalidate()
                        full = k.query(question, demand=False)
                        assert by_demand.rows == full.rows, (seed, question, prog.rofl())
    assert demanded_questions > 50  # the comparison is not vacuous: many questions ran by demand


def test_a_chain_asked_from_its_head_never_builds_the_closure():
    n = 3_500
    k = Kernel(BOOT, budget=20 * n)  # the closure of a cycle of n takes n * n steps
    text = "".join(f'dependency("f{i}", "f{(i + 1) % n}").\n' for i in range(n))
    k.load_text(text + "depends_on(A, B) :- dependency(A, B).\ndepends_on(A, C) :- dependency(A, B), depends_on(B, C).")
    k.invalidate()
    answers = k.query('depends_on("f0", X)')
    assert not answers.partial and len(answers.rows) == n
    assert "depends_on" not in (k.current.goals or {"depends_on"})
    k.invalidate()
    cut = k.query('depends_on("f0", X)', budget=100)  # a demand answer is bounded by the budget too
    assert cut.partial and set(cut.rows) < set(answers.rows)


@settings(max_examples=60, deadline=None)
@given(
    shape=st.sampled_from(sorted(SHAPES)), graph=edges, pair=st.tuples(st.sampled_from(NODES), st.sampled_from(NODES))
)
def test_why_proves_a_fact_by_demand_exactly_when_the_full_evaluation_holds_it(shape, graph, pair):
    """``why`` of a linearly recursive relation binding its arguments searches the demand calls for a proof
    and never builds the relation: the fact holds by demand exactly when the full evaluation has it, and
    the proof found is a valid derivation (each step re-derived by its rule), as short as the full
    evaluation's or shorter (breadth first over the calls)."""
    rules, linear = SHAPES[shape]
    k = Kernel(BOOT)
    k.load_text("e(z, z).\n" + "".join(f"e({a}, {b}).\n" for a, b in graph) + rules)
    (lit,) = k.question(f"r({pair[0]}, {pair[1]})").literals
    k.invalidate()
    node = k.why(lit.rel, lit.persp, lit.args, goals={"r"})
    current = k.current
    whole = current is None or current.goals is None or "r" in current.goals
    assert whole != linear  # by demand exactly where the shape allows it, holding or not
    k.invalidate()
    full = k.evaluate()
    holds = full.holds("r", (lit.persp, *lit.args))
    assert (node is not None) == holds
    if node is not None:
        depth = assert_valid_proof(k, full, node)
        if linear and shape != "left-linear" and shape != "negated filter":  # factor rules: breadth first
            assert depth <= assert_valid_proof(k, full, k.why(lit.rel, lit.persp, lit.args))

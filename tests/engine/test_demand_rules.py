"""Demand (moded) rules: binding patterns, recursion over structured terms, negation, budgets and why trees."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLES
from tests.engine.semantics import LEN, a, boot, cons_list, load, rows


def test_demand_rule_called_with_different_binding_patterns():
    k = load(
        "add(X, Y, Z) :- Z is X + Y.\n"
        "q(1, 2). q(5, 5).\n"
        "sum(Z) :- q(X, Y), add(X, Y, Z).\n"
        "ok(X) :- q(X, Y), add(X, Y, 3)."
    )
    assert rows(k, "sum(Z)") == [(3,), (10,)]
    assert rows(k, "ok(X)") == [(1,)]
    assert rows(k, "add(1, 2, Z)") == [(3,)]
    assert k.query("add(1, 2, 3)").rows == ((),)
    assert k.query("add(1, 2, 4)").rows == ()


def test_demand_recursion_over_structured_terms_and_its_why_tree():
    k = load(LEN + f"lst({cons_list([7, 8, 9])}).\nsize(N) :- lst(L), len(L, N).")
    assert rows(k, "size(N)") == [(3,)]
    node = k.why("size", "main", (3,))
    text = "\n".join(node.lines())
    # every premise is present, down through each demand unfolding, builtins instantiated
    assert "len[main](nil, 0)" in text
    assert "3 is (2 + 1)" in text and "1 is (0 + 1)" in text
    for line in node.lines():
        if line.strip().endswith("builtin holds"):
            assert not re.search(r"\b[A-Z_]\w*", line.split("--")[0]), line  # no variable left


def test_demand_relation_under_negation_and_reading_perspectives():
    k = load((EXAMPLES / "sensors.rofl").read_text())
    k.load_file(EXAMPLES / "sensor_readings.rofl", who="sensor_net")
    assert rows(k, "outlier(S)") == [(a("s3"),)]
    assert rows(k, "verified(V)") == [(20,), (21,)]
    # a demand relation whose head perspective is a variable, bound by the body
    k.load_text(
        "near[S](V) :- reading[S](W), D is V - W, D <= 2, D >= -2.\nprobe(23).\nhit(S) :- probe(V), near[S](V)."
    )
    assert rows(k, "hit(S)") == [(a("s2"),)]
    assert rows(k, "near[s1](19)") == [()]


def test_demand_recursion_over_cyclic_data_is_complete():
    k = load("e(a, b). e(b, a).\nd(X, Y) :- X = Y.\nd(X, Y) :- e(X, Z), d(Z, Y).")
    assert rows(k, "d(a, Y)") == [(a("a"),), (a("b"),)]
    assert rows(k, "d(b, Y)") == [(a("a"),), (a("b"),)]


def test_demand_callee_dependencies_are_computed_before_the_caller():
    # h (the caller) sorts before q (what the demand rule d reads): both are stratum 0
    k = load("s(1). s(2).\nq(X) :- s(X).\nd(X, Y) :- q(Y), Y >= X.\nh(Y) :- s(X), d(X, Y).")
    assert rows(k, "h(Y)") == [(1,), (2,)]
    assert rows(k, "d(1, Y)") == [(1,), (2,)]


def test_base_facts_of_a_demand_relation_are_visible():
    k = load(
        "close(1, 100).\n"
        "close(V1, V2) :- D is V1 - V2, D <= 2, D >= -2.\n"
        "pair(1, 100). pair(1, 2).\n"
        "ok(A, B) :- pair(A, B), close(A, B)."
    )
    assert k.query("close(1, 100)").rows == ((),)
    assert rows(k, "ok(A, B)") == [(1, 2), (1, 100)]


def test_demand_rule_reading_the_recursive_relation_that_calls_it():
    # ok(Y) holds when r(Y - 1) does: the least model is r = {1, 2, 3}
    k = load("s(1). t(2). t(3).\nr(X) :- s(X).\nr(Y) :- t(Y), ok(Y).\nok(Y) :- Y > 0, r(Z), Z is Y - 1.")
    assert rows(k, "r(X)") == [(1,), (2,), (3,)]


def test_a_budget_cut_demand_call_does_not_poison_later_questions():
    k = load(LEN)
    cut = k.query("len(cons(1, cons(2, cons(3, nil))), N)", budget=2)
    assert cut.partial and cut.rows == ()
    again = k.query("len(cons(1, cons(2, cons(3, nil))), N)")
    assert (again.rows, again.partial) == (((3,),), False)


def test_a_budget_cut_demand_call_does_not_flip_a_negation():
    prog = "w(5, 1). w(5, 200).\nd(X) :- X > 0, w(X, Y), Y > 100.\ne(X) :- X > 0, not d(X)."
    full = load(prog)
    assert full.query("d(5)").rows == ((),) and full.query("e(5)").rows == ()
    k = load(prog)
    assert k.query("d(5)", budget=1).partial
    answer = k.query("e(5)")
    # a partial answer must be a subset of the complete one; a complete one must equal it
    assert answer.rows == ()


def _len_program(calls: bool) -> str:
    # four relations of 25 distinct lists of 20 cells each
    text = ""
    for g in range(4):
        text += "".join(
            f"l{g}({cons_list(range(g * 10_000 + i * 100, g * 10_000 + i * 100 + 20))}).\n" for i in range(25)
        )
        text += f"r{g}(N) :- l{g}(L), len(L, N).\n" if calls else f"r{g}(N) :- l{g}(L), N = 20.\n"
    return text + LEN


def test_demand_steps_are_charged_to_the_budget():
    # every len/2 call unfolds 21 nodes: the 100 calls need over 2,100 steps (about 4,000 with the
    # premise steps) beyond what the same program without the calls needs
    base = boot(10**7)
    base_steps = base.load_text(_len_program(calls=False)).steps
    k = boot(base_steps + 2_000)
    outcome = k.load_text(_len_program(calls=True))
    assert outcome.partial, "the evaluation completed within a budget smaller than its demand steps"


def test_demand_query_budget_exactly_at_the_limit():
    needed = None
    for b in range(1, 30):
        ans = load(LEN).query("len(cons(1, cons(2, nil)), N)", budget=b)
        if not ans.partial:
            needed = b
            assert ans.rows == ((2,),)
            break
        assert ans.rows == ()
    assert needed is not None
    assert load(LEN).query("len(cons(1, cons(2, nil)), N)", budget=needed - 1).partial


def test_query_budget_zero_is_a_budget_of_zero():
    ans = load(LEN).query("len(cons(1, nil), N)", budget=0)
    assert ans.partial and ans.rows == ()


def test_init_literal_means_the_same_in_demand_and_bottom_up_rules():
    k = load(
        "x(1)@init. k(5)@init.\n"
        "x(X)@next :- x(X).\nk(X)@next :- k(X).\n"
        "b(X) :- x(X)@init.\n"
        "probe(K, X) :- x(X)@init, K > 0.\n"  # demand: K is bound by the caller
        "c(X) :- k(K), probe(K, X)."
    )
    assert rows(k, "b(X)") == rows(k, "c(X)") == [(1,)]
    k.tick()
    assert rows(k, "b(X)") == rows(k, "c(X)")


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(
        st.lists(st.sampled_from(["main", "code", "a", "b", 1, 2]), min_size=1, max_size=4).map(tuple),
        max_size=30,
        unique=True,
    ),
    cols=st.sets(st.integers(0, 3), min_size=1, max_size=3).map(lambda c: tuple(sorted(c))),
    key=st.lists(st.sampled_from(["main", "code", "a", "b", 1, 2]), min_size=3, max_size=3),
)
def test_a_lookup_by_scan_finds_what_the_index_finds_in_the_same_order(rows, cols, key):
    """Demand looks a literal up by a scan the first time (engine.demand._matching), by the index after."""
    from rofl.engine.demand import _matching
    from rofl.engine.tables import Table

    table = Table()
    table.add_many(rows, -1)
    wanted = key[0] if len(cols) == 1 else tuple(key[: len(cols)])
    assert _matching(table.rows, cols, wanted) == table.index(cols).get(wanted, [])
    for row in rows:  # and every key that is there
        if len(row) > max(cols):
            present = row[cols[0]] if len(cols) == 1 else tuple(row[c] for c in cols)
            assert _matching(table.rows, cols, present) == table.index(cols).get(present, [])

"""Ticks and budgets: @init/@next, silent fixpoints, the busy beaver, holes and partial results."""

from __future__ import annotations

import pytest
from rofl.engine.kernel import Kernel

from tests.conftest import BOOT, EXAMPLES

BUSY_BEAVER = {  # (state, read) -> (write, move, next), the table of examples/tm.rofl
    ("a", 0): (1, "r", "b"),
    ("a", 1): (1, "r", "h"),
    ("b", 0): (0, "r", "c"),
    ("b", 1): (1, "r", "b"),
    ("c", 0): (1, "l", "c"),
    ("c", 1): (1, "l", "a"),
}


def simulate(table: dict, limit: int = 10_000) -> tuple[int, list[int]]:
    """An independent plain-Python Turing machine: (steps, tape cells from leftmost to rightmost)."""
    tape: dict[int, int] = {}
    pos, state, steps = 0, "a", 0
    while state != "h" and steps < limit:
        write, move, state = table[(state, tape.get(pos, 0))]
        tape[pos] = write
        pos += 1 if move == "r" else -1
        tape.setdefault(pos, 0)
        steps += 1
    cells = [tape[i] for i in range(min(tape), max(tape) + 1)]
    return steps, cells


def cons_list(term) -> list:
    out = []
    while term != ("nil",):
        out.append(term[1])
        term = term[2]
    return out


def test_counter_collects_one_to_five_then_goes_quiet(kernel):
    kernel.load_file(EXAMPLES / "counter.rofl")
    report = kernel.run(collect=("count",))
    assert report.quiescent and not report.partial
    # 1..5 at the boundaries of ticks 0..4, then tick 5 repeats itself: the silent fixpoint
    assert [facts for _, facts in report.collected] == [(f"count[main]({i})",) for i in range(1, 6)] + [()]
    assert [t for t, _ in report.collected] == [0, 1, 2, 3, 4, 5]


def test_domain_facts_do_not_persist_without_next(kernel):
    kernel.load_text("seen(1)@init. note(X) :- seen(X).")
    assert kernel.query("note(X)").rows == ((1,),)
    kernel.tick()
    assert kernel.query("seen(X)").rows == () and kernel.query("note(X)").rows == ()
    # kernel-vocabulary facts are timeless: the rule still exists and runs on new facts
    kernel.load_text("seen(7).")
    assert kernel.query("note(X)").rows == ((7,),)


def test_busy_beaver_matches_plain_python(kernel):
    kernel.load_file(EXAMPLES / "tm.rofl")
    report = kernel.run(collect=("steps", "ones", "halted"))
    assert report.quiescent and not report.partial
    steps, cells = simulate(BUSY_BEAVER)
    assert sum(cells) == 6
    assert kernel.query("steps(N)").rows == ((steps,),)
    assert kernel.query("ones(N)").rows == ((6,),)
    ((tape,),) = kernel.query("halted(T)").rows
    _, left, head, right = tape
    ours = list(reversed(cons_list(left))) + [head] + cons_list(right)
    assert ours.count(1) == cells.count(1) == 6
    assert [c for c in ours if c] == [c for c in cells if c]


@pytest.mark.slow
def test_diverging_machine_ends_partial_with_a_hole_and_a_queryable_trace(kernel):
    text = (EXAMPLES / "tm.rofl").read_text().replace("delta(a, 1, 1, r, h)@init.", "delta(a, 1, 1, r, a)@init.")
    text = text.replace("delta(a, 0, 1, r, b)@init.", "delta(a, 0, 1, r, a)@init.")
    kernel.load_text(text)
    report = kernel.run(budget=3_000)
    assert report.partial and not report.quiescent
    holes = kernel.query("hole(Q, R)").rows
    assert holes and all(r == ("budget_exhausted",) for _, r in holes)
    assert any(q[0] == "$tick" for q, _ in holes)
    # the trace of earlier ticks is still there: frozen provenance and the tick log
    past = kernel.query("derived_by(F, R, T)").as_dicts()
    cfg_ticks = {a["T"] for a in past if a["F"][1] == ("cfg",)}
    assert {0, 1, 2} <= cfg_ticks
    assert len(kernel.store.tick_log) >= 3


def test_hole_survives_reevaluation(kernel):
    kernel.budget = 200
    kernel.load_text("nat(0). nat(Y) :- nat(X), Y is X + 1.")
    assert kernel.outcome.partial
    holes = kernel.query("hole(Q, R)").rows
    kernel.load_text("other(1).")
    assert set(holes) <= set(kernel.query("hole(Q, R)").rows)


def test_budgeted_query_over_unbounded_relation_is_partial():
    k = Kernel(BOOT, budget=5_000)
    k.load_text("nat(0). nat(Y) :- nat(X), Y is X + 1.")
    answers = k.query("nat(X)")
    assert answers.partial and 0 < len(answers.rows) < 5_000


def test_budget_never_completes_past_itself():
    k = Kernel(BOOT, budget=10_000_000)
    k.load_text("nat(0). nat(Y) :- nat(X), X < 1000, Y is X + 1.")
    steps = k.outcome.steps
    assert not k.outcome.partial
    k2 = Kernel(BOOT, budget=steps - 1)
    k2.load_text("nat(0). nat(Y) :- nat(X), X < 1000, Y is X + 1.")
    assert k2.outcome.partial and k2.outcome.steps <= steps - 1


def test_negation_in_an_next_rule_reads_the_finished_tick(kernel):
    kernel.load_file(EXAMPLES / "stock.rofl")
    report = kernel.run(collect=("stock",))
    assert report.quiescent
    assert [facts for _, facts in report.collected] == [
        ("stock[main](apple)", "stock[main](pear)", "stock[main](plum)"),
        ("stock[main](pear)",),
    ]


def test_same_tick_negative_cycle_is_still_rejected(kernel):
    import pytest
    from rofl.engine.base.errors import LoadRejected

    with pytest.raises(LoadRejected, match="unstratified"):
        kernel.load_text("stock(a). sold(X) :- stock(X), order(X). stock(X) :- item(X), not sold(X).")


def test_staged_rules_are_reflected_with_stages(kernel):
    kernel.load_file(EXAMPLES / "counter.rofl")
    staged = kernel.query("stages(R, count)").rows
    assert len(staged) == 1
    assert kernel.query("concludes(R, count)").rows == ()
    # a hand-asserted staging into a reserved relation is a breach
    kernel.assert_fact("stages", "main", (("rz",), ("authority",)))
    assert (("rz",),) in kernel.query("breach[audit](R)").rows

"""Ticks: @next with negation, silent fixpoints, why into the past, frozen provenance and holes across evaluations."""

from __future__ import annotations

from rofl.engine.kernel import Kernel

from tests.conftest import EXAMPLES
from tests.engine.semantics import a, boot, load, rows


def test_next_with_negation_and_a_fact_asserted_mid_run():
    k = load(
        "stock(apple)@init. stock(pear)@init.\nsold(X) :- stock(X), order(X).\nstock(X)@next :- stock(X), not sold(X)."
    )
    k.tick()
    assert rows(k, "stock(X)") == [(a("apple"),), (a("pear"),)]
    k.assert_fact("order", "main", (a("pear"),))
    assert rows(k, "sold(X)") == [(a("pear"),)]
    report = k.tick()
    assert [f for f in report.installed if f[0] == "stock"] == [("stock", ("main", a("apple")))]
    assert rows(k, "stock(X)") == [(a("apple"),)] and rows(k, "order(X)") == []
    assert k.run().quiescent


def test_counter_reaches_a_silent_fixpoint_and_why_reaches_into_the_past():
    k = load((EXAMPLES / "counter.rofl").read_text() + "sq(Y) :- count(X), Y is X * X.")
    report = k.run(collect=("count",))
    assert report.quiescent and not report.partial
    assert [f for _, f in report.collected if f] == [(f"count[main]({i})",) for i in range(1, 6)]
    k = load((EXAMPLES / "counter.rofl").read_text() + "sq(Y) :- count(X), Y is X * X.")
    k.run(max_ticks=5)  # stop at tick 4, where count(5) holds
    node = k.why("sq", "main", (25,))
    assert [c.kind for c in node.children] == ["past", "builtin"]


def test_frozen_provenance_does_not_depend_on_reuse(tmp_path):
    prog = "t(1)@init.\nt(X)@next :- t(X).\ng(P) :- authority(P, _)."
    fact = ("$fact", a("g"), a("main"), ("$args", a("main")))

    def ticks(k: Kernel) -> list:
        return sorted(r[2] for r in k.query("derived_by(F, R, T)").rows if r[0] == fact)

    k = load(prog)
    k.tick()
    assert ticks(k) == [0, 1]  # at tick 1 the question sees tick 1's derivation
    k.save(tmp_path / "t1.store")
    k.tick()
    restored = Kernel.restore(tmp_path / "t1.store")
    restored.tick()
    assert ticks(restored) == [0, 1, 2]
    assert ticks(k) == ticks(restored)


def test_hole_survives_reevaluation_and_names_the_load():
    k = boot(budget=300)
    k.load_text("n(0).\nn(Y) :- n(X), Y is X + 1, Y < 1000.")
    assert k.outcome.partial
    holes = rows(k, "hole(Q, R)")
    assert holes and all(r == (("$load", n), a("budget_exhausted")) for (r, n) in zip(holes, range(1, 10)))
    k.budget = 10**6
    k.load_text("other(1).")
    assert set(holes) <= set(rows(k, "hole(Q, R)"))
    assert len(rows(k, "n(X)")) == 1000

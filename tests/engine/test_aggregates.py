"""Stratified aggregates (issue 22 item 4): ``N = count : { body }``, ``S = sum V : { body }``,
``M = min V : { body }``, ``M = max V : { body }``.

Checked against plain Python (hypothesis: random relations, grouped and not) and against clingo's
``#count``/``#sum``/``#min``/``#max`` on the same facts; the empty-group cases; the stratification
error (a cycle through an aggregate, with file:line and the cycle, exit 2 from the CLI); ``why`` and
``whynot`` of aggregated facts; the budget; rules as data (save, restore, decode); ``rofl ask``.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rofl.engine.base.errors import LoadRejected, RoflSyntaxError
from rofl.engine.costs import int_steps
from rofl.engine.kernel import Kernel
from rofl.engine.parse import parse_program
from rofl.engine.reflect import item_from_term, item_term
from rofl.engine.rulebook import RuleBook

from tests.conftest import BOOT, EXAMPLES
from tests.engine.semantics import boot
from tests.engine.test_differential import clingo_models

RULES = """
c(G, N) :- g(G), N = count : { p(G, _, _) }.
s(G, S) :- g(G), S = sum V : { p(G, K, V) }.
lo(G, M) :- g(G), M = min V : { p(G, _, V) }.
hi(G, M) :- g(G), M = max V : { p(G, _, V) }.
cf(G, N) :- N = count : { p(G, _, _) }.
sf(G, S) :- S = sum V * 2 : { p(G, _, V) }.
t(N) :- N = count : { p(_, _, _) }.
sn(G, S) :- g(G), S = sum V : { p(G, K, V), not x(K) }.
keys(G, N) :- g(G), N = count : { p(G, K, _), K > 1 }.
"""

ROWS = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4), st.integers(-5, 5)), max_size=25, unique=True)
GROUPS = st.lists(st.integers(0, 5), min_size=1, max_size=6, unique=True)
EXCLUDED = st.lists(st.integers(0, 4), max_size=3, unique=True)


def facts_text(rows, groups, excluded) -> str:
    lines = [f"g({g})." for g in groups]
    lines += [f"p({a}, {b}, {c})." for a, b, c in rows]
    lines += [f"x({k})." for k in excluded]
    return "\n".join(lines) + "\n"


def answers(k: Kernel, rel: str, arity: int) -> set:
    args = ", ".join(f"V{i}" for i in range(arity))
    return set(k.query(f"{rel}({args})").rows)


def python_model(rows, groups, excluded) -> dict[str, set]:
    """The expected answers, computed directly: each aggregate over the distinct matching rows."""
    by_group: dict[int, list[tuple[int, int]]] = {}
    for a, b, c in rows:
        by_group.setdefault(a, []).append((b, c))
    out: dict[str, set] = {r: set() for r in ("c", "s", "lo", "hi", "cf", "sf", "t", "sn", "keys")}
    for g in groups:
        kv = by_group.get(g, [])
        out["c"].add((g, len(kv)))
        out["keys"].add((g, sum(1 for k, _ in kv if k > 1)))  # the wildcard's values are solutions too
        if kv:
            out["s"].add((g, sum(v for _, v in kv)))
            out["lo"].add((g, min(v for _, v in kv)))
            out["hi"].add((g, max(v for _, v in kv)))
        kept = [v for k, v in kv if k not in excluded]
        if kept:
            out["sn"].add((g, sum(kept)))
    for g, kv in by_group.items():
        out["cf"].add((g, len(kv)))
        # sum V * 2 over the distinct (K, V) solutions of p(G, _, V): the wildcard K is a variable too
        out["sf"].add((g, sum(2 * v for _, v in kv)))
    out["t"].add((len(rows),))
    return out


_BOOK = RuleBook()  # compiled join code is a pure function of the rule: share it across examples


def booted(naive: bool) -> Kernel:
    k = Kernel(None, naive=naive)
    k.book = _BOOK
    k.load_boot(BOOT)
    return k


ARITY = {"c": 2, "s": 2, "lo": 2, "hi": 2, "cf": 2, "sf": 2, "t": 1, "sn": 2, "keys": 2}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ROWS, GROUPS, EXCLUDED, st.booleans())
def test_aggregates_equal_plain_python(rows, groups, excluded, naive):
    k = booted(naive)
    k.load_text(facts_text(rows, groups, excluded) + RULES)
    expected = python_model(rows, groups, excluded)
    for rel, arity in ARITY.items():
        assert answers(k, rel, arity) == expected[rel], rel
    if rows:  # (a question over a relation nothing defines is an error)
        # the same aggregates asked as questions, grouped by the question's other literal
        assert set(k.query("g(G), N = count : { p(G, _, _) }").rows) == expected["c"]
        assert set(k.query("N = count : { p(_, _, _) }").rows) == expected["t"]


def clingo_program(rows, groups, excluded) -> str:
    """The same rules in clingo's syntax: an aggregate's element lists every inner variable after the
    weight, so that clingo folds over the same distinct solutions; ``some`` guards sum, min and max,
    which in clingo hold over an empty set (0, #sup, #inf)."""
    return (
        facts_text(rows, groups, excluded)
        + """
some(G) :- p(G, _, _).
c(G, N) :- g(G), N = #count{ K, V : p(G, K, V) }.
s(G, S) :- g(G), some(G), S = #sum{ V, K : p(G, K, V) }.
lo(G, M) :- g(G), some(G), M = #min{ V, K : p(G, K, V) }.
hi(G, M) :- g(G), some(G), M = #max{ V, K : p(G, K, V) }.
cf(G, N) :- some(G), N = #count{ K, V : p(G, K, V) }.
sf(G, S) :- some(G), S = #sum{ 2 * V, K : p(G, K, V) }.
t(N) :- N = #count{ G, K, V : p(G, K, V) }.
sn(G, S) :- g(G), some_kept(G), S = #sum{ V, K : p(G, K, V), not x(K) }.
some_kept(G) :- p(G, K, _), not x(K).
keys(G, N) :- g(G), N = #count{ K, V : p(G, K, V), K > 1 }.
"""
    )


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ROWS, GROUPS, EXCLUDED)
def test_aggregates_agree_with_clingo(rows, groups, excluded):
    k = booted(False)
    k.load_text(facts_text(rows, groups, excluded) + RULES)
    models = clingo_models(clingo_program(rows, groups, excluded))
    assert len(models) == 1
    theirs: dict[str, set] = {rel: set() for rel in ARITY}
    for sym in models[0]:
        if sym.name in theirs:
            theirs[sym.name].add(tuple(a.number for a in sym.arguments))
    for rel, arity in ARITY.items():
        assert answers(k, rel, arity) == theirs[rel], rel


# ------------------------------------------------------------------------------------------ empty groups
def test_empty_groups():
    k = boot()
    k.load_text(
        """
        g(a). g(b).
        v(a, 3).
        c(G, N) :- g(G), N = count : { v(G, _) }.
        s(G, N) :- g(G), N = sum X : { v(G, X) }.
        lo(G, N) :- g(G), N = min X : { v(G, X) }.
        hi(G, N) :- g(G), N = max X : { v(G, X) }.
        free(G, N) :- N = count : { v(G, _) }.
        none(N) :- N = count : { w(_) }.
        nosum(N) :- N = sum X : { w(X) }.
        """
    )
    assert k.query("c(G, N)").rows == ((("a",), 1), (("b",), 0))  # a bound group with no solution counts 0
    for rel in ("s", "lo", "hi"):  # sum, min and max over no solution have none
        assert k.query(f"{rel}(G, N)").rows == ((("a",), 3),)
    assert k.query("free(G, N)").rows == ((("a",), 1),)  # an unbound group exists only with solutions
    assert k.query("none(N)").rows == ((0,),)
    assert k.query("nosum(N)").rows == ()


def test_sum_is_over_integers_and_min_max_use_the_canonical_order():
    k = boot()
    k.load_text(
        """
        v(1). v(2). v("x").
        name("b.ts"). name("a.ts"). name(7).
        s(N) :- N = sum X : { v(X) }.
        si(N) :- N = sum Y : { v(X), Y is X + 0 }.
        lo(M) :- M = min X : { name(X) }.
        hi(M) :- M = max X : { name(X) }.
        a(count) :- v(1).
        b(X) :- v(X), X = count.
        """
    )
    assert k.query("s(N)").rows == ()  # a string among the values: the sum is undefined
    assert k.query("si(N)").rows == ((3,),)  # 'is' keeps integers only
    assert k.query("lo(M)").rows == ((7,),)  # integers sort before strings
    assert k.query("hi(M)").rows == (("b.ts",),)
    assert k.query("a(X)").rows == ((("count",),),)  # count without ':' is still an atom
    assert k.query("b(X)").rows == ()


def test_a_sum_pays_for_the_size_of_a_huge_integer():
    rule = "total(N) :- N = sum X : { v(X) }."
    small, big = boot(), boot()
    small.load_text("v(1). v(2). v(3). " + rule)
    big.load_text(f"v({2**100}). v({2**100 + 1}). v({2**100 + 2}). " + rule)
    made = 3 * 2**100 + 3
    assert big.query("total(N)").rows == ((made,),)
    assert big.evaluate().steps - small.evaluate().steps == int_steps(made) > 0


# ------------------------------------------------------------------------------------------ stratification
def test_an_aggregate_over_its_own_head_is_a_stratification_error_naming_the_line_and_cycle(tmp_path):
    k = boot()
    k.load_text("e(a, b).")
    with pytest.raises(LoadRejected) as err:
        k.load_text("q(X) :- e(X, _).\nq(X) :- p(X, _).\np(X, N) :- e(X, _), N = sum 1 : { q(_) }.\n", "prog.rofl")
    message = err.value.message
    assert message.startswith("prog.rofl:3:1: sum over q depends on its own head p (cycle p -> q -> p)")
    assert "\n" not in message and message.endswith("the load was rolled back")
    assert k.query("e(X, Y)").rows == ((("a",), ("b",)),)  # rolled back: the rules are gone
    assert k.facts("p") == [] and k.facts("q") == []


def test_cli_exit_2_on_an_aggregate_cycle(tmp_path, rofl):
    prog = tmp_path / "loop.rofl"
    prog.write_text("e(a).\np(X, N) :- e(X), N = count : { p(_, _) }.\n")
    code, out, err = rofl("ask", "p(X, N)", str(prog))
    assert code == 2
    first = err.splitlines()[0]
    assert first.startswith(f"{prog}:2:1: count over p depends on its own head p (cycle p -> p)")


def test_an_aggregate_puts_its_head_a_stratum_above_what_it_reads():
    k = boot()
    k.load_text("v(1). w(X) :- v(X). n(N) :- N = count : { w(_) }. m(N) :- n(N).")
    strata = k.evaluate().strata
    assert strata["n"] == strata["w"] + 1 and strata["m"] == strata["n"]


# ------------------------------------------------------------------------------------------ syntax
@pytest.mark.parametrize(
    "text, expected",
    [
        ("p(N) :- N = count : { }.", "count needs a body"),
        ("p(N) :- N = sum : { q(X) }.", "sum needs a value"),
        ("p(N) :- N = count : { q(X), M = count : { r(X) } }.", "cannot hold another aggregate"),
        ("p(N) :- N = count : { q(X) .", "closing the aggregate's body"),
        ("p(N) :- N + 1 = count : { q(X) }.", "not arithmetic"),
    ],
)
def test_syntax_errors_name_the_position(text, expected):
    with pytest.raises(RoflSyntaxError, match=expected) as err:
        parse_program(text, "bad.rofl")
    assert str(err.value).startswith("bad.rofl:1:")


def test_unsafe_inner_negation_is_rejected():
    k = boot()
    with pytest.raises(LoadRejected, match="negated r in count uses unbound Y"):
        k.load_text("q(1). p(N) :- N = count : { q(X), not r(Y) }.")


# ------------------------------------------------------------------------------------------ explanations
AGG_PROGRAM = """
file(a). file(b). file(c).
uses(a, b). uses(a, c). uses(b, c).
size(a, 10). size(b, 5). size(c, 7).
n(F, N) :- file(F), N = count : { uses(F, _) }.
s(F, S) :- file(F), S = sum Z : { uses(F, G), size(G, Z) }.
"""


def test_why_of_an_aggregated_fact_shows_the_aggregated_facts():
    k = boot()
    k.load_text(AGG_PROGRAM)
    node = k.why("n", "main", (("a",), 2))
    assert node is not None and node.kind == "derived"
    file_node, agg = node.children
    assert file_node.text == "file[main](a)"
    assert agg.kind == "aggregate" and agg.detail == "count of 2 solutions"
    assert agg.text == "2 = count : { uses[main](a, _) }"
    assert [c.text for c in agg.children] == ["uses[main](a, b)", "uses[main](a, c)"]
    assert all(c.kind == "base" for c in agg.children)
    zero = k.why("n", "main", (("c",), 0))
    assert zero is not None and zero.children[1].detail == "count of 0 solutions" and not zero.children[1].children
    total = k.why("s", "main", (("a",), 12))
    assert total is not None
    agg = total.children[1]
    assert agg.detail == "sum of 2 solutions is 12"
    assert [c.kind for c in agg.children] == ["solution", "solution"]
    assert [g.text for g in agg.children[0].children] == ["uses[main](a, b)", "size[main](b, 5)"]
    assert "count of 2 solutions" in "\n".join(k.why("n", "main", (("a",), 2)).lines())
    assert k.why("n", "main", (("a",), 2)).as_dict()["children"][1]["detail"] == "count of 2 solutions"


def test_why_shows_at_most_ten_solutions():
    k = boot()
    k.load_text("".join(f"v({i}). " for i in range(25)) + "n(N) :- N = count : { v(_) }.")
    agg = k.why("n", "main", (25,)).children[0]
    assert len(agg.children) == 11 and agg.children[-1].text == "... 15 more solutions"


def test_whynot_of_an_aggregate_names_the_failing_aggregate():
    k = boot()
    k.load_text(AGG_PROGRAM)
    node = k.whynot("n", "main", (("a",), 3))
    assert node.kind == "absent"
    (rule,) = node.children
    assert [c.kind for c in rule.children] == ["ok", "fails"]
    assert rule.children[1].text == "3 = count : { uses[main](a, _) } (it is 2)"
    none = k.whynot("s", "main", (("c",), 1))  # no solution at all
    assert none.children[0].children[1].text.endswith("(no solution)")


# ------------------------------------------------------------------------------------------ budgets
def test_aggregate_work_counts_against_the_budget():
    facts = "".join(f"v({i}). " for i in range(2000))
    k = boot(budget=100_000)
    k.load_text(facts + "n(N) :- N = count : { v(_) }.")
    base = boot(budget=100_000)
    base.load_text(facts)
    assert k.evaluate().steps - base.evaluate().steps >= 2000  # each aggregated row is a step
    small = boot(budget=1_000)
    small.load_text(facts)
    small.load_text("n(N) :- N = count : { v(_) }.")
    assert small.evaluate().partial
    assert small.query("hole(Q, R)").rows  # the budget ran out inside the aggregate: a hole, no hang


# ------------------------------------------------------------------------------------------ rules as data
def test_an_aggregate_rule_round_trips_through_the_store(tmp_path):
    from rofl.engine.clauses import Aggregate

    (clause,) = [c for c in parse_program(AGG_PROGRAM) if c.body and c.head.rel == "s"]
    agg = clause.body[1]
    assert isinstance(agg, Aggregate) and agg.groups == ("F",)
    back = item_from_term(item_term(agg))
    assert (back.op, back.result, back.value, back.body) == (agg.op, agg.result, agg.value, agg.body)
    k = boot()
    k.load_text(AGG_PROGRAM)
    rid = next(r for ((r,),) in k.query("concludes(R, s)").rows)
    assert set(k.query(f"premise_neg({rid}, R)").rows) == {(("uses",),), (("size",),)}
    path = tmp_path / "store.json"
    k.save(path)
    again = Kernel.restore(path)  # rules come back from their reflected facts, no source parsed
    for rel in ("n", "s"):
        assert again.query(f"{rel}(F, N)").rows == k.query(f"{rel}(F, N)").rows


# ------------------------------------------------------------------------------------------ the CLI
def test_rofl_ask_files_per_package(tmp_path, rofl):
    facts = tmp_path / "facts.rofl"
    facts.write_text(
        'package("pkg-a"). package("pkg-b"). package("empty").\n'
        'in_package("a/index.ts", "pkg-a"). in_package("a/util.ts", "pkg-a"). in_package("b/x.ts", "pkg-b").\n'
    )
    code, out, _ = rofl("ask", "package(P), N = count : { in_package(F, P) }", str(facts))
    assert code == 0
    assert out.splitlines() == ['P = "empty", N = 0', 'P = "pkg-a", N = 2', 'P = "pkg-b", N = 1']
    code, out, _ = rofl("ask", "N = count : { in_package(_, _) }, M = max K : { package(K) }", str(facts))
    assert (code, out.strip()) == (0, 'N = 3, M = "pkg-b"')


def test_the_aggregates_example_over_a_scan(tmp_path, rofl):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.ts").write_text('import "./b";\nimport { c } from "./c";\n')
    (src / "b.ts").write_text('import "./c";\n')
    (src / "c.ts").write_text("export const c = 1;\n")
    out_dir = tmp_path / "facts"
    code, _, err = rofl("scan", str(src), "--out", str(out_dir))
    assert code == 0, err
    rules = str(EXAMPLES / "aggregates.rofl")
    code, out, err = rofl("ask", "imports_per_file(F, N)", "--facts", str(out_dir), "--rules", rules)
    assert code == 0, err
    assert out.splitlines() == ['F = "a.ts", N = 2', 'F = "b.ts", N = 1', 'F = "c.ts", N = 0']
    code, out, err = rofl("ask", "hub(F, N)", "--facts", str(out_dir), "--rules", rules)
    assert (code, out.strip()) == (0, 'F = "c.ts", N = 2'), err
    code, out, err = rofl("why", 'imports_per_file("a.ts", 2)', "--facts", str(out_dir), "--rules", rules)
    assert code == 0, err
    assert "count of 2 solutions" in out and 'dependency[code]("a.ts", "b.ts")' in out

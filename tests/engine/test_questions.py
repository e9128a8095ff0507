"""Questions through the kernel API: conjunctions answer exactly what the same body as a rule derives;
unknown relations and unsafe questions are errors, never an empty answer."""

from __future__ import annotations

import pytest
from rofl.engine.base.errors import UnknownRelation, UnsafeQuery
from rofl.engine.kernel import Kernel
from rofl.engine.parse import parse_body
from rofl.engine.query import plan
from rofl.engine.rulebook import RuleBook

from tests.conftest import BOOT
from tests.engine.program_gen import generate

_BOOK = RuleBook()


def load(text: str) -> Kernel:
    k = Kernel(None, budget=10**7)
    k.book = _BOOK
    k.load_boot(BOOT)
    k.load_text(text)
    return k


@pytest.mark.parametrize("seed", [*range(10), *(pytest.param(s, marks=pytest.mark.slow) for s in range(10, 25))])
def test_a_conjunctive_question_answers_what_the_same_body_as_a_rule_derives(seed):
    prog = generate(seed)
    for i, rule in enumerate(prog.rules):
        body = ", ".join(item.rofl() for item in rule.body)
        question = plan(parse_body(body))
        if not question.variables or not any(type(x).__name__ == "Literal" for x in question.items):
            continue
        head = f"zq_ans{i}({', '.join(question.variables)})"
        k = load(prog.rofl() + f"{head} :- {body}.\n")
        try:
            asked = k.query(body)
        except UnknownRelation:  # a rule may read a relation nothing defines there; a question may not
            continue
        derived = k.query(head)
        assert not asked.partial and not derived.partial
        assert asked.variables == question.variables
        assert set(asked.rows) == set(derived.rows), (seed, body)


def test_question_errors_name_what_is_wrong():
    k = load("edge(a, b). edge(b, c).\npath(X, Y) :- edge(X, Y).\np[s1](1).")
    with pytest.raises(UnknownRelation, match=r"^no relation pth\[main\]/2; did you mean path\[main\]/2\?$"):
        k.query("pth(X, Y)")
    with pytest.raises(UnknownRelation, match=r"p exists in \[s1\]; did you mean p\[s1\]/1"):
        k.query("p(X)")
    assert k.query("p[S](X)").rows == ((("s1",), 1),)  # a variable perspective finds it anywhere
    with pytest.raises(UnsafeQuery, match="not edge"):
        k.query("path(X, _), not edge(Y, X)")
    with pytest.raises(UnknownRelation):  # a typo under negation is an error too, not a silent 'true'
        k.query("path(X, Y), not edg(X, Y)")


def test_reserved_relations_are_always_defined_with_their_arity():
    k = load("x(1).")
    assert k.query("hole(Q, R)").rows == ()
    with pytest.raises(UnknownRelation, match=r"hole\[main\]/2"):
        k.query("hole(Q)")


def test_facts_of_a_finished_tick_leave_their_relation_defined():
    k = load("e(1).\nf(X)@next :- e(X).")
    k.tick()
    assert k.query("e(X)").rows == ()
    assert k.query("f(X)").rows == ((1,),)

"""cycle_component(Rel, _, _) reads Rel whole: stratification puts Rel in a lower stratum.

Issue 21: ``runtime_in_cycle`` was empty in every repository with a ``.d.ts`` file.  Its relation,
``runtime_dependency``, negates ``src_declaration``; once that relation had rows it moved to stratum 1,
while the rule reading ``cycle_component(runtime_dependency, ...)`` stayed in stratum 0 and ran before
it, over an empty table.  The reflection now records the named relation as a negative premise.
"""

from __future__ import annotations

import pytest
from rofl.engine.base.errors import LoadRejected

CYCLE_OVER_NEGATION = """
r(a, b). r(b, a). r(c, c). r(a, d).
blocked(d).
e(A, B) :- r(A, B), not blocked(B).
on_cycle(F) :- cycle_component(e, F, _).
"""


def test_a_cycle_question_over_a_relation_in_a_higher_stratum_sees_all_its_rows(kernel):
    kernel.load_text(CYCLE_OVER_NEGATION)
    assert set(kernel.query("on_cycle(F)").rows) == {(("a",),), (("b",),), (("c",),)}


def test_the_named_relation_is_in_a_stratum_below_the_rule(kernel):
    kernel.load_text(CYCLE_OVER_NEGATION)
    rows = kernel.query("stratum[boot](R, N)").rows

    def stratum(rel: str) -> int:
        return max(n for (r, n) in rows if r == (rel,))

    assert stratum("on_cycle") > stratum("e")


def test_a_recursion_through_the_cycles_of_its_own_relation_is_unstratified(kernel):
    with pytest.raises(LoadRejected, match="unstratified"):
        kernel.load_text("e(a, b). e(b, a).\ne(A, B) :- cycle_component(e, A, B).\n")

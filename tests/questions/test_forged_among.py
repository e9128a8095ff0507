"""forged_among answers, for some facts, what forged_facts answers for all of them (boot's forged[audit] asked
with each fact bound, plus what only usurping rules derive): property test over random asserters."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rofl.engine.kernel import Kernel
from rofl.engine.namespace import stored_name

from rofl.questions.forgery import forged_among, forged_facts
from tests.conftest import BOOT

WHO = st.sampled_from([None, "scanner", "user", "someone"])
PERSP = st.sampled_from(["code", "main", "other"])
facts = st.lists(st.tuples(st.sampled_from(["p", "q"]), PERSP, st.integers(0, 3), WHO), max_size=12)


@given(asserted=facts, usurping=st.booleans(), extra_forged_rule=st.booleans())
def test_forged_among_is_forged_facts_restricted(asserted, usurping, extra_forged_rule):
    k = Kernel(BOOT)
    k.load_text("authority(code, scanner).\nauthority(other, user).")
    for rel, persp, n, who in asserted:
        k.load_text(f"{rel}[{persp}]({n}).", who=who)
    if usurping:  # a rule 'user' loads that concludes into [code], where 'user' has no authority
        k.load_text("r[code](X) :- p[main](X).", who="user")
    if extra_forged_rule:  # another forged rule, over a derived relation: forged_among asks forged_facts then
        k.load_text("s(X) :- q[main](X).\nforged[audit](X) :- s(X).")
    every = {(rel, row) for rel in k.store.relations() for row in k.rows(rel)}
    result = k.evaluate()
    every |= {(stored_name("r", "code"), row) for row in result.rows("r")}
    assert forged_among(k, every) == forged_facts(k) & every

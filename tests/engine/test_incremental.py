"""Reuse between evaluations: a kernel that evaluates after every change ends where one fresh evaluation does.

Evaluations take over dependency components whose inputs did not change (engine/evaluate.py).  For
random stratified programs and random sequences of asserting and retracting base facts, the saved
store (facts, provenance, support counts, witnesses) of the kernel that evaluated after every step
must equal that of a fresh kernel restored from the same base facts and evaluated once.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine import persist
from rofl.engine.kernel import Kernel
from rofl.engine.parse import parse_program

from tests.conftest import BOOT
from tests.engine.program_gen import generate


def fresh_bytes(kernel: Kernel) -> bytes:
    data = persist.dumps(kernel.store)  # base facts only: a fresh kernel evaluates from scratch
    fresh = Kernel(None)
    fresh.store = persist.loads(data)
    return persist.dumps(fresh.store, fresh.evaluate())


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 10_000), st.integers(1, 12))
def test_step_by_step_equals_fresh(program_seed, ops_seed, steps):
    prog = generate(program_seed)
    kernel = Kernel(BOOT, budget=10**7)
    kernel.load_text(prog.rofl())
    rng = random.Random(ops_seed)
    facts = [c for c in parse_program(prog.rofl()) if not c.body]
    for _ in range(steps):
        clause = rng.choice(facts) if facts else None
        if clause is None:
            break
        row = (clause.head.persp, *clause.head.args)
        if kernel.store.has(clause.head.rel, row) and rng.random() < 0.6:
            kernel.retract(clause.head.rel, clause.head.persp, clause.head.args)
        else:
            kernel.add_clauses([clause])
        kernel.evaluate()  # every step is evaluated, so later steps can reuse components
    ours = persist.dumps(kernel.store, kernel.evaluate())
    assert ours == fresh_bytes(kernel)

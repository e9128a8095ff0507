"""Ticks that start from the last evaluation whole give what the general, component-by-component path gives.

An evaluation after a tick boundary carries the last evaluation over and runs only the components
downstream of what changed (``engine.evaluate._carried``), and a run of ticks reads its current
facts from what it installed.  For random stratified programs with some rules turned into ``@next``
rules, and random sequences of ticks, runs (some cut by a small budget), asserted and retracted facts
and questions, the kernel must end every step where a kernel on the general paths ends (each
component reused or run in schedule order, staged facts sorted and current facts read every tick):
the same tick reports, the same saved store (facts, provenance, frozen history, holes) and the same
answers and explanations.  (A kernel that reuses nothing at all is not the reference: a run's budget
counts the work performed, which reuse lowers.)"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine import persist
from rofl.engine.base.errors import RoflError
from rofl.engine.kernel import Kernel
from rofl.engine.parse import parse_program

from tests.conftest import BOOT
from tests.engine.program_gen import generate


class General(Kernel):
    """A kernel on the general paths: every evaluation goes component by component (reusing those
    whose inputs did not change), a run sorts the staged facts and reads the current ones afresh
    every tick."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._caches.carry = False

    def _staged(self, result):
        staged = list(result.staged())
        return staged, [(r, w) for r, w, _ in staged]

    def _advance(self, *args, **kwargs):
        report, _ = super()._advance(*args, **kwargs)
        return report, -1  # never the store's counter: current_facts() every tick


def ticking(seed: int) -> str:
    """A random stratified program where some rules conclude into the next tick, and some base
    relations carry themselves over (so a run has facts to work on past tick 0)."""
    prog = generate(seed)
    rng = random.Random(seed)
    lines = [f.rofl() + "." for f in prog.facts]
    for rule in prog.rules:
        text = rule.rofl()
        if rng.random() < 0.4:
            head = rule.head.rofl()
            text = head + "@next" + text[len(head) :]
        lines.append(text)
    for rel in prog.relations:
        if prog.level.get(rel) == 0 and rng.random() < 0.7:
            args = ", ".join(f"X{i}" for i in range(prog.arity[rel]))
            lines.append(f"{rel}[P]({args})@next :- {rel}[P]({args}).")
    return "\n".join(lines) + "\n"


def state(kernel: Kernel) -> bytes:
    return persist.dumps(kernel.store, kernel.evaluate())


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_ticks_from_the_last_evaluation_equal_ticks_from_scratch(program_seed, ops_seed):
    ticks_agree(program_seed, ops_seed)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_many_programs_tick_from_the_last_evaluation_as_from_scratch(program_seed, ops_seed):
    ticks_agree(program_seed, ops_seed)


def outcome(explain, args: tuple) -> str:
    """What an explanation answers, or the error it raises (a fact retracted from every tick names an unknown relation)."""
    try:
        return repr(explain(*args))
    except RoflError as error:
        return f"{type(error).__name__}: {error}"


def ticks_agree(program_seed: int, ops_seed: int) -> None:
    """Random ticks, budget cuts, asserts, retracts and explanations: the carried path answers as the general one."""
    source = ticking(program_seed)
    ours, reference = Kernel(BOOT, budget=10**6), General(BOOT, budget=10**6)
    for k in (ours, reference):
        k.load_text(source)
    facts = [c for c in parse_program(source) if not c.body and not c.want]
    rng = random.Random(ops_seed)
    for _ in range(8):
        op = rng.random()
        if op < 0.35:
            assert ours.tick() == reference.tick()
        elif op < 0.6:
            ticks, budget = rng.randint(1, 6), rng.choice([None, None, 40, 300, 2000])
            assert ours.run(max_ticks=ticks, budget=budget) == reference.run(max_ticks=ticks, budget=budget)
        elif op < 0.85 and facts:
            head = rng.choice(facts).head
            retract = ours.store.has(head.rel, (head.persp, *head.args)) and rng.random() < 0.5
            for k in (ours, reference):
                if retract:
                    k.retract(head.rel, head.persp, head.args)
                else:
                    k.assert_fact(head.rel, head.persp, head.args)
        elif facts:
            head = rng.choice(facts).head
            args = (head.rel, head.persp, head.args)
            assert ours.facts() == reference.facts()
            assert outcome(ours.why, args) == outcome(reference.why, args)
            assert outcome(ours.whynot, args) == outcome(reference.whynot, args)
        assert state(ours) == state(reference)
    assert ours.run(max_ticks=4) == reference.run(max_ticks=4)
    assert state(ours) == state(reference)

"""Cycles by strongly connected components: cycle_component agrees with the transitive closure, and
cycle questions over a long import chain never build the closure."""

from __future__ import annotations

import random

import pytest
from rofl.engine.kernel import Kernel

from tests.conftest import BOOT, ROOT

CLOSURE = "path(A, B) :- e(A, B).\npath(A, C) :- e(A, B), path(B, C).\ncyc(F) :- path(F, F).\n"
SCC = "scc_cyc(F) :- cycle_component(e, F, _).\nsame(A, B) :- cycle_component(e, A, C), cycle_component(e, B, C).\n"


@pytest.mark.parametrize("seed", range(20))
def test_cycle_component_agrees_with_the_closure(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 25)
    edges = {(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(0, 2 * n))}
    k = Kernel(BOOT)
    k.load_text("".join(f"e(n{a}, n{b}).\n" for a, b in sorted(edges)) + "e(z, z).\n" + CLOSURE + SCC)
    assert set(k.query("scc_cyc(F)").rows) == set(k.query("cyc(F)").rows)
    assert set(k.query("same(A, B)").rows) == set(k.query("path(A, B), path(B, A)").rows)


def test_components_are_named_by_their_least_node():
    k = Kernel(BOOT)
    k.load_text('e("b", "c"). e("c", "b"). e(3, 3). e(1, 2).\n' + SCC)
    assert k.query("cycle_component(e, N, C)").rows == ((3, 3), ("b", "b"), ("c", "b"))


def chain_kernel(n: int) -> Kernel:
    k = Kernel(BOOT, budget=50_000_000)
    facts = "".join(f'src_resolves[code]("f{i}.ts", "./f{i + 1}", "f{i + 1}.ts").\n' for i in range(n - 1))
    facts += f'src_resolves[code]("f{n - 1}.ts", "./f0", "f0.ts").\n'
    k.load_sources([(ROOT / "rules" / "code.rofl", None), ("<chain>", None, facts)], evaluate_now=False)
    return k


def test_cycle_questions_over_a_3500_file_chain_never_build_the_closure():
    k = chain_kernel(3500)
    result = k.evaluate(goals={"in_cycle", "cycle_edge"})
    assert len(result.rows("in_cycle", "code")) == 3500 and len(result.rows("cycle_edge", "code")) == 3500
    assert result.rows("depends_on") == () and result.steps < 50_000  # the closure alone is 12 million facts
    audit = k.evaluate(goals=k.names_in("audit"))
    assert audit.rows("depends_on") == () and audit.steps < 100_000

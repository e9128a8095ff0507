"""Aggregates at run time: count, sum, min and max of an inner conjunction's solutions, per group.

An aggregate ``R = op V : { body }`` solves ``body`` top-down (``engine.demand``) under the bindings
of its bound groups; its distinct solutions (the bindings of every inner variable, so two facts that
differ only under a wildcard are two solutions) are split by the groups still unbound, and each
group yields ``(group values, result)``:

* ``count``: the number of solutions; with every group bound and no solution it is 0;
* ``sum``: the integer sum of ``V``; a solution whose ``V`` is not an integer (or whose arithmetic is
  undefined) leaves its group without a sum, as ``is`` fails on a non-integer;
* ``min``/``max``: the least/greatest ``V`` in the canonical term order (``engine.terms.sort_key``:
  integers by value, below strings and compound terms);
* sum, min and max over no solution have no result.

Each matched inner row is a derivation step (``Demand.solve``), and a sum's integer pays its size
(``engine.costs.int_steps``).  The inner relations are complete when the aggregate runs (boot puts
them in a lower stratum), so one evaluation computes each group key once (``Context.aggregates``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from . import builtins as B
from .clauses import Aggregate, inner_vars
from .costs import int_steps
from .terms import Term, sort_key

if TYPE_CHECKING:
    from .demand import Demand
    from .evaluate import Context
    from .plan import CompiledRule


class Call:
    """One aggregate at one place of a compiled rule: which groups are bound there (by identity, it
    keys the evaluation's memo)."""

    __slots__ = ("agg", "bound", "free", "names")

    def __init__(self, agg: Aggregate, bound: tuple[str, ...]) -> None:
        self.agg = agg
        self.bound = bound
        self.free = tuple(g for g in agg.groups if g not in bound)
        self.names = tuple(inner_vars(agg))


def groups(
    solver: Demand,
    agg: Aggregate,
    binding: dict,
    charge: bool = True,
    free: tuple | None = None,
    names: tuple | None = None,
) -> list[tuple[tuple, Term]]:
    """``[(free group values, result), ...]`` for the aggregate under ``binding``, sorted canonically."""
    if free is None:
        free = tuple(g for g in agg.groups if g not in binding)
    if names is None:
        names = tuple(inner_vars(agg))
    found: dict[tuple, dict[tuple, Term]] = {}
    count = agg.op == "count"
    value = agg.value
    for b, _ in solver.solve(agg.body, 0, binding, (), charge):
        key = tuple(b.get(g) for g in free)
        solution = tuple(b.get(n) for n in names)
        sols = found.get(key)
        if sols is None:
            sols = found[key] = {}
        if solution not in sols:
            sols[solution] = 1 if count else B.evaluate(value, b)
    if not found:
        return [((), 0)] if count and not free else []
    out = []
    for key in sorted(found, key=lambda k: tuple(sort_key(v) for v in k)) if len(found) > 1 else found:
        result = fold(agg.op, found[key].values())
        if result is not None:
            if charge and type(result) is int and (cost := int_steps(result)):
                solver.step(cost)
            out.append((key, result))
    return out


def fold(op: str, values: Iterable[Term | None]) -> Term | None:
    """The result of ``op`` over the solutions' values (None: undefined)."""
    if op == "count":
        return sum(1 for _ in values)
    items = list(values)
    if not items or any(v is None for v in items):
        return None
    if op == "sum":
        numbers = [v for v in items if type(v) is int]
        return sum(numbers) if len(numbers) == len(items) else None
    key = sort_key
    return min(items, key=key) if op == "min" else max(items, key=key)


def extend(agg: Aggregate, binding: dict, free: tuple, key: tuple, result: Term) -> dict | None:
    """``binding`` with the free groups bound to ``key`` and the result matched; None on a mismatch."""
    b = dict(binding)
    for name, v in zip(free, key):
        b[name] = v
    return b if B.match(agg.result, result, b) else None


def solutions(solver: Demand, agg: Aggregate, binding: dict, charge: bool = True) -> Iterator[dict]:
    """The bindings under which the aggregate holds (top-down: queries, demand rules, explanations)."""
    free = tuple(g for g in agg.groups if g not in binding)
    for key, result in groups(solver, agg, binding, charge, free):
        b = extend(agg, binding, free, key, result)
        if b is not None:
            yield b


def compiled_call(ctx: Context, call: Call, values: tuple) -> list:
    """What generated join code asks: the groups of ``call`` with its bound groups' ``values``,
    computed once per evaluation."""
    memo = ctx.aggregates
    k = (call, values)
    hit = memo.get(k)
    if hit is None:
        hit = memo[k] = groups(ctx.demand, call.agg, dict(zip(call.bound, values)), True, call.free, call.names)
    return hit


def dependency_cycle(rules: Sequence[CompiledRule], head: str, agg: Aggregate) -> list[str] | None:
    """``[head, inner, ..., head]``: a path from the aggregate's head through one of its aggregated
    relations back to the head, following what rules read (shortest first); None when there is none."""
    from .clauses import body_literals

    reads: dict[str, list[str]] = {}
    for rule in rules:
        out = reads.setdefault(rule.clause.head.rel, [])
        for lit, _ in body_literals(rule.clause.body):
            if lit.rel not in out:
                out.append(lit.rel)
    for start, _ in body_literals((agg,)):
        back: dict[str, str | None] = {start.rel: None}
        todo = [start.rel]
        while todo:
            nxt = []
            for rel in todo:
                if rel == head:
                    path = [rel]
                    at: str | None = back[rel]
                    while at is not None:
                        path.append(at)
                        at = back[at]
                    return [head, *reversed(path)]
                for read in reads.get(rel, ()):
                    if read not in back:
                        back[read] = rel
                        nxt.append(read)
            todo = nxt
    return None

"""The result of one evaluation: rows, what is defined, provenance records, holes, steps and partiality.

``Kernel.evaluate()`` returns a ``Result``; explanation, persistence, impact, export and the tests read
the evaluation only through it.  Its methods return immutable values (tuples, frozen records); the
evaluator's working state stays private to the kernel.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from . import vocabulary as V
from .namespace import stored_name
from .terms import Term, canonical_rows

if TYPE_CHECKING:
    from .evaluate import Context


@dataclass(frozen=True, slots=True)
class Provenance:
    """How a derived fact holds: its witness (the first derivation in canonical order: the rule and the
    positive premises it read, as ``(relation, row)`` pairs in written order), how many distinct firings
    support it, and every rule that derived it (the witness's rule first)."""

    rule: str
    witness: tuple[tuple[str, tuple], ...]
    support: int
    rules: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Hole:
    """A budget ran out: ``query`` is ``$load(N)``, ``$q(N)`` or ``$tick(T)``."""

    query: Term
    reason: str


@dataclass(frozen=True, slots=True)
class Result:
    """One evaluation of a store, read-only.

    ``goals`` names the relations asked for (None: every relation was evaluated); ``strata`` maps
    relation names to the stratum boot gave them.
    """

    partial: bool
    steps: int  # derivation steps charged, work reused from an earlier evaluation included
    work: int  # derivation steps actually performed
    strata: Mapping[str, int]
    goals: frozenset | None
    _ctx: Context  # private to the kernel

    @staticmethod
    def of(ctx, strata: dict, partial: bool, goals, view: Mapping[str, int] | None = None) -> Result:
        """``view``: a read-only view of ``strata`` that nothing writes through (a cached stratification's)."""
        return Result(
            partial,
            ctx.steps,
            ctx.steps - ctx.saved,
            MappingProxyType(dict(strata)) if view is None else view,
            None if goals is None else frozenset(goals),
            ctx,
        )

    @property
    def out_of_memory(self) -> bool:
        """The evaluation stopped because the process grew past the memory bound (``engine.costs``)."""
        return bool(self._ctx.out_of_memory)

    # -- rows ----------------------------------------------------------------------------------------
    def _table(self, rel: str):
        ctx = self._ctx
        if rel in V.VIRTUAL_RELATIONS:
            if rel == V.DERIVED_BY:
                ctx.refresh_virtual()
            return ctx.table(rel)
        return ctx.tables.get(rel)

    def rows(self, rel: str, persp: str | None = None) -> tuple[tuple, ...]:
        """The rows ``(persp, *args)`` of ``rel`` that hold (in perspective ``persp`` when given), in the
        order they were derived; ``canonical_rows`` sorts them."""
        table = self._table(stored_name(rel, persp))
        if table is None:
            return ()
        if persp is None:
            return tuple(table.rows)
        return tuple(row for row in table.rows if row[0] == persp)

    def holds(self, rel: str, row: tuple) -> bool:
        table = self._table(stored_name(rel, row[0]))
        return table is not None and row in table.rows

    def relations(self) -> tuple[str, ...]:
        """The stored names of every relation with a table in this evaluation, sorted."""
        return tuple(sorted(r for r in self._ctx.tables if r not in V.VIRTUAL_RELATIONS))

    def defines(self, rel: str, persp: str | None = None, arity: int | None = None) -> bool:
        """Whether base facts, a rule or the kernel define ``rel`` (in ``persp``, with ``arity``, when given)."""
        from .catalog import defines

        name = stored_name(rel, persp)
        if arity is not None:
            return defines(self._ctx.store, self._ctx.decoded, name, persp, arity)
        return any(
            defines(self._ctx.store, self._ctx.decoded, name, persp, n)
            for n in range(1, 1 + _max_arity(self._ctx, name))
        )

    # -- provenance ----------------------------------------------------------------------------------
    def provenance(self, rel: str, row: tuple) -> Provenance | None:
        """The provenance record of a derived fact; None for a base fact or one that does not hold."""
        name = stored_name(rel, row[0])
        rec = self._ctx.record(name, row)
        return None if rec is None else self._record(name, row, rec)

    def _record(self, rel: str, row: tuple, rec: tuple) -> Provenance:
        ctx = self._ctx
        rules = ctx.decoded.rules
        rule = rules[rec[0]]
        body = rule.clause.body
        witness = tuple((body[pos].rel, prow) for pos, prow in zip(rule.positive, rec[1:]))
        return Provenance(
            rule.rid, witness, ctx.support(rel, row), tuple(rules[e].rid for e in ctx.rule_indexes(rel, row, rec))
        )

    def derived(self) -> Iterator[tuple[str, tuple, Provenance]]:
        """Every derived fact of the current tick with its record: ``(relation, row, Provenance)``,
        relations in name order, rows in canonical order."""
        provs = self._ctx.provs
        for rel in sorted(provs):
            table = provs[rel]
            for row in canonical_rows(table):
                rec = self._ctx.record(rel, row)
                if rec is not None:
                    yield rel, row, self._record(rel, row, rec)

    def staged(self) -> tuple[tuple[str, tuple, str], ...]:
        """The facts ``@next`` rules stage for the next tick: ``(relation, row, rule id)``, canonically sorted."""
        staged = self._ctx.staged_provs
        rules = self._ctx.decoded.rules
        return tuple(
            (rel, row, rules[staged[rel][row][0]].rid) for rel in sorted(staged) for row in canonical_rows(staged[rel])
        )

    @property
    def holes(self) -> tuple[Hole, ...]:
        """Every hole recorded so far (holes are history: they survive re-evaluation)."""
        table = self._ctx.tables.get(V.HOLE)
        return tuple(Hole(row[1], row[2][0]) for row in (table.rows if table else ()) if len(row) == 3)


def _max_arity(ctx, rel: str) -> int:
    widths = [len(row) - 1 for row in ctx.store.base.get(rel, ())]
    widths += [len(r.clause.head.args) for r in ctx.decoded.rules if r.clause.head.rel == rel]
    widths.append(V.RESERVED_ARITY.get(rel, 0))
    return max(widths)

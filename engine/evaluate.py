"""The evaluator: stratification read from boot's rules, then semi-naive (or naive) fixpoints per stratum.

One evaluation is a fresh ``Context`` over the store's base facts.  Phase one runs the negation-free
rules that ``stratum``/``unstratified`` depend on and stops as soon as ``unstratified`` holds; phase two
runs every bottom-up rule stratum by stratum (rules whose head has no stratum run last), then the
``@next`` rules once over the finished tick to stage the next tick's facts.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from typing import cast

from . import builtins as B
from . import costs as C
from . import vocabulary as V
from .caches import Caches, Previous, StrataEntry
from .clauses import NEXT, Aggregate, Literal, Negated, body_literals
from .cycles import named_relation, strong_components
from .demand import Demand
from .plan import BudgetExhausted, CompiledRule
from .reflect import fact_term
from .rulebook import DecodedRules, RuleBook
from .store import Store
from .tables import NarrowIndex, Table
from .terms import is_ground


class Context:
    """The facts of one evaluation: tables, provenance records, staged facts, and the step budget.

    A provenance record is the tuple ``(rule_index, *witness_rows)``: the witness is the first firing
    in canonical order, its rows the positive premises in written order.  A fact with more than one
    firing also has ``[support_count, extra_rule_indexes]`` in ``mores`` (``engine.plan.again``).
    """

    def __init__(
        self, store: Store, decoded: DecodedRules, limit: int, naive: bool = False, base: dict | None = None
    ) -> None:
        self.store = store
        self.decoded = decoded
        self.tables: dict[str, Table] = {}
        self.provs: dict[str, dict] = {}
        self.staged_provs: dict[str, dict] = {}
        self.mores: dict[str, dict] = {}
        self.staged_mores: dict[str, dict] = {}
        self.news: dict[str, list] = {}
        self.deltas: dict[str, list] = {}
        self.steps = 0
        self.saved = 0  # steps charged for work reused from an earlier evaluation instead of done again
        self.limit = limit
        self.prev = -1
        self.round = 0
        self.tick = store.tick
        self.naive = naive
        self.seen: set = set()
        self.aggregates: dict = {}  # (engine.aggregates.Call, bound group values) -> its groups
        self.partial = False
        self.finished = False
        self.memory_limit: int | None = -1  # read from the environment at the first look (check_memory)
        self.memory_seen = 0  # ctx.steps when the process's size was last looked at
        self.out_of_memory = False
        self.demand = Demand(self, decoded.by_demand)
        self.call = self.demand.call
        # the tables of relations that only base facts fill: never written during an evaluation, so
        # the next evaluation reads those of its relations that did not change as they are
        self.base_tables: dict[str, Table] = {}
        if base is not None:
            self.base_tables = base
            self.tables.update(base)
            rels = [rel for rel in decoded.heads if rel in store.base and rel not in V.VIRTUAL_RELATIONS]
        else:
            rels = [rel for rel in store.relations() if rel not in V.VIRTUAL_RELATIONS]
        heads = decoded.heads
        self.based = frozenset(rel for rel in heads if rel in store.base)  # concluded, and with base facts
        for rel in rels:
            table = self.tables[rel] = Table()
            table.rows = dict.fromkeys(store.sorted_rows(rel), -1)
            if rel not in heads and rel != V.HOLE:
                self.base_tables[rel] = table

    # -- accessors used by generated code ------------------------------------------------------
    def table(self, rel: str) -> Table:
        t = self.tables.get(rel)
        if t is None:
            if rel in (V.IN_PERSPECTIVE, V.ASSERTED_BY):
                from .metadata import MetadataTable

                t = self.tables[rel] = cast(Table, MetadataTable(self.store, rel))  # reads like a Table
            elif rel == V.CYCLE_COMPONENT:
                from .cycles import CycleTable

                t = self.tables[rel] = cast(Table, CycleTable(self))  # reads like a Table
            else:
                t = self.tables[rel] = Table()
                if rel == V.DERIVED_BY:
                    self._fill_history(t)
        return t

    def rows(self, rel: str) -> dict:
        return self.table(rel).rows

    def index(self, rel: str, cols: tuple) -> dict:
        return self.table(rel).index(cols)

    def pindex(self, rel: str, persp: str, width: int, cols: tuple):
        """The rows of ``rel`` in perspective ``persp`` of length ``width``, keyed by ``cols``
        (``Table.pindex``; a list when ``cols`` is empty)."""
        t = self.table(rel)
        if type(t) is Table:
            return t.pindex(persp, width, cols)
        if not cols:
            return [row for row in t.rows if len(row) == width and row[0] == persp]
        return NarrowIndex(t.index((0, *cols)), persp, width, len(cols) == 1)

    def delta(self, rel: str):
        return self.deltas.get(rel, ())

    def new(self, rel: str) -> list:
        lst = self.news.get(rel)
        if lst is None:
            lst = self.news[rel] = []
        return lst

    def prov(self, rel: str) -> dict:
        p = self.provs.get(rel)
        if p is None:
            p = self.provs[rel] = {}
        return p

    def staged(self, rel: str) -> dict:
        p = self.staged_provs.get(rel)
        if p is None:
            p = self.staged_provs[rel] = {}
        return p

    def more(self, rel: str) -> dict:
        m = self.mores.get(rel)
        if m is None:
            m = self.mores[rel] = {}
        return m

    def staged_more(self, rel: str) -> dict:
        m = self.staged_mores.get(rel)
        if m is None:
            m = self.staged_mores[rel] = {}
        return m

    def support(self, rel: str, row: tuple) -> int:
        """How many distinct firings derived ``row`` (a derived fact)."""
        m = self.mores.get(rel)
        found = m.get(row) if m is not None else None
        return 1 if found is None else found[0]

    def rule_indexes(self, rel: str, row: tuple, rec: tuple, staged: bool = False) -> tuple[int, ...]:
        """Every rule that derived ``row`` (record ``rec``), the witness's rule first."""
        m = (self.staged_mores if staged else self.mores).get(rel)
        found = m.get(row) if m is not None else None
        if found is None or not found[1]:
            return (rec[0],)
        return (rec[0], *found[1])

    # -- provenance as a relation ---------------------------------------------------------------------
    def _fill_history(self, table: Table) -> None:
        """derived_by rows: frozen history, plus this evaluation's derivations once it has finished."""
        rows = table.rows
        for frel, frow, rid, tick in self.store.history.entries():
            rows[("main", fact_term(frel, frow), (rid,), tick)] = -1
        if self.finished:
            for frel in sorted(self.provs):
                for frow, rec in self.provs[frel].items():
                    for rix in self.rule_indexes(frel, frow, rec):
                        rows[("main", fact_term(frel, frow), (self.decoded.rules[rix].rid,), self.tick)] = -1

    def refresh_virtual(self) -> None:
        self.tables.pop(V.DERIVED_BY, None)

    # -- rounds ----------------------------------------------------------------------------------
    def check_memory(self) -> None:
        """End the evaluation (as a budget that ran out) once the process has grown past the memory
        bound; looked at every ``MEMORY_CHECK_STEPS`` steps (``engine.costs``)."""
        if self.memory_limit is None or self.steps - self.memory_seen < C.MEMORY_CHECK_STEPS:
            return
        self.memory_seen = self.steps
        if self.memory_limit == -1:
            self.memory_limit = C.memory_limit()
            if self.memory_limit is None:
                return
        if C.peak_bytes() > self.memory_limit:
            self.out_of_memory = True
            raise BudgetExhausted()

    def flush(self) -> bool:
        """Install the facts derived this round; they become the next round's delta."""
        self.round += 1
        self.deltas = {}
        any_new = False
        based = self.based
        for rel, lst in self.news.items():
            if lst:
                table = self.table(rel)
                if rel in based:  # generated code appends every new derivation; base facts hold already
                    rows = table.rows
                    lst = [row for row in lst if row not in rows]
                    if not lst:
                        continue
                table.add_many(lst, self.round)
                self.deltas[rel] = lst
                any_new = True
        self.news = {}
        return any_new

    def holds(self, rel: str) -> bool:
        t = self.tables.get(rel)
        return t is not None and bool(t.rows)


@dataclass(slots=True)
class Outcome:
    """What one evaluation run produced (the kernel wraps it in an immutable ``engine.result.Result``)."""

    ctx: Context | None
    strata: dict = field(default_factory=dict)
    unstratified: list = field(default_factory=list)
    partial: bool = False
    steps: int = 0


def _body_literals(rule: CompiledRule):
    """The literals a rule reads, with whether they are negated.  A ``cycle_component`` literal also
    reads the relation it names (complete before the rule runs, as under negation); an aggregate reads
    its inner literals whole, as a negation does."""
    for lit, whole in body_literals(rule.clause.body):
        yield lit, whole
        if not whole:
            named = named_relation(lit)
            if named is not None:
                yield Literal(named, lit.persp, ()), False


def cone(decoded: DecodedRules, goals: set[str], dead: frozenset = frozenset()) -> set[str]:
    """Relation names the goals depend on through rules (the goals included); the rules numbered in
    ``dead`` (``dead_rules``) are left out: what only they read is not needed."""
    by_head: dict[str, list[CompiledRule]] = {}
    for rule in decoded.rules:
        if rule.index not in dead:
            by_head.setdefault(rule.clause.head.rel, []).append(rule)
    seen = set(goals)
    todo = list(goals)
    while todo:
        rel = todo.pop()
        for rule in by_head.get(rel, ()):
            for lit, _ in _body_literals(rule):
                if lit.rel not in seen:
                    seen.add(lit.rel)
                    todo.append(lit.rel)
    return seen


def through_demand(decoded: DecodedRules) -> dict[str, set[str]]:
    """For each demand relation, the relations its rules read, following demand calls transitively."""
    direct: dict[str, set[str]] = {}
    for rule in decoded.rules:
        if rule.clause.head.rel in decoded.demand:
            direct.setdefault(rule.clause.head.rel, set()).update(lit.rel for lit, _ in _body_literals(rule))
    out: dict[str, set[str]] = {}
    for rel in direct:
        seen, todo = set(), [rel]
        while todo:
            for read in direct.get(todo.pop(), ()):
                if read not in seen:
                    seen.add(read)
                    if read in direct:
                        todo.append(read)
        out[rel] = seen
    return out


def components(rules: list[CompiledRule], demand_reads: dict[str, set[str]] | None = None) -> list[list[CompiledRule]]:
    """Split one stratum's rules into mutually recursive groups, dependencies first (canonical order).

    A call to a demand relation depends on whatever the demand rules read (``demand_reads``)."""
    demand_reads = demand_reads or {}
    by_head: dict[str, list[CompiledRule]] = {}
    for rule in rules:
        by_head.setdefault(rule.clause.head.rel, []).append(rule)

    def reads(rule: CompiledRule) -> set[str]:
        out = set()
        for lit, _ in _body_literals(rule):
            out.add(lit.rel)
            out |= demand_reads.get(lit.rel, set())
        return out

    graph = {h: sorted({rel for r in rs for rel in reads(r) if rel in by_head}) for h, rs in by_head.items()}
    return [[r for h in sorted(members) for r in by_head[h]] for members in strong_components(graph, sorted(by_head))]


def run_rules(
    ctx: Context,
    book: RuleBook,
    rules: list[CompiledRule],
    stop_rel: str | None = None,
    demand_reads: dict[str, set[str]] | None = None,
) -> None:
    """Run ``rules`` to a fixpoint over the context (semi-naive unless the context is naive).

    A rule that calls a demand relation whose rules read this component sees the component grow: it is
    run again every round, interpreted with its firings deduplicated, after the demand answers of the
    previous round are forgotten."""
    if not rules:
        return
    from .rulebook import interpreted

    demand = ctx.decoded.demand
    recursive = frozenset(r.clause.head.rel for r in rules)
    reads = demand_reads or {}
    again = {
        r.index
        for r in rules
        if any(lit.rel in demand and (reads.get(lit.rel, set()) & recursive) for lit, _ in _body_literals(r))
    }
    for rule in rules:
        if rule.index in again:
            interpreted(rule)(ctx, rule.index)
        else:
            book.variant(rule, -1, recursive, demand, ctx.naive)(ctx, rule.index)
    if not ctx.naive:
        # indexes the full pass built on recursive relations are rebuilt only if a delta variant asks
        for rel in recursive:
            table = ctx.tables.get(rel)
            if table is not None and type(table) is Table:
                table.clear_indexes()
    if not ctx.flush() or (stop_rel and ctx.holds(stop_rel)):
        if not again:
            return
    while True:
        ctx.prev = ctx.round
        if again:
            ctx.demand.forget()
        if ctx.naive:
            for rule in rules:
                if rule.index in again:
                    interpreted(rule)(ctx, rule.index)
                else:
                    book.variant(rule, -1, recursive, demand, True)(ctx, rule.index)
        else:
            for rule in rules:
                if rule.index in again:
                    interpreted(rule)(ctx, rule.index)
                    continue
                body = rule.clause.body
                for pos in rule.positive:
                    rel = body[pos].rel
                    if rel in recursive and rel not in demand and ctx.deltas.get(rel):
                        book.variant(rule, pos, recursive, demand, False)(ctx, rule.index)
        if not ctx.flush() or (stop_rel and ctx.holds(stop_rel)):
            return
        ctx.check_memory()


def _has_negation(rule: CompiledRule) -> bool:
    """Whether the rule negates or aggregates: it needs the strata phase one computes."""
    return any(isinstance(item, (Negated, Aggregate)) for item in rule.clause.body)


def stratify(store: Store, book: RuleBook, decoded: DecodedRules, limit: int) -> Outcome:
    """Phase one: the negation-free rules behind ``stratum``/``unstratified``."""
    ctx = Context(store, decoded, limit)
    needed = cone(decoded, {V.BOOT_STRATUM, V.BOOT_UNSTRATIFIED})
    rules = [
        r
        for r in decoded.rules
        if r.clause.head.rel in needed
        and r.clause.head.rel not in decoded.demand
        and r.clause.head.temporal != NEXT
        and not _has_negation(r)
    ]
    out = Outcome(ctx)
    try:
        run_rules(ctx, book, rules, stop_rel=V.BOOT_UNSTRATIFIED)
    except BudgetExhausted:
        out.partial = True
        ctx.flush()
    unstrat = ctx.tables.get(V.BOOT_UNSTRATIFIED)
    if unstrat is not None and unstrat.rows:
        out.unstratified = list(unstrat.rows)
    strata: dict[str, int] = {}
    for row in ctx.rows(V.BOOT_STRATUM):
        if len(row) == 3 and type(row[1]) is tuple and len(row[1]) == 1 and type(row[2]) is int:
            name = row[1][0]
            if row[2] > strata.get(name, -1):
                strata[name] = row[2]
    out.strata = strata
    return out


def _stratification(store: Store, book: RuleBook, decoded: DecodedRules, limit: int, caches: Caches) -> Outcome:
    """Phase one, reused while none of the relations it reads has changed (ticks, repeated questions).

    A reused stratification charges the steps it cost; when they do not fit the budget it runs again,
    so a budget cuts exactly where it would cut a fresh evaluation."""
    goals = frozenset((V.BOOT_STRATUM, V.BOOT_UNSTRATIFIED))
    cached_cone(decoded, caches, goals)
    needed = caches.cones.get(("sorted", goals))
    if needed is None:
        needed = caches.cones[("sorted", goals)] = tuple(sorted(caches.cones[goals]))
    versions = store.versions
    key = (caches.cone_ids, tuple([versions.get(rel, 0) for rel in needed]))
    hit = caches.strata
    if hit is not None and hit.key == key and hit.steps <= limit:
        out = Outcome(None, hit.strata, [], False)  # never written to: the schedule and the result copy it
        out.steps = hit.steps
        return out
    strat = stratify(store, book, decoded, limit)
    assert strat.ctx is not None  # a stratification that ran has its context
    strat.steps = strat.ctx.steps
    if not strat.unstratified and not strat.partial:
        strata = dict(strat.strata)
        caches.strata = StrataEntry(key, strata, strat.ctx.steps, tuple(sorted(strata.items())))
    return strat


def _same_rules(decoded: DecodedRules, caches: Caches) -> None:
    """Forget the cones and schedules when the rules changed."""
    ids = decoded.ids
    if caches.cone_ids != ids:
        caches.cones, caches.schedules, caches.cone_ids = {}, {}, ids


def cached_cone(decoded: DecodedRules, caches: Caches, goals: frozenset) -> frozenset:
    """``cone`` of ``goals``, kept while the rules are the same."""
    _same_rules(decoded, caches)
    found = caches.cones.get(goals)
    if found is None:
        found = caches.cones[goals] = frozenset(cone(decoded, set(goals)))
    return found


def _guards(decoded: DecodedRules) -> tuple[frozenset, tuple]:
    """The premises that can make a rule unable to fire before anything is evaluated: positive
    literals of relations that only base facts fill (no rule concludes them, the kernel computes
    none of them).  Each is ``(rule index, relation, row)``, the row given when the literal is ground
    (a written perspective, constant arguments), else None (then only an empty relation stops it)."""
    out = []
    for rule in decoded.rules:
        for item in rule.clause.body:
            if not isinstance(item, Literal) or item.temporal == NEXT:
                continue
            rel = item.rel
            if rel in decoded.heads or rel in decoded.demand or rel in V.VIRTUAL_RELATIONS or rel == V.HOLE:
                continue
            row = None
            if type(item.persp) is str and all(is_ground(a) and not B.has_arith(a) for a in item.args):
                row = (item.persp, *item.args)
            out.append((rule.index, rel, row))
    return frozenset(rel for _, rel, _ in out), tuple(out)


def dead_rules(store: Store, decoded: DecodedRules, caches: Caches, touched: set | None) -> frozenset:
    """The rules that cannot fire in this evaluation: a premise reads a base-only relation that has no
    fact it could match (``_guards``), e.g. ``use(no_circular)`` when that preset is off.  Recomputed
    only when one of those relations changed."""
    guards = caches.guards
    if guards is None or guards[0] != decoded.ids:
        guards = caches.guards = (decoded.ids, *_guards(decoded))
        caches.dead = None
    _, rels, checks = guards
    if caches.dead is not None and touched is not None and rels.isdisjoint(touched):
        return caches.dead
    base = store.base
    dead = set()
    for index, rel, row in checks:
        facts = base.get(rel)
        if not facts or (row is not None and row not in facts):
            dead.add(index)
    caches.dead = frozenset(dead)
    return caches.dead


def _schedule(
    decoded: DecodedRules, strata: dict, goals: set[str] | None, caches: Caches, dead: frozenset = frozenset()
) -> tuple:
    """The bottom-up rules in the order they run: per stratum (ascending, unknown last) the components
    in dependency order; the @next rules; what demand relations read.  Rules that cannot fire
    (``dead``) are left out, and with them whatever only they read: only what the goals need runs.
    Kept while the rules, the strata, the goals and the dead rules are the same (every tick of a run
    reuses it)."""
    _same_rules(decoded, caches)
    wanted = None
    if goals is not None:
        wkey = (frozenset(goals), dead)  # the live cone of the goals
        wanted = caches.cones.get(wkey)
        if wanted is None:
            wanted = caches.cones[wkey] = frozenset(cone(decoded, set(goals), dead))
    hit_strata = caches.strata
    if hit_strata is not None and hit_strata.strata is strata:
        skey = hit_strata.items
    else:
        skey = tuple(sorted(strata.items()))
    key = (skey, None if goals is None else frozenset(goals), dead)
    hit = caches.schedules.get(key)
    if hit is not None:
        return hit
    groups: dict[int, list[CompiledRule]] = {}
    staged: list[CompiledRule] = []
    last = 1 << 30
    for rule in decoded.rules:
        head = rule.clause.head
        if rule.index in dead or head.rel in decoded.demand or (wanted is not None and head.rel not in wanted):
            continue
        if head.temporal == NEXT:
            staged.append(rule)
            continue
        groups.setdefault(strata.get(head.rel, last), []).append(rule)
    demand_reads = through_demand(decoded)
    levels = []
    for level in sorted(groups):
        comps = []
        for rules in components(groups[level], demand_reads):
            heads = frozenset(r.clause.head.rel for r in rules)
            comps.append(Component(rules, heads, min(heads)))
        levels.append(comps)
    out = caches.schedules[key] = (levels, staged, demand_reads)
    return out


@dataclass(slots=True)
class Component:
    """Mutually recursive rules of one stratum, run to a fixpoint together: their head relations and
    ``key``, the name of the component's cost.  ``cone`` (every relation the heads depend on) and
    ``fixed`` (the last evaluation's results can never be taken over: an ``@init`` premise, a demand
    call) are computed the first time a reuse is considered (``_blocked``), never for a first
    evaluation (a chain of n rules has cones of total size n^2)."""

    rules: list
    heads: frozenset
    key: str
    cone: frozenset | None = None
    fixed: bool = False


def _blocked(comp: Component, decoded: DecodedRules, caches: Caches, touched: set) -> bool:
    """Whether the last evaluation's results for ``comp`` cannot be taken over."""
    if comp.cone is None:
        by_head = caches.cones
        reads: set[str] = set()
        for h in comp.heads:
            c = by_head.get(h)
            if c is None:
                c = by_head[h] = frozenset(cone(decoded, {h}))
            reads |= c
        init = caches.cones.get(("init",))
        if init is None:
            init = caches.cones[("init",)] = frozenset(
                r.clause.head.rel
                for r in decoded.rules
                if any(isinstance(i, Literal) and i.temporal == "init" for i in r.clause.body)
            )
        comp.cone = frozenset(reads)
        # demand answers materialise while a rule runs: a relation that calls one is derived afresh
        comp.fixed = bool(comp.heads & init or comp.cone & init or comp.cone & decoded.demand)
    return comp.fixed or not comp.cone.isdisjoint(touched)


def _base_tables(store: Store, decoded: DecodedRules, reuse) -> dict | None:
    """The base tables of the last evaluation, those of changed relations built again (None: build
    every one).  A relation no rule concludes is never written during an evaluation, so its table
    (with the indexes built on it) is read as it is while its facts are the same; holes are written
    after an evaluation, so their table is always built afresh."""
    if reuse is None:
        return None
    touched, prev = reuse
    tables = dict(prev.ctx.base_tables)
    heads = decoded.heads
    for rel in touched:
        tables.pop(rel, None)
        if rel in store.base and rel not in heads and rel not in V.VIRTUAL_RELATIONS:
            table = tables[rel] = Table()
            table.rows = dict.fromkeys(store.sorted_rows(rel), -1)
    if V.HOLE in store.base and V.HOLE not in heads:
        table = tables[V.HOLE] = Table()
        table.rows = dict.fromkeys(store.sorted_rows(V.HOLE), -1)
    return tables


def _reusable(store: Store, decoded: DecodedRules, naive: bool, caches: Caches):
    """What changed since the last complete evaluation, and that evaluation, or None when nothing of
    it can be taken over (other rules, another mode).  A component is taken over unchanged when none
    of the relations it depends on changed (``Component``).  Fact metadata: in_perspective changes
    with any base fact, asserted_by with the facts that name who asserted them, derived_by with history.
    """
    prev = caches.last
    if prev is None or prev.naive != naive or prev.rule_ids != decoded.ids:
        return None
    before = prev.versions
    now = store.versions
    touched = {rel for rel, n in now.items() if before.get(rel, 0) != n}
    if len(before) != len(now):
        touched |= {rel for rel in before if rel not in now}
    if touched:
        touched |= V.VIRTUAL_RELATIONS if store.owned != prev.owned else V.VIRTUAL_RELATIONS - {V.ASSERTED_BY}
    elif store.owned != prev.owned:
        touched = set(V.VIRTUAL_RELATIONS)
    return touched, prev


def evaluate(
    store: Store,
    book: RuleBook,
    limit: int,
    naive: bool = False,
    goals: set[str] | None = None,
    caches: Caches | None = None,
) -> Outcome:
    """Evaluate every rule of the store (or only those the ``goals`` relations depend on).

    The cyclic garbage collector is paused while it runs (an evaluation allocates millions of
    acyclic tuples, and each collection would walk them all again: a quarter of a closure's time);
    only the call that paused it resumes it, so concurrent evaluations never leave it off."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _evaluate(store, book, limit, naive, goals, caches)
    finally:
        if paused:
            gc.enable()


def _evaluate(
    store: Store,
    book: RuleBook,
    limit: int,
    naive: bool,
    goals: set[str] | None,
    caches: Caches | None,
) -> Outcome:
    caches = caches if caches is not None else Caches()
    decoded = book.rules(store, caches)
    strat = _stratification(store, book, decoded, limit, caches)
    if strat.unstratified:
        return strat
    reuse = _reusable(store, decoded, naive, caches)
    ctx = Context(store, decoded, limit, naive, _base_tables(store, decoded, reuse))
    ctx.steps = strat.steps
    ctx.saved = strat.steps if strat.ctx is None else 0
    out = Outcome(ctx, strat.strata, [], strat.partial)
    dead = dead_rules(store, decoded, caches, None if reuse is None else reuse[0])
    levels, staged, demand_reads = _schedule(decoded, strat.strata, goals, caches, dead)
    derived: set[str] = set()
    costs: dict[str, int] = {}
    try:
        if strat.partial:
            raise BudgetExhausted()
        touched, prev = reuse if reuse is not None else (set(), None)
        for level in levels:
            for comp in level:
                heads = comp.heads
                derived |= heads
                if prev is not None and heads <= prev.heads and not _blocked(comp, decoded, caches, touched):
                    cost = prev.costs.get(comp.key, 0)
                    if ctx.steps + cost <= ctx.limit:  # reuse charges what the component cost
                        ctx.steps += cost
                        ctx.saved += cost
                        before_ctx = prev.ctx
                        for rel in heads:
                            ctx.tables[rel] = before_ctx.tables[rel]
                            if rel in before_ctx.provs:
                                ctx.provs[rel] = before_ctx.provs[rel]
                            if rel in before_ctx.mores:
                                ctx.mores[rel] = before_ctx.mores[rel]
                            costs[rel] = cost
                        continue
                before = ctx.steps
                run_rules(ctx, book, comp.rules, demand_reads=demand_reads)
                for rel in heads:
                    costs[rel] = ctx.steps - before
        for rule in staged:
            book.variant(rule, -1, frozenset(), decoded.demand, naive)(ctx, rule.index)
    except BudgetExhausted:
        out.partial = True
        ctx.flush()
    ctx.partial = out.partial
    ctx.finished = True
    if out.partial:
        caches.last = None
    else:
        caches.last = Previous(
            decoded.ids,
            dict(store.versions),
            naive,
            ctx,
            frozenset(derived),
            costs,
            store.owned,
        )
    return out

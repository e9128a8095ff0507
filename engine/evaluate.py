"""The evaluator: stratification read from boot's rules, then semi-naive (or naive) fixpoints per stratum.

One evaluation is a fresh ``Context`` over the store's base facts.  Phase one runs the negation-free
rules that ``stratum``/``unstratified`` depend on and stops as soon as ``unstratified`` holds; phase two
runs every bottom-up rule stratum by stratum (rules whose head has no stratum run last), then the
``@next`` rules once over the finished tick to stage the next tick's facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

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
from .tables import Table


class Context:
    """The facts of one evaluation: tables, provenance records, staged facts, and the step budget.

    A provenance record is ``[rule_index, witness_rows, support_count, extra_rule_indexes]``; the
    witness is the first firing in canonical order, its rows the positive premises in written order.
    """

    def __init__(self, store: Store, decoded: DecodedRules, limit: int, naive: bool = False) -> None:
        self.store = store
        self.decoded = decoded
        self.tables: dict[str, Table] = {}
        self.provs: dict[str, dict] = {}
        self.staged_provs: dict[str, dict] = {}
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
        self.memory_limit = C.memory_limit()
        self.memory_seen = 0  # ctx.steps when the process's size was last looked at
        self.out_of_memory = False
        by_rel: dict[str, list] = {}
        for rule in decoded.rules:
            if rule.clause.head.rel in decoded.demand:
                by_rel.setdefault(rule.clause.head.rel, []).append(rule)
        self.demand = Demand(self, by_rel)
        self.call = self.demand.call
        for rel in store.relations():
            if rel not in V.VIRTUAL_RELATIONS:
                table = self.tables[rel] = Table()
                table.rows = dict.fromkeys(store.sorted_rows(rel), -1)

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

    # -- provenance as a relation ---------------------------------------------------------------------
    def _fill_history(self, table: Table) -> None:
        """derived_by rows: frozen history, plus this evaluation's derivations once it has finished."""
        rows = table.rows
        for frel, frow, rid, tick in self.store.history.entries():
            rows[("main", fact_term(frel, frow), (rid,), tick)] = -1
        if self.finished:
            for frel in sorted(self.provs):
                for frow, rec in self.provs[frel].items():
                    for rix in [rec[0], *(rec[3] or ())]:
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
        if C.peak_bytes() > self.memory_limit:
            self.out_of_memory = True
            raise BudgetExhausted()

    def flush(self) -> bool:
        """Install the facts derived this round; they become the next round's delta."""
        self.round += 1
        self.deltas = {}
        any_new = False
        for rel, lst in self.news.items():
            if lst:
                self.table(rel).add_many(lst, self.round)
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


def cone(decoded: DecodedRules, goals: set[str]) -> set[str]:
    """Relation names the goals depend on through rules (the goals included)."""
    by_head: dict[str, list[CompiledRule]] = {}
    for rule in decoded.rules:
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
                table.indexes.clear()
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
    needed = cached_cone(decoded, caches, frozenset((V.BOOT_STRATUM, V.BOOT_UNSTRATIFIED)))
    key = (caches.cone_ids, tuple(sorted((rel, store.versions.get(rel, 0)) for rel in needed)))
    hit = caches.strata
    if hit is not None and hit.key == key and hit.steps <= limit:
        out = Outcome(None, dict(hit.strata), [], False)
        out.steps = hit.steps
        return out
    strat = stratify(store, book, decoded, limit)
    assert strat.ctx is not None  # a stratification that ran has its context
    strat.steps = strat.ctx.steps
    if not strat.unstratified and not strat.partial:
        caches.strata = StrataEntry(key, dict(strat.strata), strat.ctx.steps)
    return strat


def cached_cone(decoded: DecodedRules, caches: Caches, goals: frozenset) -> frozenset:
    """``cone`` of ``goals``, kept while the rules are the same."""
    ids = tuple(r.rid for r in decoded.rules)
    if caches.cone_ids != ids:
        caches.cones, caches.schedules, caches.cone_ids = {}, {}, ids
    found = caches.cones.get(goals)
    if found is None:
        found = caches.cones[goals] = frozenset(cone(decoded, set(goals)))
    return found


def _schedule(decoded: DecodedRules, strata: dict, goals: set[str] | None, caches: Caches) -> tuple:
    """The bottom-up rules in the order they run: per stratum (ascending, unknown last) the components
    in dependency order; the @next rules; what demand relations read.  Kept while the rules, the strata
    and the goals are the same (every tick of a run reuses it)."""
    wanted = cached_cone(decoded, caches, frozenset(goals)) if goals is not None else None
    key = (tuple(sorted(strata.items())), None if goals is None else frozenset(goals))
    hit = caches.schedules.get(key)
    if hit is not None:
        return hit
    groups: dict[int, list[CompiledRule]] = {}
    staged: list[CompiledRule] = []
    last = 1 << 30
    for rule in decoded.rules:
        head = rule.clause.head
        if head.rel in decoded.demand or (wanted is not None and head.rel not in wanted):
            continue
        if head.temporal == NEXT:
            staged.append(rule)
            continue
        groups.setdefault(strata.get(head.rel, last), []).append(rule)
    demand_reads = through_demand(decoded)
    levels = [components(groups[level], demand_reads) for level in sorted(groups)]
    out = caches.schedules[key] = (levels, staged, demand_reads)
    return out


def _reusable(store: Store, decoded: DecodedRules, naive: bool, caches: Caches):
    """A predicate telling whether a head relation can be taken over unchanged from the last evaluation.

    It can when the rules are the same and no base relation in its dependency cone changed since.
    Fact metadata (asserted_by, in_perspective) changes with any base fact, derived_by with history.
    """
    prev = caches.last
    ids = tuple(r.rid for r in decoded.rules)
    if prev is None or prev.rule_ids != ids or prev.naive != naive:
        return None
    touched = {
        rel
        for rel in set(store.versions) | set(prev.versions)
        if store.versions.get(rel, 0) != prev.versions.get(rel, 0)
    }
    if touched:
        touched |= V.VIRTUAL_RELATIONS
    if caches.cone_ids != ids:
        caches.cones, caches.schedules, caches.cone_ids = {}, {}, ids
    by_head = caches.cones
    init_heads = {
        r.clause.head.rel
        for r in decoded.rules
        if any(isinstance(i, Literal) and i.temporal == "init" for i in r.clause.body)
    }

    def ok(head: str) -> bool:
        if head not in prev.heads or head in init_heads:
            return False
        c = by_head.get(head)
        if c is None:
            c = by_head[head] = frozenset(cone(decoded, {head}))
        # demand answers materialise while a rule runs; a relation that calls one is derived afresh
        return not (c & touched) and not (c & init_heads) and not (c & decoded.demand)

    return ok, prev


def evaluate(
    store: Store,
    book: RuleBook,
    limit: int,
    naive: bool = False,
    goals: set[str] | None = None,
    caches: Caches | None = None,
) -> Outcome:
    """Evaluate every rule of the store (or only those the ``goals`` relations depend on)."""
    caches = caches if caches is not None else Caches()
    decoded = book.rules(store, caches)
    strat = _stratification(store, book, decoded, limit, caches)
    if strat.unstratified:
        return strat
    ctx = Context(store, decoded, limit, naive)
    ctx.steps = strat.steps
    ctx.saved = strat.steps if strat.ctx is None else 0
    out = Outcome(ctx, strat.strata, [], strat.partial)
    levels, staged, demand_reads = _schedule(decoded, strat.strata, goals, caches)
    reuse = _reusable(store, decoded, naive, caches)
    derived: set[str] = set()
    costs: dict[str, int] = {}
    try:
        if strat.partial:
            raise BudgetExhausted()
        for level in levels:
            for rules in level:
                heads = {r.clause.head.rel for r in rules}
                derived |= heads
                if reuse is not None and all(reuse[0](h) for h in heads):
                    prev = reuse[1]
                    cost = prev.costs.get(min(heads), 0)
                    if ctx.steps + cost <= ctx.limit:  # reuse charges what the component cost
                        ctx.steps += cost
                        ctx.saved += cost
                        for rel in sorted(heads):
                            ctx.tables[rel] = prev.ctx.tables[rel]
                            if rel in prev.ctx.provs:
                                ctx.provs[rel] = prev.ctx.provs[rel]
                            costs[rel] = cost
                        continue
                before = ctx.steps
                run_rules(ctx, book, rules, demand_reads=demand_reads)
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
            tuple(r.rid for r in decoded.rules), dict(store.versions), naive, ctx, frozenset(derived), costs
        )
    return out

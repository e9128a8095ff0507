"""The evaluator: stratification read from boot's rules, then semi-naive (or naive) fixpoints per stratum.

One evaluation is a fresh ``Context`` over the store's base facts.  Phase one runs the negation-free
rules that ``stratum``/``unstratified`` depend on and stops as soon as ``unstratified`` holds; phase two
runs every bottom-up rule stratum by stratum (rules whose head has no stratum run last), then the
``@next`` rules once over the finished tick to stage the next tick's facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, cast

from . import builtins as B
from . import costs as C
from . import vocabulary as V
from .base.collector import paused_collection
from .caches import Caches, Previous, StrataEntry
from .clauses import NEXT, NOW, Aggregate, Literal, Negated, body_literals, is_var, literal_vars
from .cycles import CycleTable, named_relation, strong_components
from .demand import Demand
from .metadata import MetadataTable
from .pattern_index import PatternIndex
from .plan import BudgetExhausted, CompiledRule, extra_rules, rule_of, support_of
from .reflect import fact_term
from .rulebook import DecodedRules, RuleBook, interpreted
from .store import Store
from .tables import NarrowIndex, Table, index_key
from .terms import is_ground


@dataclass(frozen=True, slots=True)
class _Lookup:
    """One premise of a body ``Context.record`` searches through indexes: its relation, perspective and
    width, the columns known before it with where each value comes from (``(True, variable)`` or
    ``(False, constant)``), the variables it binds and the columns that repeat a variable it binds."""

    rel: str
    persp: str
    width: int
    cols: tuple[int, ...]
    key: tuple[tuple[bool, object], ...]
    binds: tuple[tuple[int, str], ...]
    repeats: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class _Body:
    """A rule's body as ``Context.record`` solves it: the items in solving order, its positive literals
    in that order, and its premises as index lookups (None: the general solver)."""

    order: tuple
    literals: tuple[Literal, ...]
    lookups: tuple[_Lookup, ...] | None


class _Lean:
    """The record of an installed fact of a lean relation: none kept; ``Context.record`` finds its rule and
    witness when asked.  Not an int, so code that takes it for a rule index fails loudly."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "LEAN"


LEAN = _Lean()
_NO_ROWS: frozenset = frozenset()
LEAN_FROM = 1024  # the facts a relation holds before it may keep no records (``Context.lean_records``)


class LeanRecords:
    """The provenance of a lean relation (``Context.lean_records``): its installed facts are its table's
    rows and keep no record (``LEAN``); only the facts derived in the current round, not yet installed,
    map to their rule index (``pending``).  Read as the records dict of any other relation is read."""

    __slots__ = ("rows", "pending")

    def __init__(self, rows: dict) -> None:
        self.rows = rows
        self.pending: dict = {}

    def get(self, row: tuple, default: Any = None) -> Any:
        if row in self.rows:
            return LEAN
        return self.pending.get(row, default)

    def __contains__(self, row: object) -> bool:
        return row in self.rows or row in self.pending

    def __iter__(self):
        yield from self.rows
        yield from (row for row in self.pending if row not in self.rows)

    def __len__(self) -> int:
        return len(self.rows) + sum(1 for row in self.pending if row not in self.rows)

    def items(self):
        for row in self:
            yield row, self.get(row)


class Context:
    """The facts of one evaluation: tables, provenance records, staged facts, and the step budget.

    A compiled rule's provenance record is its rule index alone: ``record`` finds the witness (the
    positive premises' rows in written order) when asked, among the firings whose premises in the
    rule's own recursive component arrived in earlier rounds than the fact, so a proof never rests on
    the fact itself (Soufflé keeps a rule number and a height per tuple for the same reason).  Staged
    facts, demand answers and interpreted rules keep the tuple ``(rule_index, *witness_rows)``.  A fact
    with more than one firing also has its support (and any other rules) in ``mores``
    (``engine.plan.again``).
    """

    def __init__(
        self,
        store: Store,
        decoded: DecodedRules,
        limit: int,
        naive: bool = False,
        base: dict | None = None,
        carry: tuple | None = None,
        lean: bool = False,
        only: set[str] | None = None,
    ) -> None:
        self.store = store
        self.decoded = decoded
        self.lean = lean and not naive  # whether lean relations keep no records (``lean_records``)
        self.tables: dict[str, Table] = {}
        self.provs: dict[str, Any] = {}  # relation -> {row: record}, or a lean relation's LeanRecords
        self.staged_provs: dict[str, dict] = {}
        self.mores: dict[str, dict] = {}
        # ``carry``: the provenance of the evaluation this one starts from, and the relations (sorted)
        # whose records are computed afresh here (every other relation's records are that one's)
        self.carried: dict | None = None
        self.fresh: tuple = ()
        self.staged_mores: dict[str, dict] = {}
        # the head relations of the recursive component that computed each relation here (``record``)
        self.components: dict[str, frozenset[str]] = {}
        self._bodies: dict[int, _Body] = {}  # rule index -> its body as ``record`` solves it
        self._scanned: set[tuple] = set()  # (relation, index spec) ``record`` looked up once by a scan
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
        self._demand: Demand | None = None  # made on first use (a context that needs none is no reference cycle)
        # the tables of relations that only base facts fill: never written during an evaluation, so
        # the next evaluation reads those of its relations that did not change as they are
        self.base_tables: dict[str, Table] = {}
        self.patterns: dict[tuple, PatternIndex] = {}  # (relation, persp, width, column, op) -> its pattern index
        if carry is not None and base is not None:
            self._carry(base, *carry)
            return
        if base is not None:
            self.base_tables = base
            self.tables.update(base)
            rels = [rel for rel in decoded.heads if rel in store.base and rel not in V.VIRTUAL_RELATIONS]
        else:  # ``only``: the relations this evaluation's rules can read (the stratification's cone)
            rels = [
                rel for rel in store.relations() if rel not in V.VIRTUAL_RELATIONS and (only is None or rel in only)
            ]
        heads = decoded.heads
        self.based = frozenset(rel for rel in heads if rel in store.base)  # concluded, and with base facts
        for rel in rels:
            table = self.tables[rel] = Table()
            table.rows = dict.fromkeys(store.sorted_rows(rel), -1)
            if rel not in heads and rel != V.HOLE:
                self.base_tables[rel] = table

    def _carry(self, base: dict, before: Context, plan: Plan) -> None:
        """Start from the tables and provenance of ``before`` (the last complete evaluation, with the
        same schedule), except what ``plan`` computes again: the heads of the components it runs, the
        relations that changed, fact metadata, demand relations and holes.  What a fresh context would
        hold for the rest is exactly what ``before`` held: the same base tables, and the head tables
        and records of the components taken over unchanged."""
        self.carried = before.provs
        self.fresh = plan.fresh
        self.base_tables = base
        tables = self.tables = dict(before.tables)
        for rel in plan.drop:
            tables.pop(rel, None)
        tables.update(base)
        store_base = self.store.base
        for rel in plan.refill:
            if rel in store_base:
                table = tables[rel] = Table()
                table.rows = dict.fromkeys(self.store.sorted_rows(rel), -1)
        provs = self.provs = dict(before.provs)
        self.components = dict(before.components)
        mores = self.mores = dict(before.mores)
        for rel in plan.forget:
            provs.pop(rel, None)
            mores.pop(rel, None)
        based = before.based
        for rel in plan.moved:
            if (rel in store_base) != (rel in based):
                based = based ^ {rel}
        self.based = based

    @property
    def demand(self) -> Demand:
        """The top-down solver over this context (demand relations, aggregates, questions)."""
        solver = self._demand
        if solver is None:
            solver = self._demand = Demand(self, self.decoded.by_demand)
        return solver

    def release(self) -> None:
        """Drop what refers back to this context (its solver, its cycle table): a finished tick's
        context is then freed as soon as nothing holds it, with the garbage collector paused (a run of
        ticks); a later question over it makes them afresh."""
        self._demand = None
        self.tables.pop(V.CYCLE_COMPONENT, None)

    def call(self, rel: str, persp: str | None, args: tuple) -> list:
        """``Demand.call``: the rows of demand relation ``rel`` matching a call pattern."""
        return self.demand.call(rel, persp, args)

    # -- accessors used by generated code ------------------------------------------------------
    def table(self, rel: str) -> Table:
        t = self.tables.get(rel)
        if t is None:
            if rel in (V.IN_PERSPECTIVE, V.ASSERTED_BY):
                t = self.tables[rel] = cast(Table, MetadataTable(self.store, rel))  # reads like a Table
            elif rel == V.CYCLE_COMPONENT:
                t = self.tables[rel] = cast(Table, CycleTable(self))  # reads like a Table
            else:
                t = self.tables[rel] = Table()
                if rel == V.DERIVED_BY:
                    self._fill_history(t)
        return t

    def rows(self, rel: str) -> dict:
        return self.table(rel).rows

    def pattern_index(self, rel: str, persp: str, width: int, col: int, op: str) -> PatternIndex:
        """The rows of ``rel`` in perspective ``persp`` of length ``width`` by the pattern in column ``col``,
        for ``op`` (matches or glob) to look up with a text (``engine.pattern_index``)."""
        table = self.table(rel)
        key = (rel, persp, width, col, op)
        found = self.patterns.get(key)
        if found is None or not found.current(table):
            found = self.patterns[key] = PatternIndex(table, persp, width, col, op)
        return found

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

    # the working collections of one relation, made on first use (once per rule run, not per fact)
    def new(self, rel: str) -> list:
        return self.news.setdefault(rel, [])

    def prov(self, rel: str) -> dict:
        return self.provs.setdefault(rel, {})

    def lean_records(self, rel: str) -> tuple[dict, Any]:
        """What a compiled rule concluding ``rel`` writes its records to and checks installed facts against:
        ``(pending, table rows)`` for a lean relation, ``(records, an empty set)`` for any other.

        A relation becomes lean once it holds more than ``LEAN_FROM`` facts (``flush``) when every rule
        concluding it is compiled, finds its witness again through indexes (``engine.plan.rewitnessable``),
        stages nothing and calls no demand relation, and it has no base facts: then an installed fact
        keeps no record at all (its table row, with the round it arrived in, is all there is) and
        ``record`` finds its rule with its witness.  A fact costs one dict entry instead of two.  Naive
        evaluation and a tick's (whose history records every derivation's rules: ``History.freeze``
        finds them once for the lean relations a tick takes over) keep every record, and so does a small
        relation, whose records cost little and whose rules a tick would otherwise find again."""
        found = self.provs.get(rel)
        if type(found) is LeanRecords:
            return found.pending, found.rows
        return self.prov(rel), _NO_ROWS

    def _rules_of(self, rel: str) -> tuple[tuple[int, ...], bool]:
        """The indexes of the rules concluding ``rel`` (at this tick), and whether ``rel`` can be lean."""
        by_head = self.decoded.by_head
        if not by_head:
            from .plan import rewitnessable
            from .rulebook import MAX_COMPILED_PREMISES

            demand = self.decoded.demand
            rules: dict[str, list[int]] = {}
            able: dict[str, bool] = {}
            for rule in self.decoded.rules:
                head = rule.clause.head
                if head.temporal == NEXT:
                    able[head.rel] = False
                    continue
                rules.setdefault(head.rel, []).append(rule.index)
                able[head.rel] = (
                    able.get(head.rel, True)
                    and head.rel not in demand
                    and len(rule.positive) <= MAX_COMPILED_PREMISES
                    and not any(lit.rel in demand for lit, _ in _body_literals(rule))
                    and rewitnessable(rule)
                )
            for name, indexes in rules.items():
                by_head[name] = (tuple(indexes), able[name])
        return by_head.get(rel, ((), False))

    def _leanable(self, rel: str) -> bool:
        return self._rules_of(rel)[1]

    def staged(self, rel: str) -> dict:
        return self.staged_provs.setdefault(rel, {})

    def more(self, rel: str) -> dict:
        return self.mores.setdefault(rel, {})

    def staged_more(self, rel: str) -> dict:
        return self.staged_mores.setdefault(rel, {})

    def support(self, rel: str, row: tuple) -> int:
        """How many distinct firings derived ``row`` (a derived fact)."""
        m = self.mores.get(rel)
        return support_of(m.get(row) if m is not None else None)

    def rule_indexes(self, rel: str, row: tuple, rec: Any, staged: bool = False) -> tuple[int, ...]:
        """Every rule that derived ``row`` (record ``rec``), the witness's rule first.  Of a lean relation's
        fact, the rules are found: those with a firing that concludes it."""
        if not staged and type(self.provs.get(rel)) is LeanRecords:
            found = self.record(rel, row) if rec is LEAN or type(rec) is int else rec
            if found is None:
                return ()
            first = found[0]
            if self.support(rel, row) == 1:  # one firing: one rule
                return (first,)
            others = [rix for rix in self._rules_of(rel)[0] if rix != first and self._witness(rel, row, rix, False)[1]]
            return (first, *others)
        m = (self.staged_mores if staged else self.mores).get(rel)
        return (rule_of(rec), *extra_rules(m.get(row) if m is not None else None))

    def record(self, rel: str, row: tuple) -> tuple | None:
        """The provenance record ``(rule_index, *witness_rows)`` of a derived fact, None for one this
        evaluation did not derive.  A compiled rule's witness is found again here: the first solution of
        the rule's body, the fact's arguments bound, whose premises in the rule's recursive component
        arrived before the fact (each was installed at an earlier round, as the firing that derived the
        fact read them); the premises of lower components are complete, whatever their rounds."""
        rec = self.provs.get(rel, {}).get(row)
        if rec is LEAN:  # the first rule, in index order, with a firing whose premises arrived before the fact
            fallback = None
            for rix in self._rules_of(rel)[0]:
                valid, first = self._witness(rel, row, rix)
                if valid is not None:
                    return valid
                fallback = fallback or first
            return fallback
        if type(rec) is not int:
            return rec
        valid, first = self._witness(rel, row, rec)
        # a derived fact always has its firing among the solutions; were the rounds ever not to show it, a
        # valid firing is still the fact's record (never None: that would say the fact does not hold)
        return valid or first or (rec,)

    def _witness(self, rel: str, row: tuple, rec: int, rounds: bool = True) -> tuple[tuple | None, tuple | None]:
        """The record ``(rec, *witness)`` of the first firing of rule ``rec`` concluding ``row`` whose premises
        in the rule's recursive component arrived before the fact (None without one, or without
        ``rounds``), and of the first firing found whatever its rounds (None when the rule has no firing
        that concludes ``row``)."""
        rule = self.decoded.rules[rec]
        body = self._bodies.get(rec)
        if body is None:
            from .query import schedule

            bound = set(literal_vars(rule.clause.head, {}))
            solving, _ = schedule(rule.clause.body, bound)
            literals = tuple(item for item in solving if isinstance(item, Literal))
            plain = not is_var(rule.clause.head.persp)  # a perspective variable is bound to a wrapped name
            lookups = self._lookups(solving, bound) if plain else None
            body = self._bodies[rec] = _Body(tuple(solving), literals, lookups)
        order, literals, lookups = body.order, body.literals, body.lookups
        binding: dict = {}
        head = rule.clause.head
        if len(head.args) != len(row) - 1 or (type(head.persp) is str and head.persp != row[0]):
            return None, None  # another rule of the relation (``LEAN``): one concluding another perspective
        if is_var(head.persp) and not B.match(head.persp, (row[0],), binding):
            return None, None
        for pattern, value in zip(head.args, row[1:]):
            if not B.match(pattern, value, binding):
                return None, None
        table = self.tables.get(rel)
        arrived = table.rows.get(row) if table is not None else None
        same = self.components.get(rel, frozenset((rel,)))
        if not rounds:
            arrived = None
        if lookups is not None:  # a complete search: no firing it misses
            wit = self._looked_up(lookups, binding, same, arrived)
            if wit is not None:
                return ((rec, *wit) if rounds else None), (rec, *wit)
            if arrived is None:
                return None, None
            wit = self._looked_up(lookups, binding, same, None)
            return None, ((rec, *wit) if wit is not None else None)
        tables = self.tables
        first = None
        for _, wit in self.demand.solve(order, 0, binding, (), charge=False):
            if not rounds:
                return None, (rec, *wit)
            if arrived is None or all(
                lit.rel not in same or tables[lit.rel].rows.get(prow, -1) < arrived for lit, prow in zip(literals, wit)
            ):
                return (rec, *wit), (rec, *wit)
            first = wit if first is None else first
        return None, ((rec, *first) if first is not None else None)

    def _lookups(self, order: list, bound: set[str]) -> tuple[_Lookup, ...] | None:
        """How ``record`` finds a witness without the general solver, when the body (in solving order) is
        positive literals of written perspectives over plain variables and constants: per literal, its
        relation, perspective, width, the columns known before it with where their values come from, the
        variables it binds and those it repeats.  None for any other body."""
        have = set(bound)
        steps = []
        for item in order:
            if (
                type(item) is not Literal
                or type(item.persp) is not str
                or item.temporal != NOW
                or item.rel in self.decoded.demand
                or item.rel in V.VIRTUAL_RELATIONS
            ):
                return None
            cols: list[int] = []
            key: list[tuple[bool, object]] = []
            binds: list[tuple[int, str]] = []
            repeats: list[tuple[int, str]] = []
            here: set[str] = set()
            for pos, arg in enumerate(item.args, 1):
                if is_var(arg):
                    name = arg[1]
                    if name in have:
                        cols.append(pos)
                        key.append((True, name))
                    elif name in here:
                        repeats.append((pos, name))
                    else:
                        here.add(name)
                        binds.append((pos, name))
                elif is_ground(arg):
                    cols.append(pos)
                    key.append((False, B.substitute(arg, {})))
                else:
                    return None  # a compound pattern around a variable
            have |= here
            steps.append(
                _Lookup(item.rel, item.persp, len(item.args) + 1, tuple(cols), tuple(key), tuple(binds), tuple(repeats))
            )
        return tuple(steps)

    def _looked_up(
        self, lookups: tuple[_Lookup, ...], binding: dict, same: frozenset, arrived: int | None
    ) -> list | None:
        """The first witness ``_lookups`` finds through the tables' indexes (a fully bound premise is one
        membership test), its premises in ``same`` from rounds before ``arrived``; None when there is none."""
        n = len(lookups)
        wit: list = [None] * n
        tables = self.tables
        limit = arrived if arrived is not None else -2  # no round before which premises must have arrived
        scanned = self._scanned

        def search(i: int, b: dict) -> bool:
            if i == n:
                return True
            step = lookups[i]
            rel, persp, width, cols, binds, repeats = (
                step.rel,
                step.persp,
                step.width,
                step.cols,
                step.binds,
                step.repeats,
            )
            values = [b[k] if var else k for var, k in step.key]
            table = self.table(rel)
            if len(cols) == width - 1 and type(table) is Table:
                row = (persp, *values)
                found: Any = (row,) if row in table.rows else ()
            elif cols:
                key = values[0] if len(cols) == 1 else tuple(values)
                spec = (persp, width, cols)
                if type(table) is Table and spec not in table.pindexes and (rel, spec) not in scanned:
                    # asked once: a scan; asked again, the index (as engine.demand's lookups do)
                    scanned.add((rel, spec))
                    found = [r for r in table.rows if len(r) == width and r[0] == persp and index_key(r, cols) == key]
                else:
                    found = self.pindex(rel, persp, width, cols).get(key, ())
            else:
                found = self.pindex(rel, persp, width, cols)
            rounds = tables[rel].rows if arrived is not None and rel in same else None
            for row in found:
                if rounds is not None and rounds.get(row, -1) >= limit:
                    continue
                inner = dict(b) if binds else b
                for pos, name in binds:
                    inner[name] = row[pos]
                if repeats and any(row[pos] != inner[name] for pos, name in repeats):
                    continue
                wit[i] = row
                if search(i + 1, inner):
                    return True
            return False

        return wit if search(0, binding) else None

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
                records = self.provs.get(rel)
                if type(records) is LeanRecords:  # installed: their rows are their records now
                    records.pending.clear()
                elif (
                    self.lean
                    and records is not None
                    and len(records) > LEAN_FROM
                    and rel not in self.based
                    and self._leanable(rel)
                ):
                    self.provs[rel] = LeanRecords(table.rows)  # every record installed: all dropped
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
    demand = ctx.decoded.demand
    recursive = frozenset(r.clause.head.rel for r in rules)
    ctx.components.update(dict.fromkeys(recursive, recursive))
    reads = demand_reads or {}
    again = (
        {
            r.index
            for r in rules
            if any(lit.rel in demand and (reads.get(lit.rel, set()) & recursive) for lit, _ in _body_literals(r))
        }
        if demand
        else ()
    )
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
    """Phase one: the negation-free rules behind ``stratum``/``unstratified``, over the relations they read
    alone (the rules as data: a scan's facts are never copied into its tables)."""
    needed = cone(decoded, {V.BOOT_STRATUM, V.BOOT_UNSTRATIFIED})
    ctx = Context(store, decoded, limit, only=needed)
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


_STRATA_GOALS = frozenset((V.BOOT_STRATUM, V.BOOT_UNSTRATIFIED))


def _stratification(
    store: Store, book: RuleBook, decoded: DecodedRules, limit: int, caches: Caches, reuse=None
) -> Outcome:
    """Phase one, reused while none of the relations it reads has changed (ticks, repeated questions).

    A reused stratification charges the steps it cost; when they do not fit the budget it runs again,
    so a budget cuts exactly where it would cut a fresh evaluation.  ``reuse`` (``_reusable``): when
    the last evaluation used the cached stratification and none of what it reads changed since, it
    holds without comparing versions."""
    goals = _STRATA_GOALS
    cone_set = cached_cone(decoded, caches, goals)
    hit = caches.strata
    if (
        reuse is not None
        and hit is not None
        and reuse[1].strata is hit
        and hit.steps <= limit
        and cone_set.isdisjoint(reuse[0])
    ):
        out = Outcome(None, hit.strata, [], False)
        out.steps = hit.steps
        return out
    needed = caches.cones.get(("sorted", goals))
    if needed is None:
        needed = caches.cones[("sorted", goals)] = tuple(sorted(caches.cones[goals]))
    versions = store.versions
    key = (caches.cone_ids, tuple([versions.get(rel, 0) for rel in needed]))
    if hit is not None and hit.key == key and hit.steps <= limit:
        out = Outcome(None, hit.strata, [], False)  # never written to: the schedule and the result copy it
        out.steps = hit.steps
        return out
    strat = stratify(store, book, decoded, limit)
    assert strat.ctx is not None  # a stratification that ran has its context
    strat.steps = strat.ctx.steps
    if not strat.unstratified and not strat.partial:
        strata = dict(strat.strata)
        caches.strata = StrataEntry(
            key, strata, strat.ctx.steps, tuple(sorted(strata.items())), MappingProxyType(strata)
        )
    return strat


def _same_rules(decoded: DecodedRules, caches: Caches) -> None:
    """Forget the cones and schedules when the rules changed."""
    ids = decoded.ids
    if caches.cone_ids != ids:
        caches.cones, caches.schedules, caches.cone_ids = {}, {}, ids
        caches.schedule_memo = None


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
    none of them), and of ``asserted_by`` (empty while no fact names who asserted it).  Each is
    ``(rule index, relation, row)``, the row given when the literal is ground (a written perspective,
    constant arguments), else None (then only an empty relation stops it)."""
    out: list[tuple[int, str, tuple | None]] = []
    for rule in decoded.rules:
        for item in rule.clause.body:
            if not isinstance(item, Literal) or item.temporal == NEXT:
                continue
            rel = item.rel
            if rel in decoded.heads or rel in decoded.demand or rel == V.HOLE:
                continue
            if rel in V.VIRTUAL_RELATIONS:
                if rel == V.ASSERTED_BY:
                    out.append((rule.index, rel, None))
                continue
            row = None
            if type(item.persp) is str and all(is_ground(a) and not B.has_arith(a) for a in item.args):
                row = (item.persp, *item.args)
            out.append((rule.index, rel, row))
    return frozenset(rel for _, rel, _ in out), tuple(out)


def dead_rules(store: Store, decoded: DecodedRules, caches: Caches, touched: set | None) -> frozenset:
    """The rules that cannot fire in this evaluation: a premise reads a base-only relation that has no
    fact it could match (``_guards``), e.g. ``use(no_circular)`` when that preset is off.  Recomputed
    only when one of those relations changed.  ``asserted_by`` is looked at only once an evaluation
    has built it for the current facts (building it reads every base fact): until then a rule
    reading it is taken as live, and the rules are looked at again once it is built."""
    guards = caches.guards
    if guards is None or guards[0] != decoded.ids:
        guards = caches.guards = (decoded.ids, *_guards(decoded))
        caches.dead = None
    _, rels, checks = guards
    owners = store.known_metadata(V.ASSERTED_BY) if V.ASSERTED_BY in rels else None
    if (
        caches.dead is not None
        and touched is not None
        and rels.isdisjoint(touched)
        and not (caches.dead_blind and owners is not None)
    ):
        return caches.dead
    base = store.base
    dead = set()
    for index, rel, row in checks:
        if rel == V.ASSERTED_BY:
            if owners is not None and not owners.rows:
                dead.add(index)
            continue
        facts = base.get(rel)
        if not facts or (row is not None and row not in facts):
            dead.add(index)
    caches.dead = frozenset(dead)
    caches.dead_blind = V.ASSERTED_BY in rels and owners is None
    return caches.dead


def _schedule(
    decoded: DecodedRules, strata: dict, goals: set[str] | None, caches: Caches, dead: frozenset = frozenset()
) -> Schedule:
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
    gkey = None if goals is None else frozenset(goals)
    memo = caches.schedule_memo
    if memo is not None and memo[0] is strata and memo[1] == gkey and memo[2] is dead:
        return memo[3]
    hit_strata = caches.strata
    if hit_strata is not None and hit_strata.strata is strata:
        skey = hit_strata.items
    else:
        skey = tuple(sorted(strata.items()))
    key = (skey, gkey, dead)
    hit = caches.schedules.get(key)
    if hit is not None:
        caches.schedule_memo = (strata, gkey, dead, hit)
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
    out = caches.schedules[key] = Schedule(levels, staged, demand_reads, gkey, dead)
    caches.schedule_memo = (strata, gkey, dead, out)
    return out


@dataclass(slots=True)
class Plan:
    """What an evaluation that starts from the last one (same schedule) computes again, for one set
    of changed relations: the components to run (in schedule order) and their heads; the tables to
    drop (those heads, the changed relations, fact metadata, demand relations, holes), those of them
    to fill again from base facts, the provenance to forget, and the changed relations that are heads
    (whether they have base facts may have changed)."""

    rerun: tuple
    heads: frozenset
    drop: frozenset
    refill: frozenset
    forget: frozenset
    moved: frozenset
    fresh: tuple  # ``forget`` sorted
    keep: tuple  # per head of @next rules (``Schedule.staged_groups``): whether what they stage is the same


@dataclass(slots=True)
class Schedule:
    """The bottom-up rules in the order they run (``_schedule``): per stratum, the components; the
    @next rules and their compiled variants (per mode); what each demand relation reads; and the
    ``Plan`` per set of changed relations, made the first time that set is seen."""

    levels: list
    staged: list
    demand_reads: dict
    goals: frozenset | None = None  # what it was made for: the goals and the dead rules
    dead: frozenset = frozenset()
    staged_fns: dict = field(default_factory=dict)  # naive -> [(rule, variant), ...]
    groups: dict = field(default_factory=dict)  # naive -> the @next rules by head (``staged_groups``)
    plans: dict = field(default_factory=dict)  # frozenset of changed relations -> Plan
    quiet: dict = field(default_factory=dict)  # frozenset of changed relations -> whether ``_quiet`` holds

    def staged_variants(self, book: RuleBook, decoded: DecodedRules, naive: bool) -> list:
        fns = self.staged_fns.get(naive)
        if fns is None:
            fns = self.staged_fns[naive] = [
                (rule, book.variant(rule, -1, frozenset(), decoded.demand, naive)) for rule in self.staged
            ]
        return fns

    def staged_groups(self, book: RuleBook, decoded: DecodedRules, naive: bool) -> list:
        """The @next rules by head, heads in order of their first rule: ``(head, [(rule index,
        variant), ...], relations they read, fixed)``; ``fixed``: an ``@init`` premise or a demand
        call, so what they stage is never taken over."""
        groups = self.groups.get(naive)
        if groups is None:
            by_head: dict[str, list] = {}
            for rule, fn in self.staged_variants(book, decoded, naive):
                by_head.setdefault(rule.clause.head.rel, []).append((rule, fn))
            groups = self.groups[naive] = []
            for head, pairs in by_head.items():
                reads = frozenset(lit.rel for rule, _ in pairs for lit, _ in _body_literals(rule))
                fixed = bool(reads & decoded.demand) or any(
                    isinstance(i, Literal) and i.temporal == "init" for rule, _ in pairs for i in rule.clause.body
                )
                groups.append((head, [(rule.index, fn) for rule, fn in pairs], reads, fixed))
        return groups

    def plan(self, decoded: DecodedRules, caches: Caches, touched: set, groups: list) -> Plan:
        key = frozenset(touched)
        plan = self.plans.get(key)
        if plan is None:
            if len(self.plans) >= 256:  # a bound: each plan is small, but every set of changes makes one
                self.plans.clear()
            rerun = tuple(c for level in self.levels for c in level if _blocked(c, decoded, caches, touched))
            heads = frozenset().union(*(c.heads for c in rerun))
            moved = key & decoded.heads
            forget = heads | decoded.demand
            drop = forget | key | V.VIRTUAL_RELATIONS | {V.HOLE}
            altered = key | heads
            keep = tuple(not fixed and reads.isdisjoint(altered) for _, _, reads, fixed in groups)
            plan = self.plans[key] = Plan(rerun, heads, drop, heads | moved, forget, moved, tuple(sorted(forget)), keep)
        return plan


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
    flat: list | None = None  # (rule index, full variant) per rule when no rule reads a head or a demand relation


def run_component(ctx: Context, book: RuleBook, comp: Component, demand_reads: dict) -> None:
    """``run_rules`` over a component's rules.  A component none of whose rules reads its own heads
    (positively) or calls a demand relation is done after one pass: this runs that pass and the two
    installs ``run_rules`` makes, with the variants looked up once per component."""
    flat = comp.flat
    if flat is None and not ctx.naive:
        heads = comp.heads
        demand = ctx.decoded.demand
        if not any(rule.clause.body[pos].rel in heads for rule in comp.rules for pos in rule.positive) and not any(
            lit.rel in demand for rule in comp.rules for lit, _ in _body_literals(rule)
        ):
            flat = comp.flat = [(r.index, book.variant(r, -1, heads, demand, False)) for r in comp.rules]
        else:
            flat = comp.flat = []
    if not flat or ctx.naive:
        run_rules(ctx, book, comp.rules, demand_reads=demand_reads)
        return
    for rix, fn in flat:
        fn(ctx, rix)
    tables = ctx.tables
    for rel in comp.heads:
        table = tables.get(rel)
        if table is not None and type(table) is Table:
            table.clear_indexes()
    if ctx.flush():  # run_rules's next round reads no delta: it installs nothing
        ctx.prev = ctx.round
        ctx.flush()


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
    touched = store.touched_since(prev.changes)
    if touched is None:
        before = prev.versions
        now = store.versions
        touched = {rel for rel, n in now.items() if before.get(rel, 0) != n}
        if len(before) != len(now):
            touched |= {rel for rel in before if rel not in now}
    return _with_metadata(store, prev, touched), prev


def _with_metadata(store: Store, prev: Previous, touched: set) -> set:
    """``touched`` with the fact metadata relations that changed with it."""
    if touched:
        touched |= V.VIRTUAL_RELATIONS if store.owned != prev.owned else V.VIRTUAL_RELATIONS - {V.ASSERTED_BY}
    elif store.owned != prev.owned:
        touched = set(V.VIRTUAL_RELATIONS)
    return touched


def _quiet(store: Store, caches: Caches, limit: int, goals: frozenset | None):
    """``(decoded, stratification, schedule, reuse)`` without looking anything up again, when what
    changed since the last complete evaluation (known from ``Store.touched_since``) is none of what
    the rules, the stratification and the dead rules are read from: then all four are the last
    evaluation's (a tick that changes domain facts only).  None otherwise."""
    prev = caches.last
    if prev is None or not caches.carry:
        return None
    schedule = cast("Schedule | None", prev.schedule)
    hit = caches.strata
    if (
        schedule is None
        or schedule.goals != goals
        or schedule.dead is not caches.dead
        or prev.strata is not hit
        or hit is None
        or hit.steps > limit
        or caches.dead_blind
    ):
        return None
    if prev.changes != store.dirty_since:  # as _reusable and _with_metadata, without copying sets
        return None
    dirty = store.dirty
    if dirty:
        key = frozenset(dirty) | (V.VIRTUAL_RELATIONS if store.owned != prev.owned else _UNOWNED_METADATA)
    elif store.owned != prev.owned:
        key = V.VIRTUAL_RELATIONS
    else:
        key = frozenset()
    quiet = schedule.quiet.get(key)
    if quiet is None:
        if len(schedule.quiet) >= 256:
            schedule.quiet.clear()
        cone_set = caches.cones.get(_STRATA_GOALS)
        guards = caches.guards
        quiet = schedule.quiet[key] = (
            cone_set is not None
            and guards is not None
            and key.isdisjoint(cone_set)
            and key.isdisjoint(guards[1])
            and key.isdisjoint((V.RULE, V.PREMISE_LIT, V.CONCLUSION_LIT))
        )
    if not quiet:
        return None
    decoded = cast("Context", prev.ctx).decoded
    rules = caches.rules
    if rules is None or rules.decoded is not decoded:
        return None
    strat = Outcome(None, hit.strata, [], False)
    strat.steps = hit.steps
    return decoded, strat, schedule, (key, prev)


_UNOWNED_METADATA = V.VIRTUAL_RELATIONS - {V.ASSERTED_BY}  # what changes with facts that name no asserter


def evaluate(
    store: Store,
    book: RuleBook,
    limit: int,
    naive: bool = False,
    goals: set[str] | None = None,
    caches: Caches | None = None,
    lean: bool = False,
) -> Outcome:
    """Evaluate every rule of the store (or only those the ``goals`` relations depend on); ``lean``: the
    relations that can keep no record of their installed facts do (``Context.lean_records``), for an
    evaluation no tick's history records.

    The cyclic garbage collector is paused while it runs (an evaluation allocates millions of
    acyclic tuples, and each collection would walk them all again: a quarter of a closure's time);
    only the call that paused it resumes it, so concurrent evaluations never leave it off.  What the
    evaluation allocated is then moved to the oldest generation unwalked (``engine.base.collector``)."""
    with paused_collection():
        return _evaluate(store, book, limit, naive, goals, caches, lean)


def _evaluate(
    store: Store,
    book: RuleBook,
    limit: int,
    naive: bool,
    goals: set[str] | None,
    caches: Caches | None,
    lean: bool,
) -> Outcome:
    caches = caches if caches is not None else Caches()
    prev = caches.last
    if prev is not None and prev.naive == naive:
        quiet = _quiet(store, caches, limit, None if goals is None else frozenset(goals))
        if quiet is not None:
            out = _carried(_Job(store, book, quiet[0], limit, naive, caches, quiet[1], quiet[2], lean), quiet[3])
            if out is not None:
                return out
    decoded = book.rules(store, caches)
    reuse = _reusable(store, decoded, naive, caches)
    strat = _stratification(store, book, decoded, limit, caches, reuse)
    if strat.unstratified:
        return strat
    dead = dead_rules(store, decoded, caches, None if reuse is None else reuse[0])
    schedule = _schedule(decoded, strat.strata, goals, caches, dead)
    job = _Job(store, book, decoded, limit, naive, caches, strat, schedule, lean)
    out = None
    if caches.carry and reuse is not None and reuse[1].schedule is schedule and not strat.partial:
        out = _carried(job, reuse)
    if out is None:
        out = _afresh(job, reuse)
    return out


@dataclass(frozen=True, slots=True)
class _Job:
    """What an evaluation runs on once it is stratified and scheduled: ``_carried`` takes it, or failing
    that ``_afresh``."""

    store: Store
    book: RuleBook
    decoded: DecodedRules
    limit: int
    naive: bool
    caches: Caches
    strat: Outcome
    schedule: Schedule
    lean: bool = False

    def context(self, reuse: tuple | None, carry: tuple | None = None) -> Context:
        """A fresh context over the store's base facts (those tables ``reuse`` allows shared)."""
        return Context(
            self.store,
            self.decoded,
            self.limit,
            self.naive,
            _base_tables(self.store, self.decoded, reuse),
            carry,
            self.lean,
        )


def _carried(job: _Job, reuse: tuple) -> Outcome | None:
    """The evaluation when the last complete one ran the same schedule: its results are carried over
    whole (``Context._carry``) and only the components ``Schedule.plan`` names run again, so the cost
    is that of what changed, not of the number of components or relations (a tick).

    The components taken over are charged what they cost up front.  When the budget holds it all, every
    component was within the budget at its turn in schedule order too, so the outcome is the one
    ``_afresh`` computes; when it does not (None), ``_afresh`` runs instead and cuts where it cuts."""
    touched, prev = reuse
    groups = job.schedule.staged_groups(job.book, job.decoded, job.naive)
    plan = job.schedule.plan(job.decoded, job.caches, touched, groups)
    ctx = job.context(reuse, (prev.ctx, plan))
    costs = dict(prev.costs)
    reused = prev.total
    for comp in plan.rerun:
        reused -= prev.costs.get(comp.key, 0)
    ctx.steps = job.strat.steps + reused
    ctx.saved = (job.strat.steps if job.strat.ctx is None else 0) + reused
    total = reused
    try:
        if ctx.steps > ctx.limit:
            return None
        for comp in plan.rerun:
            before = ctx.steps
            run_component(ctx, job.book, comp, job.schedule.demand_reads)
            spent = ctx.steps - before
            total += spent
            for rel in comp.heads:
                costs[rel] = spent
        # the @next rules, by head: what those that read nothing that changed stage is taken over
        before_ctx = prev.ctx
        last_costs = prev.staged_costs
        staged_costs: dict[str, int] = {}
        staged, staged_mores = ctx.staged_provs, ctx.staged_mores
        for (head, fns, _, _), keep in zip(groups, plan.keep):
            cost = last_costs.get(head) if keep else None
            if cost is not None:  # charged as work performed, as running them is (a run's budget counts work)
                ctx.steps += cost
                found = before_ctx.staged_provs.get(head)
                if found is not None:
                    staged[head] = found
                found = before_ctx.staged_mores.get(head)
                if found is not None:
                    staged_mores[head] = found
            else:
                before = ctx.steps
                for rix, fn in fns:
                    fn(ctx, rix)
                cost = ctx.steps - before
            staged_costs[head] = cost
    except BudgetExhausted:
        return None
    if ctx.steps > ctx.limit:
        return None
    ctx.finished = True
    _remember(job.caches, ctx, prev.heads, costs, job.schedule, total, staged_costs)
    return Outcome(ctx, job.strat.strata, [], False)


def _remember(
    caches: Caches, ctx: Context, heads: frozenset, costs: dict, schedule: Schedule, total: int, staged_costs: dict
) -> None:
    """Keep a complete evaluation for the next one to start from (``Caches.last``); the store's changes
    are seen from now on."""
    store = ctx.store
    caches.last = Previous(
        ctx.decoded.ids,
        dict(store.versions),
        ctx.naive,
        ctx,
        heads,
        costs,
        store.owned,
        store.changes,
        schedule,
        total,
        caches.strata,
        staged_costs,
    )
    store.mark_clean()


def _afresh(job: _Job, reuse: tuple | None) -> Outcome:
    """The evaluation component by component, in schedule order: a component none of whose inputs
    changed since the last complete evaluation is taken over from it while the budget holds its cost."""
    ctx = job.context(reuse)
    ctx.steps = job.strat.steps
    ctx.saved = job.strat.steps if job.strat.ctx is None else 0
    out = Outcome(ctx, job.strat.strata, [], job.strat.partial)
    derived: set[str] = set()
    costs: dict[str, int] = {}
    staged_costs: dict[str, int] = {}
    total = 0
    try:
        if job.strat.partial:
            raise BudgetExhausted()
        touched, prev = reuse if reuse is not None else (set(), None)
        for level in job.schedule.levels:
            for comp in level:
                heads = comp.heads
                derived |= heads
                if prev is not None and heads <= prev.heads and not _blocked(comp, job.decoded, job.caches, touched):
                    cost = prev.costs.get(comp.key, 0)
                    if ctx.steps + cost <= ctx.limit:  # reuse charges what the component cost
                        ctx.steps += cost
                        ctx.saved += cost
                        total += cost
                        before_ctx = prev.ctx
                        for rel in heads:
                            ctx.tables[rel] = before_ctx.tables[rel]
                            if rel in before_ctx.provs:
                                ctx.provs[rel] = before_ctx.provs[rel]
                            if rel in before_ctx.mores:
                                ctx.mores[rel] = before_ctx.mores[rel]
                            if rel in before_ctx.components:
                                ctx.components[rel] = before_ctx.components[rel]
                            costs[rel] = cost
                        continue
                before = ctx.steps
                run_rules(ctx, job.book, comp.rules, demand_reads=job.schedule.demand_reads)
                total += ctx.steps - before
                for rel in heads:
                    costs[rel] = ctx.steps - before
        for rule, fn in job.schedule.staged_variants(job.book, job.decoded, job.naive):
            before = ctx.steps
            fn(ctx, rule.index)
            head = rule.clause.head.rel
            staged_costs[head] = staged_costs.get(head, 0) + ctx.steps - before
    except BudgetExhausted:
        out.partial = True
        ctx.flush()
    ctx.partial = out.partial
    ctx.finished = True
    if out.partial:
        job.caches.last = None
    else:
        _remember(job.caches, ctx, frozenset(derived), costs, job.schedule, total, staged_costs)
    return out

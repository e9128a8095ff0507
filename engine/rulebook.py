"""Rules read back from the store's reflected facts, classified, and compiled once per shape."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import vocabulary as V
from .caches import RulesEntry
from .clauses import NEXT, Clause, Literal, body_literals, scope_aggregates
from .plan import CompiledRule, UnsafeRule, again, check_demand_safe, compile_variant, range_restricted
from .reflect import WANTS, item_from_term, literal_from_term, well_formed
from .store import Store


@dataclass(frozen=True, slots=True)
class DecodedRules:
    """The evaluable rules of a store, in canonical (rule id) order."""

    rules: tuple  # CompiledRule, index == position
    demand: frozenset  # relation names evaluated top-down at call sites
    skipped: tuple  # (rule_id, reason) for rules that cannot run (damaged or unsafe)
    heads: frozenset = frozenset()  # the relations the rules conclude (their @next heads included)
    ids: tuple = ()  # the rule ids, in order
    by_demand: dict = field(default_factory=dict)  # demand relation -> its rules
    # relation -> its rules' indexes and whether it can be lean (``Context.lean_records``), filled when asked
    by_head: dict = field(default_factory=dict)


def decode(store: Store) -> tuple[list[tuple[str, Clause]], list[tuple[str, str]]]:
    """Rebuild clauses from ``rule``, ``premise_lit`` and ``conclusion_lit`` facts."""
    ids = sorted(
        row[1][0] for row in store.base.get(V.RULE, {}) if len(row) == 2 and type(row[1]) is tuple and len(row[1]) == 1
    )
    premises: dict[str, list] = {}
    for row in store.base.get(V.PREMISE_LIT, {}):
        if len(row) == 4 and type(row[1]) is tuple and type(row[2]) is int:
            premises.setdefault(row[1][0], []).append((row[2], row[3]))
    heads: dict[str, list] = {}
    for row in store.base.get(V.CONCLUSION_LIT, {}):
        if len(row) == 4 and type(row[1]) is tuple:
            heads.setdefault(row[1][0], []).append(row[3])
    out: list[tuple[str, Clause]] = []
    skipped: list[tuple[str, str]] = []
    for rid in ids:
        concl = heads.get(rid, [])
        prem = sorted(premises.get(rid, []), key=lambda kv: kv[0])
        if len(concl) != 1:
            skipped.append((rid, "no single conclusion"))
            continue
        if not prem:
            skipped.append((rid, "no premise"))
            continue
        head_term = concl[0]
        if isinstance(head_term, tuple) and head_term[0] == WANTS:
            continue  # want rules run in the adapter runtime, not in the kernel's fixpoint
        try:
            head = literal_from_term(head_term)
            body = tuple(item_from_term(t) for _, t in prem)
        except (ValueError, KeyError, IndexError, TypeError):
            skipped.append((rid, "unreadable reflection"))
            continue
        if not well_formed(head_term) or not all(well_formed(t) for _, t in prem):
            skipped.append((rid, "a variable without a name"))
            continue
        out.append((rid, Clause(head, scope_aggregates(head, body))))
    return out, skipped


class RuleBook:
    """Compiles rules into generated join code and keeps the compiled variants across evaluations."""

    def __init__(self) -> None:
        self._cache: dict = {}
        self._rels: dict[str, frozenset] = {}  # rule id -> the relations its body reads

    def rules(self, store: Store, caches) -> DecodedRules:
        """The store's rules, decoded again only when a reflection relation changed (``caches``: the
        kernel's ``engine.caches.Caches``)."""
        versions = store.versions
        key = (versions.get(V.RULE, 0), versions.get(V.PREMISE_LIT, 0), versions.get(V.CONCLUSION_LIT, 0))
        hit = caches.rules
        if hit is not None and hit.key == key:
            return hit.decoded
        decoded = self._decode(store)
        caches.rules = RulesEntry(key, decoded)
        return decoded

    def _decode(self, store: Store) -> DecodedRules:
        clauses, skipped = decode(store)
        usable: list[tuple[str, Clause]] = []
        demand: set[str] = set()
        for rid, clause in clauses:
            if clause.head.rel in V.RESERVED_SET:
                skipped.append((rid, f"concludes into reserved relation {clause.head.rel}"))
                continue
            if not range_restricted(clause):
                try:
                    check_demand_safe(clause)
                except UnsafeRule as exc:
                    skipped.append((rid, str(exc)))
                    continue
                demand.add(clause.head.rel)
            usable.append((rid, clause))
        compiled = tuple(CompiledRule(rid, i, c, _positive(c)) for i, (rid, c) in enumerate(usable))
        heads = frozenset(r.clause.head.rel for r in compiled)
        by_demand: dict[str, list] = {}
        for rule in compiled:
            if rule.clause.head.rel in demand:
                by_demand.setdefault(rule.clause.head.rel, []).append(rule)
        ids = tuple(r.rid for r in compiled)
        return DecodedRules(compiled, frozenset(demand), tuple(skipped), heads, ids, by_demand)

    def variant(self, rule: CompiledRule, delta: int, recursive: frozenset, demand: frozenset, naive: bool):
        if len(rule.positive) > MAX_COMPILED_PREMISES:
            return interpreted(rule)
        rels = self._rels.get(rule.rid)
        if rels is None:
            rels = self._rels[rule.rid] = _body_rels(rule.clause)
        key = (rule.rid, delta, recursive & rels, demand & rels, naive)
        fn = self._cache.get(key)
        if fn is None:
            fn = self._cache[key] = compile_variant(rule, delta, key[2], demand, naive)
        return fn


# Generated code nests one loop per positive premise; Python allows 20 nested blocks in a function.
MAX_COMPILED_PREMISES = 12


def interpreted(rule: CompiledRule):
    """A rule too wide to compile runs through the top-down solver over the full tables each round;
    firings are deduplicated, so every distinct firing still counts once."""
    head = rule.clause.head
    staged = head.temporal == NEXT

    def run(ctx, rix: int) -> None:
        from .demand import Demand

        prov = ctx.staged(head.rel) if staged else ctx.prov(head.rel)
        rows = ctx.rows(head.rel)
        new = ctx.new(head.rel)
        for binding, wit in ctx.demand.solve(rule.clause.body, 0, {}, ()):
            row = Demand.ground_head(head, binding)
            if row is None:
                continue
            firing = (rix, row, wit)
            if firing in ctx.seen:
                continue
            ctx.seen.add(firing)
            ctx.demand.step()
            rec = prov.get(row)
            if rec is None:
                prov[row] = (rix, *wit)
                if not staged and row not in rows:
                    new.append(row)
            else:
                again(ctx.staged_more(head.rel) if staged else ctx.more(head.rel), row, rec, rix)

    return run


def _positive(clause: Clause) -> tuple[int, ...]:
    return tuple(i for i, item in enumerate(clause.body) if isinstance(item, Literal))


def _body_rels(clause: Clause) -> frozenset:
    return frozenset(lit.rel for lit, _ in body_literals(clause.body))

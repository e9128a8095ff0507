"""The kernel API: load programs, assert and retract facts, evaluate, ask, explain, excise, tick.

A runtime (adapters, a server) drives a world through this class: it asserts answers into a book's
perspective with ``assert_fact(..., who=...)`` between evaluations and reads the results with
``query``.  Every evaluation, query, load and tick is bounded by a step budget.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from . import builtins as B
from . import vocabulary as V
from .base import events
from .base.collector import paused_collection
from .base.errors import LoadRejected, RoflError
from .caches import Caches
from .catalog import Signature
from .clauses import Clause, Literal, is_var
from .costs import DEFAULT_BUDGET as DEFAULT_BUDGET  # defined with what steps cost
from .evaluate import Outcome, evaluate
from .namespace import qualify, stored_name
from .parse import parse_program
from .plan import UnsafeRule, check_demand_safe, range_restricted
from .query import Question
from .reflect import reflect
from .result import Result
from .rulebook import RuleBook
from .store import Store
from .terms import Term, canonical_facts, canonical_rows, fact_key, format_fact, format_term, sort_key

_RUN_COLLECT = 200_000  # young objects a run of ticks lets pile up before it collects them


@dataclass(frozen=True, slots=True)
class Answers:
    """The substitutions that satisfy a query, canonically sorted; ``partial`` when a budget ran out."""

    variables: tuple[str, ...]
    rows: tuple[tuple, ...]
    partial: bool

    def as_dicts(self) -> list[dict[str, Term]]:
        return [dict(zip(self.variables, r)) for r in self.rows]


@dataclass(frozen=True, slots=True)
class RunReport:
    """A run of ticks: the collected facts per tick, how many ticks ran, and how it ended."""

    ticks: int
    quiescent: bool
    partial: bool
    collected: tuple  # ((tick, (canonical fact text, ...)), ...)


@dataclass(frozen=True, slots=True)
class TickReport:
    tick: int  # the tick that was installed
    installed: tuple  # ((rel, row), ...) canonically sorted
    quiescent: bool
    partial: bool


def _debug_log():
    """The kernel's logger when it logs each evaluation's cost (`rofl -vv`: ``rofl.logs``), else None.
    Without ``logging`` imported by the program nothing can have turned it on, so the kernel never imports
    it (1 MB of every process that embeds the kernel)."""
    logging = sys.modules.get("logging")
    if logging is None:
        return None
    log = logging.getLogger(__name__)
    return log if log.isEnabledFor(logging.DEBUG) else None


class Kernel:
    def __init__(self, boot: str | Path | None = None, budget: int = DEFAULT_BUDGET, naive: bool = False) -> None:
        self._caches = Caches()
        self._store = Store()
        self._result: Result | None = None
        self.book = RuleBook()
        self.budget = budget
        self.naive = naive
        self.declared: frozenset[Signature] = frozenset()  # relations known with no rows (``declare``)
        self._origins: dict[str, str] = {}  # rule id -> "file:line:col" it was loaded from (for messages)
        # rel -> (its staged records, their rows as derived, sorted, the rules, its part of _staged's lists)
        self._staged_memo: dict[str, tuple] = {}
        journal: list = []
        for rel in V.RESERVED_RELATIONS:
            self._add(V.RESERVED, ("main", (rel,)), None, journal)
            self._add(V.EDB, ("main", (rel,)), None, journal)
        for op, modes in B.MODES:
            self._add(V.MODE, ("main", op, modes), None, journal)
        if boot is not None:
            self.load_boot(boot)

    @property
    def store(self) -> Store:
        return self._store

    @store.setter
    def store(self, store: Store) -> None:
        """Start from another store (a restored or cached one): every cache and result is forgotten."""
        self._store = store
        self._caches.clear()
        self._result = None

    def declare(self, signatures: Iterable[tuple[str, str, int]]) -> None:
        """Know each ``(rel, persp, arity)`` as a relation even when no fact and no rule defines it: a
        question over it answers no rows instead of "no relation" (a loader's vocabulary).  A relation of
        a namespaced perspective ([audit]) is known under its stored name, as a question's literal names it."""
        self.declared = self.declared | {Signature(stored_name(r, p), p, n) for r, p, n in signatures}

    def load_boot(self, path: str | Path) -> None:
        """Load the boot program: the one source that may conclude into the private perspective [boot]."""
        self.load_sources([(Path(path), None)], evaluate_now=False, private=True)

    # -- loading -----------------------------------------------------------------------------------
    def load_file(self, path: str | Path, who: str | None = None) -> Result:
        self.load_sources([(Path(path), who)])
        return self._evaluated()

    def load_text(self, text: str, source: str = "<input>", who: str | None = None) -> Result:
        self.add_clauses(parse_program(text, source), who, source)
        return self._evaluated()

    def load_sources(self, sources: list, evaluate_now: bool = True, private: bool = False) -> Result | None:
        """Parse and add the files one by one (a syntax error in any of them loads nothing: what the
        others added is rolled back), then evaluate once.  Only one file's clauses are alive at a time,
        so loading a large scan costs its facts, not their parsed form too.

        A source is ``(path, who)``, or ``(path, who, text)`` when the caller has read the file already.
        Only a ``private`` load (boot's) may conclude into perspective [boot].
        """
        journal: list = []
        try:
            for source in sources:
                path, who = source[0], source[1]
                text = source[2] if len(source) > 2 else _read_text(path)
                self._add_clauses(parse_program(text, str(path)), who, str(path), journal, private)
        except RoflError:  # a syntax error, an unreadable file, a rejected rule
            self.store.rollback(journal)
            self._result = None
            raise
        if not evaluate_now:
            self._result = None
            return None
        return self._evaluate_or_rollback(journal)

    def add_clauses(
        self, clauses: list[Clause], who: str | None = None, source: str = "<input>", evaluate_now: bool = True
    ) -> Result | None:
        journal: list = []
        try:
            self._add_clauses(clauses, who, source, journal)
        except LoadRejected:
            self.store.rollback(journal)
            self._result = None
            raise
        return self._evaluate_or_rollback(journal) if evaluate_now else None

    def _add_clauses(
        self, clauses: list[Clause], who: str | None, source: str, journal: list, private: bool = False
    ) -> None:
        registered: set = set()  # (rel, persp) pairs whose edb and authority facts were emitted
        add = self.store.add
        for c in clauses:
            if c.head.persp == V.PRIVATE_PERSP and not private:
                raise LoadRejected(
                    f"{source}:{c.line}:{c.col}: perspective [{V.PRIVATE_PERSP}] is private to boot.rofl; "
                    "conclude into another perspective (rules may read [boot])"
                )
            c = qualify(c)
            if not c.body and not c.want:
                head = c.head
                rel, row, by = _claimed(head.rel, (head.persp, *head.args), who)
                if add(rel, row, by, journal):
                    self._result = None
                    if (rel, row[0]) not in registered:
                        registered.add((rel, row[0]))
                        self._add(V.EDB, ("main", (rel,)), None, journal)
                        self._register(row[0], journal)
                continue
            where = f"{source}:{c.line}:{c.col}"
            if c.head.rel in V.RESERVED_SET:
                raise LoadRejected(
                    f"{where}: a rule may not conclude into reserved relation '{c.head.rel}'; rename the head"
                )
            if not c.want and not range_restricted(c):
                try:
                    check_demand_safe(c)
                except UnsafeRule as exc:
                    raise LoadRejected(
                        f"{where}: unsafe rule: {exc}; bind every variable with a positive premise first"
                    ) from None
            rid, facts = reflect(c)
            self._origins.setdefault(rid, where)
            # a rule is its content: one that a program with no identity already holds is that
            # program's rule, and a copy of it loaded by someone derives nothing it does not
            trusted = who is not None and self._held_without_identity(rid)
            for rel, row in facts:
                self._add(rel, row, None, journal)
            if who is not None and not trusted:  # who loaded the rule: the audits check its authority over its head
                self._add(V.LOADED_BY, ("main", (rid,), (who,)), None, journal)
            for p in _perspectives(c):
                self._register(p, journal)

    def _held_without_identity(self, rid: str) -> bool:
        """Whether the store holds rule ``rid`` loaded by a program with no identity (no loaded_by row)."""
        base = self.store.base
        if ("main", (rid,)) not in base.get(V.RULE, {}):
            return False
        return not any(row[1] == (rid,) for row in base.get(V.LOADED_BY, {}))

    def _add(self, rel: str, row: tuple, who: str | None, journal: list) -> bool:
        if self.store.add(rel, row, who, journal):
            self._result = None
            return True
        return False

    def _register(self, persp: str, journal: list) -> None:
        """On first use of a perspective, emit authority(P, $kernel)."""
        self._add(V.AUTHORITY, ("main", (persp,), (V.KERNEL_WHO,)), None, journal)

    def _assert(self, rel: str, row: tuple, who: str | None, journal: list) -> bool:
        rel, row, who = _claimed(rel, row, who)
        if not self._add(rel, row, who, journal):
            return False
        self._add(V.EDB, ("main", (rel,)), None, journal)
        self._register(row[0], journal)
        return True

    def assert_fact(self, rel: str, persp: str, args: tuple, who: str | None = None) -> bool:
        """Assert one base fact (no evaluation until the next question)."""
        return self._assert(rel, (persp, *args), who, [])

    def assert_rows(self, rel: str, persp: str, rows: Iterable[tuple], who: str | None = None) -> int:
        """Assert every stored row ``(persp, *args)`` of ``rows`` as a fact of ``rel`` at once (no evaluation
        until the next question), as loading ``rel[persp](*args)`` asserts it; the number new.  Every row
        must be in ``persp``, a perspective of no namespace, and ``rel`` a plain relation (a scan's [code]
        rows): anything else is a ``LoadRejected``."""
        if rel in V.RESERVED_SET or rel == V.AUTHORITY or persp in V.NAMESPACES:
            raise LoadRejected(f"assert_rows takes plain facts, not {rel}[{persp}]; load them as a program")
        added = self.store.add_many(rel, rows, who)
        if added:
            self._result = None
            self._add(V.EDB, ("main", (rel,)), None, [])
            self._register(persp, [])
        return added

    def retract(self, rel: str, persp: str, args: tuple) -> bool:
        removed = self.store.remove(rel, (persp, *args))
        if removed:
            self._result = None
        return removed

    def _evaluate_or_rollback(self, journal: list) -> Result:
        outcome = self._run_evaluation("load")
        if outcome.unstratified:
            trace = self._unstratified_trace(outcome)
            message = self._unstratified_message(outcome)
            self.store.rollback(journal)
            self._result = None
            raise LoadRejected(message + "; the load was rolled back", trace)
        return self._evaluated()

    def _unstratified_message(self, outcome: Outcome) -> str:
        names = sorted({format_term(r[1]) for r in outcome.unstratified})
        aggregate = self._aggregate_cycle({r[1][0] for r in outcome.unstratified if type(r[1]) is tuple})
        if aggregate is not None:
            return aggregate
        return f"unstratified: negation inside a recursive cycle through {', '.join(names)}"

    def _aggregate_cycle(self, heads: set) -> str | None:
        """``file:line:col: ...`` naming the first aggregate rule (canonical order) whose head is
        unstratified and whose aggregated relation leads back to it, with the cycle; None if none."""
        from .aggregates import dependency_cycle
        from .clauses import Aggregate
        from .namespace import display_name

        rules = self.book.rules(self.store, self._caches).rules
        for rule in rules:
            head = rule.clause.head.rel
            if head not in heads:
                continue
            for item in rule.clause.body:
                if not isinstance(item, Aggregate):
                    continue
                cycle = dependency_cycle(rules, head, item)
                if cycle is None:
                    continue
                where = self._origins.get(rule.rid, f"rule {rule.rid}")
                path = " -> ".join(display_name(r) for r in cycle)
                return (
                    f"{where}: {item.op} over {display_name(cycle[1])} depends on its own head "
                    f"{display_name(head)} (cycle {path}); aggregate only relations of a lower stratum"
                )
        return None

    def _unstratified_trace(self, outcome: Outcome) -> str:
        from .explain import explain_text

        rows = sorted(outcome.unstratified, key=fact_key)[:3]
        assert outcome.ctx is not None  # an unstratified outcome was computed, not reused
        return "\n".join(explain_text(outcome.ctx, self.store, V.BOOT_UNSTRATIFIED, row) for row in rows)

    # -- evaluation --------------------------------------------------------------------------------
    def _run_evaluation(self, kind: str, limit: int | None = None, goals: set[str] | None = None) -> Outcome:
        budget = self.budget if limit is None else limit
        outcome = evaluate(self.store, self.book, budget, self.naive, goals, self._caches, lean=kind != "tick")
        if outcome.unstratified:
            self._result = None
            return outcome
        if outcome.partial:
            self._hole(kind, outcome.ctx)
        hit = self._caches.strata
        view = hit.view if hit is not None and hit.strata is outcome.strata else None
        self._result = Result.of(outcome.ctx, outcome.strata, outcome.partial, goals, view)
        log = _debug_log()
        if log is not None:
            asked = "every relation" if goals is None else ", ".join(sorted(goals))
            done = f"{self._result.steps} steps ({self._result.work} performed)"
            log.debug("%s evaluation of %s: %s%s", kind, asked, done, ", partial" if outcome.partial else "")
        return outcome

    def _hole(self, kind: str, ctx) -> None:
        counters = self.store.counters
        if kind == "tick":
            qid: tuple = ("$tick", self.store.tick)
        else:
            key = "load" if kind == "load" else "q"
            counters[key] = counters.get(key, 0) + 1
            qid = (f"${key}", counters[key])
        row = ("main", qid, (V.BUDGET_EXHAUSTED,))
        self.store.add(V.HOLE, row, None)
        ctx.table(V.HOLE).add(row, -1)

    def invalidate(self) -> None:
        """Forget the current evaluation; the next question evaluates again (e.g. under a new budget)."""
        self._result = None

    def evaluate(self, limit: int | None = None, goals: set[str] | None = None) -> Result:
        """The evaluation of the store: every relation, or only what the ``goals`` relations depend on.

        The last result is reused while nothing changed and it covers the goals; ``limit`` forces a new
        evaluation under that budget."""
        r = self._result
        if r is not None and limit is None and (r.goals is None or (goals is not None and set(goals) <= r.goals)):
            return r
        outcome = self._run_evaluation("load", limit, goals)
        if outcome.unstratified:  # facts or rules added without an evaluation made it unstratifiable
            raise LoadRejected(self._unstratified_message(outcome), self._unstratified_trace(outcome))
        return self._evaluated()

    def _evaluated(self) -> Result:
        """The result the evaluation just run stored (it is None only after an unstratified one)."""
        assert self._result is not None, "no evaluation result"
        return self._result

    @property
    def current(self) -> Result | None:
        """The last evaluation, if it is still current (no evaluation is started)."""
        return self._result

    def names_in(self, persp: str) -> set[str]:
        """The stored names of the relations that rules conclude, or base facts hold, in perspective ``persp``."""
        from .clauses import is_var

        names = {
            r.clause.head.rel
            for r in self.book.rules(self.store, self._caches).rules
            if not is_var(r.clause.head.persp) and r.clause.head.persp == persp
        }
        store, seen = self.store, self._caches.persps  # each relation's perspectives, read again when it changes
        for rel in store.relations():
            version = store.versions.get(rel, 0)
            known = seen.get(rel)
            if known is None or known[0] != version:
                known = seen[rel] = (version, frozenset([row[0] for row in store.base[rel]]))
            if persp in known[1]:
                names.add(rel)
        return names

    def rows(self, relation: str, persp: str | None = None) -> tuple[tuple, ...]:
        """The asserted (base) rows ``(persp, *args)`` of ``relation``, in ``persp`` when given."""
        facts = self.store.base.get(stored_name(relation, persp), {})
        return tuple(facts) if persp is None else tuple(r for r in facts if r[0] == persp)

    def drop_relations(self, keep: Callable[[str], bool]) -> None:
        """Forget every asserted fact of each stored relation that ``keep`` refuses (a loader's placeholders)."""
        for rel in [r for r in self.store.base if not keep(r)]:
            del self.store.base[rel]
            self.store.touch(rel)
            self.store.owned += 1  # asserted_by's version: some of those facts may have named who asserted them
            self._result = None

    @property
    def outcome(self) -> Result:
        """The current evaluation of every relation."""
        return self.evaluate()

    # -- questions ---------------------------------------------------------------------------------
    def question(self, text: str | Literal | tuple) -> Question:
        """Parse (when text) and check a question: every literal's relation must be defined, and it must be safe."""
        from .catalog import check_literal
        from .parse import parse_body
        from .query import plan

        if isinstance(text, str):
            items = parse_body(text, "<query>")
        elif isinstance(text, Literal):
            items = (text,)
        else:
            items = tuple(text)
        question = plan(items)
        decoded = self.book.rules(self.store, self._caches)
        for lit in question.literals:
            check_literal(self.store, decoded, lit, self.declared)
        return question

    def query(
        self,
        literal: Literal | str | tuple,
        budget: int | None = None,
        goals: set[str] | None = None,
        demand: bool = True,
    ) -> Answers:
        """All answers to a question (a literal, or a conjunction of literals, negations and builtins).

        When a literal binds arguments of a linearly recursive relation that is not evaluated
        yet, that relation is computed for those arguments only (``engine.magic``; ``demand=False``
        evaluates it whole).  Raises UnknownRelation for a relation nothing defines where it is asked,
        UnsafeQuery for a question with a variable no positive literal binds.  The rows pay for their
        text (``engine.costs.affordable``) in the order found: past the budget the answer is partial.
        """
        question = self.question(literal)
        plan, at, goals = self._demand_plan(question, goals) if demand else (None, 0, goals)
        outcome = self.evaluate(goals=goals)
        ctx = outcome._ctx
        names = list(question.variables)
        partial = outcome.partial
        from .costs import affordable
        from .demand import Demand
        from .plan import BudgetExhausted

        saved = ctx.limit
        ctx.limit = ctx.steps + (self.budget if budget is None else budget)
        found: dict = {}
        cut = False
        try:
            if any(lit.rel == V.DERIVED_BY for lit in question.literals):
                ctx.refresh_virtual()
            solver: Demand = ctx.demand
            if plan is not None:
                from .magic import demanded_rows

                first = question.items[at]  # asked first: it only binds more, earlier
                others = question.items[:at] + question.items[at + 1 :]
                key = tuple(B.substitute(first.args[i], {}) for i in plan.bound)
                for row in demanded_rows(plan, ctx, key) if None not in key else ():
                    b0 = solver.unify_row(first, row, {})
                    if b0 is not None:
                        for b, _ in solver.solve(others, 0, b0, (), charge=False):
                            found[tuple(b.get(n) for n in names)] = None
            else:
                for b, _ in solver.solve(question.items, 0, {}, (), charge=False):
                    found[tuple(b.get(n) for n in names)] = None
        except BudgetExhausted:
            partial = cut = True
            self._hole("query", ctx)
        finally:
            room = ctx.limit - ctx.steps
            ctx.limit = saved
        kept = affordable(found, room)  # the rows pay for their text in the order found, before sorting
        if kept < len(found):
            if not cut:
                partial = True
                self._hole("query", ctx)
            found = dict.fromkeys(list(found)[:kept])
        rows = sorted(found, key=lambda r: tuple(sort_key(v) for v in r))
        return Answers(tuple(names), tuple(rows), partial)

    def _demand_plan(self, question: Question, goals: set[str] | None):
        """``(plan, position, goals)``: the demand plan of the question's first positive literal that
        has one, its position, and the relations to evaluate instead of its relation; ``(None, 0,
        goals)`` when no literal has a plan or its relation is evaluated already or must be (another
        part of the question, or the goals, need it whole)."""
        from .evaluate import cached_cone
        from .magic import plan_demand

        current = self._result
        decoded = self.book.rules(self.store, self._caches)
        for at, item in enumerate(question.items):
            if not isinstance(item, Literal):
                continue
            if current is not None and (current.goals is None or item.rel in current.goals):
                continue
            plan = plan_demand(decoded, item)
            if plan is None or item.rel in Question(question.items[:at] + question.items[at + 1 :], ()).goals:
                continue
            rest = (set(goals) if goals is not None else question.goals) - {item.rel} | plan.reads
            if item.rel in cached_cone(decoded, self._caches, frozenset(rest)):
                continue
            return plan, at, rest
        return None, 0, goals

    def _checked(self, rel: str, persp: str, args: tuple) -> str:
        """The stored name of a fact's relation; UnknownRelation when nothing defines it there."""
        from .catalog import check_literal
        from .namespace import qualify_literal

        lit = qualify_literal(Literal(rel, persp, tuple(args)))
        check_literal(self.store, self.book.rules(self.store, self._caches), lit, self.declared)
        return lit.rel

    def why(self, rel: str, persp: str, args: tuple, goals: set[str] | None = None):
        """One derivation tree (``engine.explain.Node``) of a fact that holds, or None."""
        from .explain import holds, why

        rel = self._checked(rel, persp, args)
        row = (persp, *args)
        demanded = self._demanded_proof(rel, persp, tuple(args), goals)
        if demanded is not None:
            ctx, records = demanded
            return None if records is None else why(ctx, self.store, rel, row, demanded={rel: records})
        ctx = self.evaluate(goals=goals)._ctx
        return why(ctx, self.store, rel, row) if holds(ctx, rel, row) else None

    def _demanded_proof(self, rel: str, persp: str, args: tuple, goals: set[str] | None):
        """``(ctx, records)``: the fact's proof found by demand (``engine.magic.demanded_proof``) over an
        evaluation of what its linearly recursive relation reads, without evaluating that relation whole
        (records None: the fact holds nowhere, since the demanded rows are exactly the full evaluation's).
        None when there is no demand plan (the relation is evaluated already, or its rules do not allow
        one, or it passes the call through), or the budget ran out first: then the full evaluation
        answers, proof and all."""
        from .clauses import Literal
        from .magic import demanded_proof
        from .plan import BudgetExhausted

        question = self.question(Literal(rel, persp, args))
        plan, _, rest = self._demand_plan(question, goals)
        if plan is None or plan.passes:
            return None
        outcome = self.evaluate(goals=rest)
        if outcome.partial:
            return None
        ctx = outcome._ctx
        saved = ctx.limit
        ctx.limit = ctx.steps + self.budget
        try:
            return ctx, demanded_proof(plan, ctx, args)
        except BudgetExhausted:
            return None
        finally:
            ctx.limit = saved

    def whynot(self, rel: str, persp: str, args: tuple, goals: set[str] | None = None):
        """For a fact that does not hold, the failing premise of each rule that could conclude it."""
        from .explain import whynot

        rel = self._checked(rel, persp, args)
        return whynot(self.evaluate(goals=goals)._ctx, self.store, rel, (persp, *args))

    def relations(self) -> list:
        """Every relation that is defined or holds rows (``engine.catalog.RelationInfo``), with row counts."""
        from .catalog import inventory

        ctx = self.evaluate()._ctx
        ctx.refresh_virtual()
        for rel in V.VIRTUAL_RELATIONS:
            ctx.table(rel)
        return inventory(self.store, ctx.decoded, ctx.tables)

    def facts(self, rel: str | None = None) -> list[tuple[str, tuple]]:
        """Every fact that holds now (base and derived), canonically sorted; virtual relations excluded."""
        ctx = self.evaluate()._ctx
        out = []
        for name in [rel] if rel is not None else sorted(ctx.tables):
            if name in V.VIRTUAL_RELATIONS or name not in ctx.tables:
                continue
            for row in canonical_rows(ctx.tables[name].rows):
                out.append((name, row))
        return out

    def excise(self, rel: str, persp: str, args: tuple) -> tuple[list[str], list[str]]:
        """Facts lost and gained when base fact ``rel[persp](args)`` is removed, by re-evaluation."""
        row = (persp, *args)
        facts = self.store.base.get(rel)
        if facts is None or row not in facts:
            raise RoflError(f"{format_fact(rel, persp, args)} is not a base fact; excise takes an asserted fact")
        before_result = self.evaluate()
        demand = before_result._ctx.decoded.demand
        before = _fact_set(before_result._ctx, demand)
        meta = facts[row]
        self.store.remove(rel, row)
        try:
            after = _fact_set(evaluate(self.store, self.book, self.budget, self.naive, None, Caches()).ctx, demand)
        finally:
            self.store.base.setdefault(rel, {})[row] = meta
            self.store.owned += 1
            self.store.touch(rel)
        removed = canonical_facts(before - after)
        added = canonical_facts(after - before)
        return [format_fact(r, w[0], w[1:]) for r, w in removed], [format_fact(r, w[0], w[1:]) for r, w in added]

    # -- persistence -------------------------------------------------------------------------------
    def save(self, path: str | Path) -> int:
        from . import persist

        return persist.save(path, self.store, self.evaluate())

    @classmethod
    def restore(cls, path: str | Path, budget: int = DEFAULT_BUDGET, naive: bool = False) -> Kernel:
        """A kernel over a saved store (no source is parsed; rules come from their reflected facts)."""
        from . import persist

        kernel = cls(None, budget=budget, naive=naive)
        kernel.store = persist.load(path)
        return kernel

    # -- time --------------------------------------------------------------------------------------
    def tick(self, budget: int | None = None) -> TickReport:
        """Close the current tick: freeze provenance, drop its domain facts, install the staged ones."""
        result = self.evaluate()
        return self._advance(result, list(result.staged()), self.current_facts(), budget)[0]

    def _advance(
        self, result: Result, staged: list, current: list, budget: int | None, pairs: list | None = None
    ) -> tuple[TickReport, int]:
        """``tick`` with this tick's staged and current facts already read (``pairs``: the staged facts
        as ``(rel, row)``, when known).  Also returns the store's ``changes`` counter right after the
        staged facts were installed: while it reads the same, the current facts are the installed ones."""
        ctx = result._ctx
        store = self._store
        carried = None if ctx.carried is None else (ctx.carried, ctx.fresh)
        store.history.freeze(
            store.tick,
            ctx.provs,
            ctx.staged_provs,
            ctx.decoded.rules,
            ctx.mores,
            ctx.staged_mores,
            carried,
            ctx.rule_indexes,
        )
        ctx.release()
        if pairs is None:
            pairs = [(r, w) for r, w, _ in staged]
        quiescent = pairs == current  # the next tick would be this one again
        finished = store.tick
        kept = set(pairs)
        for fact in current:
            if fact not in kept:
                store.remove(*fact)
        store.tick += 1
        meta = store.meta(None, store.tick)
        base = store.base
        past = store.past
        for (rel, row, rid), fact in zip(staged, pairs):
            facts = base.get(rel)
            if facts is not None and row in facts:  # carried unchanged: to the new tick, its relation as it was
                store.set_meta(rel, row, meta)
            elif rel != V.AUTHORITY and store.add(rel, row, None):  # what _assert does, for the common case
                edb = base.get(V.EDB)
                if edb is None or ("main", (rel,)) not in edb:
                    store.add(V.EDB, ("main", (rel,)), None)
                held = base.get(V.AUTHORITY)
                if held is None or ("main", (row[0],), (V.KERNEL_WHO,)) not in held:
                    self._register(row[0], [])
            else:
                self._assert(rel, row, None, [])
            past[fact] = (rid, finished)
        installed = tuple(pairs)
        store.tick_log.append((store.tick, installed))
        store.touch(V.DERIVED_BY)
        mark = store.changes
        self._result = None
        out = self._run_evaluation("tick", budget)
        return TickReport(store.tick, installed, quiescent, out.partial), mark

    def staged_facts(self) -> list[tuple[str, tuple]]:
        return [(rel, row) for rel, row, _ in self.evaluate().staged()]

    def current_facts(self) -> list[tuple[str, tuple]]:
        """This tick's domain base facts (the ones a tick boundary drops)."""
        return canonical_facts(
            (
                (rel, row)
                for rel in self.store.relations()
                if rel not in V.TIMELESS_RELATIONS  # rule reflection and the like: no tick to drop
                for row, m in self.store.base[rel].items()
                if m.tick is not None
            )
        )

    def run(self, max_ticks: int | None = None, budget: int | None = None, collect: tuple = ()) -> RunReport:
        """Run ticks until a silent fixpoint, ``max_ticks`` tick evaluations, or the budget (for the whole run)."""
        total = self.budget if budget is None else budget
        with paused_collection():  # as during an evaluation (engine.evaluate.evaluate), for the whole run
            return self._run(max_ticks, total, collect)

    def _run(self, max_ticks: int | None, total: int, collect: tuple) -> RunReport:
        """``run`` with the cyclic garbage collector paused: between ticks only the young objects are
        collected, once every ``_RUN_COLLECT`` of them (a tick's working set, its tables and records, is
        not walked again after each tick: a tenth of a short tick went to collections)."""
        used = 0
        collected = []
        ticks = 0
        quiescent = partial = False
        self._run_evaluation("tick", total)
        outcome = self._evaluated()
        reporter = events.current()  # the call's reporter: progress per tick, and a cancel point between ticks
        names = sorted(set(collect))
        installed: list | None = None
        mark = -1
        while True:
            ticks += 1
            used += outcome.work
            facts = [format_fact(r, w[0], w[1:]) for name in names for r, w in self.facts(name)] if names else ()
            collected.append((self._store.tick, tuple(facts)))
            if outcome.partial:
                partial = True
                break
            staged, pairs = self._staged(outcome)
            # right after a tick boundary, this tick's facts are the ones it installed
            current = installed if installed is not None and self._store.changes == mark else self.current_facts()
            if pairs == current:  # a silent fixpoint: the next tick repeats this one
                quiescent = True
                break
            if (max_ticks is not None and ticks >= max_ticks) or used >= total:
                partial = used >= total
                if partial:  # the budget ends the run exactly at a tick boundary: the next tick is the hole
                    self._hole("tick", outcome._ctx)
                break
            reporter.progress(ticks, max_ticks or 0, "ticks")
            reporter.check()
            if gc.get_count()[0] > _RUN_COLLECT:
                gc.collect(0)
            report, mark = self._advance(outcome, staged, current, total - used, pairs)
            installed = pairs
            outcome = self._evaluated()
        return RunReport(ticks, quiescent, partial, tuple(collected))

    def _staged(self, result: Result) -> tuple[list, list]:
        """``result.staged()`` as a list, and its ``(rel, row)`` pairs; a relation whose staged rows are
        those of the last call (the same records, or the same rows in the order they were derived)
        takes that call's canonical order instead of sorting again."""
        ctx = result._ctx
        staged = ctx.staged_provs
        rules = ctx.decoded.rules
        memo = self._staged_memo
        out: list = []
        pairs: list = []
        for rel in sorted(staged):
            provs = staged[rel]
            hit = memo.get(rel)
            if hit is not None and hit[0] is provs and hit[3] is rules:  # taken over from the last evaluation
                out += hit[4]
                pairs += hit[5]
                continue
            derived = tuple(provs)
            ordered = hit[2] if hit is not None and hit[1] == derived else canonical_rows(derived)
            mine = [(rel, row, rules[provs[row][0]].rid) for row in ordered]
            facts = [(rel, row) for row in ordered]
            memo[rel] = (provs, derived, ordered, rules, mine, facts)
            out += mine
            pairs += facts
        return out, pairs


def _read_text(path) -> str:
    from .base.safe_write import MAX_PROGRAM_BYTES, read_regular

    try:
        return read_regular(path, MAX_PROGRAM_BYTES).decode("utf-8")  # a FIFO or /dev/zero is refused
    except FileNotFoundError:
        raise RoflError(f"{path}: no such file; check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise RoflError(f"{path}: cannot read ({why}); pass a readable UTF-8 .rofl file") from None


def _claimed(rel: str, row: tuple, who: str | None) -> tuple[str, tuple, str | None]:
    """An authority fact asserted by someone is only a claim: authority_claim(P, Who, By), which
    names its asserter in its last column (and is stored with none)."""
    if rel == V.AUTHORITY and who is not None and len(row) == 3:
        return V.AUTHORITY_CLAIM, (row[0], row[1], row[2], (who,)), None
    return rel, row, who


def _perspectives(c: Clause):
    from .clauses import body_literals

    for lit in [c.head, *(lit for lit, _ in body_literals(c.body))]:
        if not is_var(lit.persp):
            yield lit.persp


def _query_vars(lit: Literal) -> list[str]:
    from .clauses import is_wildcard, literal_vars

    return [n for n in literal_vars(lit, {}) if not is_wildcard(n)]


def _fact_set(ctx, demand: frozenset) -> set:
    out = set()
    for rel, table in ctx.tables.items():
        if rel in V.VIRTUAL_RELATIONS or rel in demand:
            continue
        for row in table.rows:
            out.add((rel, row))
    return out

"""The round loop: evaluate, collect new wants, send one batch per capability, assert the answers, until no new want.

Every want ends in exactly one of ``answered(W)``, ``failed(W, Why)`` or ``want_held(W, Why)`` (perspective
main); answers land in the book's perspective, asserted by the book, which the runtime grants authority
over it.  A want is sent at most once per session.  The round budget ends in ``hole($round(N), budget_exhausted)``
and holds the wants it left unsent.

Ticks (``rofl run``): the rounds run again at every tick, before the tick's facts are read, so a want that
appears at tick N is sent at tick N and its answers are facts of tick N (a tick boundary drops them like
any fact no ``@next`` rule carries).  A want seen at an earlier tick is never sent again: when it is
wanted again, its outcome (answer rows, or the failure or hold) is asserted again from the session's
memory.  ``--rounds`` bounds the rounds of each tick; ``max_wants`` counts the wants sent in the whole
session; the book declarations are read once, at the tick the session starts.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rofl.engine import vocabulary as V
from rofl.engine.base import events
from rofl.engine.base.errors import RoflError
from rofl.engine.kernel import Kernel, RunReport
from rofl.engine.terms import format_fact
from rofl.engine.vocabulary import TIMELESS_RELATIONS

from .batch import Batch, Reply, shape
from .books import DECLARATIONS, Capability, Catalog, read_catalog
from .kinds import KINDS, Adapter, KindContext, runs_program
from .policy import (
    CAPABILITY_DENIED,
    HOST_CALL_FAILED,
    NO_MATCHING_ADAPTER,
    UNSUPPORTED_CAPABILITY,
    Negotiation,
    Policy,
    negotiate,
    program_refusal,
    why,
)
from .rofl_kind import WorldFactory
from .secrets import Scrubber, child_environment, missing_env
from .wants import (
    ANSWERED,
    FAILED,
    HELD,
    INSTANT,
    STATUS_ARITY,
    Want,
    WantRule,
    body_relations,
    collect,
    status_facts,
    want_rules,
    wire_args,
)

DEFAULT_ROUNDS = 100
TRUSTED = (None, "user")  # who may declare adapters and want rules: nobody named (FILES, a store) or --rules
ROUND_HOLE = "$round"


class Refused(RoflError):
    """The world may not start (capabilities the host does not grant, adapters declared by data).
    ``declarations`` are ``(relation, row)`` pairs of the facts at fault (``("rule", (rule_id,))`` for a
    rule), for a caller that can say where they are written."""

    def __init__(self, message: str, declarations: tuple[tuple, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.declarations = declarations


@dataclass(frozen=True, slots=True)
class Report:
    """How every want of a session ended, and how the session went."""

    rounds: int
    answered: tuple[Want, ...]
    failed: tuple[tuple[Want, str], ...]
    held: tuple[tuple[Want, str], ...]
    partial: bool  # the round budget ended while wants were still new
    processes: int  # adapter processes started (exec batches and world servers)
    ticks: tuple[tuple[Want, int], ...] = ()  # each want and the tick its outcome arrived at

    def as_json(self) -> dict:
        return {
            "rounds": self.rounds,
            "partial": self.partial,
            "answered": [w.text for w in self.answered],
            "failed": [{"want": w.text, "why": text} for w, text in self.failed],
            "held": [{"want": w.text, "why": text} for w, text in self.held],
            "arrived": [{"want": w.text, "tick": tick} for w, tick in self.ticks],
        }

    def summary(self) -> str:
        end = "; the round budget ran out (raise --rounds)" if self.partial else ""
        return (
            f"adapters: {self.rounds} round(s), {len(self.answered)} answered, {len(self.failed)} failed, "
            f"{len(self.held)} held{end}"
        )


@dataclass(slots=True)
class Session:
    """One world's conversation with its adapters.  ``start`` negotiates (raises Refused), ``run`` rounds."""

    kernel: Kernel
    policy: Policy
    max_rounds: int = DEFAULT_ROUNDS
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    world_factory: WorldFactory | None = None
    use_cache: bool = True
    on_round: Callable[[int], None] | None = None
    catalog: Catalog | None = None
    negotiation: Negotiation | None = None
    rules: tuple[WantRule, ...] = ()
    outcomes: dict = field(default_factory=dict)  # Want -> (status, why or None), in the order they ended
    sent: dict = field(default_factory=dict)  # capability -> wants sent (max_wants counts these)
    seen: set = field(default_factory=set)
    scrubber: Scrubber = field(default_factory=lambda: Scrubber(()))
    kinds: dict = field(default_factory=dict)
    unstarted: dict = field(default_factory=dict)  # optional capability -> Why: its program may not start
    rounds: int = 0
    partial: bool = False
    kept: dict = field(default_factory=dict)  # Want -> ((rel, persp, args, who), ...) its answers, to assert again
    ended_at: dict = field(default_factory=dict)  # Want -> the tick its outcome arrived at
    tick: int | None = None  # the tick the present wants belong to
    tick_rounds: int = 0  # rounds run at that tick (--rounds bounds them)
    present: set = field(default_factory=set)  # wants whose facts are asserted at that tick
    asserted: set = field(default_factory=set)  # (rel, row) of the tick's facts this session asserted

    # -- start -------------------------------------------------------------------------------------
    def start(self) -> Negotiation:
        kernel = self.kernel
        self.rules = want_rules(kernel)
        self._refuse_untrusted()
        self.catalog = catalog = read_catalog(kernel.evaluate(goals=set(DECLARATIONS)))
        self.scrubber = Scrubber.of(catalog.secrets(), self.environ)
        requested = sorted({r.head.rel for r in self.rules})
        available: dict[str, str] = {}
        unavailable: dict[str, str] = {}
        for name in requested:
            problem = self._unavailable(name)
            if problem is None:
                available[name] = catalog.capabilities[name].klass
            else:
                unavailable[name] = problem
        optional = [c for c in requested if c in catalog.capabilities and catalog.capabilities[c].optional]
        self.negotiation = negotiation = negotiate(requested, available, unavailable, self.policy, optional)
        if negotiation.missing:
            caps = [catalog.capabilities[c] for c in negotiation.missing]
            rows = tuple(("capability", ("main", (c.name,), (c.book,), (c.klass,))) for c in caps)
            raise Refused(negotiation.refusal(available), rows)
        self._refuse_programs(negotiation)
        self._declare()
        return negotiation

    def _refuse_programs(self, negotiation: Negotiation) -> None:
        """A granted capability whose adapter starts a program (or opens a socket) needs ``--allow exec``,
        whatever class its book claims: a required one refuses the world (before any process starts), an
        optional one holds its wants."""
        assert self.catalog is not None
        if self.policy.programs:
            return
        for name in sorted(negotiation.granted):
            cap = self.catalog.capabilities[name]
            book = self.catalog.books[cap.book]
            if not runs_program(book.kind, book.address):
                continue
            reason = program_refusal(book.name, book.kind)
            if not cap.optional:
                raise Refused(reason, (("adapter", ("main", (book.name,), (book.kind,), book.address)),))
            self.unstarted[name] = reason

    def _refuse_untrusted(self) -> None:
        """Only programs the user names (no identity, or ``user``: FILES, --rules, a saved store) may start
        adapters: a book declaration (``adapter``, ``capability``, ``query``, ``http_auth``, ...) whose
        support holds a fact or a rule that came with another identity (a scan's fact file, ``unverified``,
        a --load-as source), asserted or derived, or a want rule loaded so, would let data run commands,
        so the world does not start.  The support is the declaration's why tree (its positive premises:
        facts of another identity can only add facts, so a negated premise never rests on them)."""
        kernel = self.kernel
        goals = set(DECLARATIONS)
        result = kernel.evaluate(goals=goals)
        loaders: dict[str, set] = {}
        for row in kernel.rows(V.LOADED_BY):
            if len(row) == 3 and row[1][:1] and row[2][:1]:
                loaders.setdefault(row[1][0], set()).add(row[2][0])
        for rel in sorted(DECLARATIONS, key=lambda r: r != "adapter"):  # the adapter itself named first
            for row in result.rows(rel, "main"):
                culprit = _untrusted_support(kernel.why(rel, "main", row[1:], goals=goals), loaders)
                if culprit is None:
                    continue
                fact = format_fact(rel, row[0], row[1:]).replace("[main]", "", 1)
                raise Refused(
                    why(
                        CAPABILITY_DENIED,
                        f"{fact} {culprit}; only the programs you name (FILES, --rules) may declare adapters "
                        "(run `rofl audit`)",
                    ),
                    ((rel, row),),
                )
        wanted = {r.rid for r in self.rules}
        for row in kernel.rows(V.LOADED_BY):
            if len(row) == 3 and row[1][:1] and row[1][0] in wanted and row[2][0] not in TRUSTED:
                raise Refused(
                    why(
                        CAPABILITY_DENIED,
                        f"want rule {row[1][0]} was loaded by {row[2][0]}; only the programs "
                        "you name (FILES, --rules) may ask adapters (run `rofl audit`)",
                    ),
                    (("rule", row[1]),),
                )

    def _unavailable(self, name: str) -> str | None:
        """Why no adapter can serve capability ``name`` (a table lookup, no call), or None."""
        assert self.catalog is not None
        cap = self.catalog.capabilities.get(name)
        if cap is None:
            return why(
                UNSUPPORTED_CAPABILITY, f"no book declares capability {name}; add capability({name}, Book, reads)"
            )
        book = self.catalog.books.get(cap.book)
        if book is None:
            return why(NO_MATCHING_ADAPTER, f"book {cap.book} has no adapter({cap.book}, Kind, Address)")
        if not book.imported:
            return why(
                NO_MATCHING_ADAPTER, f"the world does not import book {book.name}; add imports(main, {book.name})"
            )
        kind = KINDS.get(book.kind)
        if kind is None:
            kinds = ", ".join(sorted(KINDS))
            return why(NO_MATCHING_ADAPTER, f"adapter {book.name}: kind {book.kind} is not served here (only {kinds})")
        if cap.klass not in kind.classes:
            return why(UNSUPPORTED_CAPABILITY, f"a {book.kind} adapter cannot serve a {cap.klass} capability ({name})")
        if cap.answer_rel is None:
            return why(UNSUPPORTED_CAPABILITY, f"capability {name} declares no answers({name}, Relation, Arity)")
        problem = kind.check(cap, book)
        if problem is not None:
            return problem
        return None

    def _declare(self) -> None:
        """Make the runtime's relations and every answer relation known (empty until asserted), and
        grant each book authority over its perspective."""
        assert self.catalog is not None
        kernel = self.kernel
        for rel in (*STATUS_ARITY, *(c.answer_rel for c in self.catalog.capabilities.values() if c.answer_rel)):
            kernel.assert_fact(V.EDB, "main", ((rel,),))
        for book in self.catalog.books:
            kernel.assert_fact(V.AUTHORITY, "main", ((book,), (book,)))

    # -- rounds ------------------------------------------------------------------------------------
    def run(self) -> Report:
        """The rounds of the current tick (``ask``, ``why``, ``audit``), then the adapters are closed."""
        try:
            self.settle()
        finally:
            self.close()
        return self.report()

    def settle(self) -> None:
        """Run the current tick's rounds until no new want: wants seen at an earlier tick get their
        outcome asserted again (never sent again), new ones are sent, at most ``max_rounds`` rounds."""
        if self.catalog is None:
            self.start()
        tick = self.kernel.store.tick
        if tick != self.tick:
            self.tick, self.tick_rounds = tick, 0
            self.present, self.asserted = set(), set()
        goals = body_relations(self.rules)
        while True:
            wanted = collect(self.kernel, self.rules, goals)
            again = [w for w in wanted if w in self.seen and w not in self.present]
            if again:  # answered (or ended) at an earlier tick: its facts again, then look anew
                for want in again:
                    self._replay(want)
                continue
            new = [w for w in wanted if w not in self.seen]
            if not new:
                break
            if self.tick_rounds >= self.max_rounds:
                self._out_of_rounds(new)
                break
            self.rounds += 1
            self.tick_rounds += 1
            self._round(new)
            if self.on_round is not None:
                self.on_round(self.rounds)
            reporter = events.current()  # silent unless a server watches this execution
            reporter.progress(self.tick_rounds, self.max_rounds, "rounds")
            reporter.check()  # a safe point: a cancelled execution stops between rounds

    def run_ticks(self, max_ticks: int | None, budget: int | None, collect_rels: tuple = ()) -> RunReport:
        """``rofl run`` with adapters: at every tick the rounds run first, then the tick's facts are read
        (collected) and the tick closes; ``budget`` bounds the derivation steps of all the tick
        evaluations (the rounds' questions have their own), ``max_ticks`` the ticks, as ``Kernel.run``.
        Quiet when the next tick would repeat this one: it installs the staged facts, and the
        rounds assert again the facts they asserted at this tick."""
        kernel = self.kernel
        total = kernel.budget if budget is None else budget
        used = ticks = 0
        collected: list = []
        quiescent = partial = False
        reporter = events.current()
        try:
            while True:
                ticks += 1
                self.settle()
                step = kernel.run(1, max(total - used, 0), collect_rels)  # this tick's evaluation, collected
                current = kernel.current
                used += current.work if current is not None else 0
                collected += step.collected
                if step.partial:
                    partial = True
                    break
                if set(kernel.staged_facts()) | self.asserted == set(kernel.current_facts()):
                    quiescent = True
                    break
                if max_ticks is not None and ticks >= max_ticks:
                    break
                reporter.progress(ticks, max_ticks or 0, "ticks")
                reporter.check()
                closed = kernel.tick(max(total - used, 0))
                current = kernel.current
                used += current.work if current is not None else 0
                if closed.partial:  # the new tick's evaluation ran out: read it as it is, and stop
                    ticks += 1
                    collected += kernel.run(1, 0, collect_rels).collected
                    partial = True
                    break
        finally:
            self.close()
        return RunReport(ticks, quiescent, partial, tuple(collected))

    def _replay(self, want: Want) -> None:
        """Assert again, at this tick, what a want seen at an earlier tick ended with."""
        self.present.add(want)
        for rel, args in status_facts(want):
            self._assert(rel, "main", args)
        for rel, persp, args, who in self.kept.get(want, ()):
            self._assert(rel, persp, args, who)
        status, reason = self.outcomes[want]
        self._assert(status, "main", (want.key,) if reason is None else (want.key, reason))

    def _assert(self, rel: str, persp: str, args: tuple, who: str | None = None) -> None:
        self.kernel.assert_fact(rel, persp, args, who=who)
        if rel not in TIMELESS_RELATIONS:
            self.asserted.add((rel, (persp, *args)))

    def _round(self, new: list[Want]) -> None:
        self.seen.update(new)
        self.present.update(new)
        for want in new:
            for rel, args in status_facts(want):
                self._assert(rel, "main", args)
        groups: dict[str, list[Want]] = {}
        for want in new:
            groups.setdefault(want.cap, []).append(want)
        for name in sorted(groups):
            self._send(name, groups[name])

    def _send(self, name: str, wants: list[Want]) -> None:
        assert self.catalog is not None and self.negotiation is not None
        negotiation = self.negotiation
        if name in negotiation.unavailable:
            for w in wants:
                self._end(w, FAILED, negotiation.unavailable[name])
            return
        cap = self.catalog.capabilities[name]
        if name not in negotiation.granted:
            reason = why(
                CAPABILITY_DENIED,
                f"{name} is a {cap.klass} capability and this host grants only "
                f"{', '.join(sorted(self.policy.classes))}; add --allow {cap.klass}",
            )
            for w in wants:
                self._end(w, HELD, reason)
            return
        if name in self.unstarted:
            for w in wants:
                self._end(w, HELD, self.unstarted[name])
            return
        absent = missing_env(cap.secrets, self.environ)
        if absent:
            reason = why(CAPABILITY_DENIED, f"{name} needs a secret and the environment has no {', '.join(absent)}")
            for w in wants:
                self._end(w, HELD, reason)
            return
        ready: list[Want] = []
        args: list[dict] = []
        for w in wants:
            if self.sent.get(name, 0) >= cap.max_wants:
                self._end(w, HELD, why(CAPABILITY_DENIED, f"max_wants({name}, {cap.max_wants}) reached"))
                continue
            sent, problem = wire_args(w, cap)
            if problem is not None:
                self._end(w, FAILED, why(UNSUPPORTED_CAPABILITY, problem))
                continue
            self.sent[name] = self.sent.get(name, 0) + 1
            ready.append(w)
            args.append(sent or {})
        if not ready:
            return
        book = self.catalog.books[cap.book]
        environ = child_environment(self.environ, cap.secrets)
        batch = Batch(cap, book, tuple(ready), tuple(args), environ)
        self._accept(cap, batch, self._kind(book.kind).ask(batch))

    def _kind(self, kind: str) -> Adapter:
        adapter = self.kinds.get(kind)
        if adapter is None:
            context = KindContext(self.environ, self.scrubber, self.use_cache, self.world_factory)
            adapter = self.kinds[kind] = KINDS[kind].make(context)
        return adapter

    def _accept(self, cap: Capability, batch: Batch, reply: Reply) -> None:
        """Assert each want's answers into the book's perspective (by the book), or its failure."""
        for want in batch.wants:
            if want in reply.held:
                self._end(want, HELD, self.scrubber.scrub(reply.held[want]))
                continue
            if want in reply.failed:
                self._end(want, FAILED, self.scrubber.scrub(reply.failed[want]))
                continue
            rows = reply.answers.get(want)
            if rows is None:
                self._end(want, FAILED, why(HOST_CALL_FAILED, f"adapter {batch.book.name} gave no answer"))
                continue
            shaped = shape(cap, rows)
            if isinstance(shaped, str):
                self._end(want, FAILED, why(HOST_CALL_FAILED, f"adapter {batch.book.name}: {shaped}"))
                continue
            if any(self.scrubber.leaks_term(row) for row in shaped.rows):
                reason = f"adapter {batch.book.name}: an answer holds the value of a secret; nothing of it is kept"
                self._end(want, FAILED, why(HOST_CALL_FAILED, reason))
                continue
            kept: list[tuple[str, str, tuple, str | None]] = [
                (cap.answer_rel or "", batch.book.name, (want.key, *row), batch.book.name) for row in shaped.rows
            ]
            kept += [(INSTANT, "main", (instant.text, instant.ms), None) for instant in shaped.instants]
            self.kept[want] = tuple(kept)
            for rel, persp, args, who in kept:
                self._assert(rel, persp, args, who)
            self._end(want, ANSWERED, None)

    def _end(self, want: Want, status: str, reason: str | None) -> None:
        if want in self.outcomes:
            return
        self.outcomes[want] = (status, reason)
        self.ended_at[want] = self.kernel.store.tick
        args = (want.key,) if reason is None else (want.key, reason)
        self._assert(status, "main", args)

    def _out_of_rounds(self, new: list[Want]) -> None:
        self.partial = True
        tick = self.kernel.store.tick
        qid = (ROUND_HOLE, self.tick_rounds + 1) if not tick else (ROUND_HOLE, self.tick_rounds + 1, tick)
        self.kernel.assert_fact(V.HOLE, "main", (qid, ("budget_exhausted",)))
        reason = why(
            CAPABILITY_DENIED, f"the round budget ({self.max_rounds}) ended before it was sent; raise --rounds"
        )
        for want in new:
            self.seen.add(want)
            self.present.add(want)
            for rel, args in status_facts(want):
                self._assert(rel, "main", args)
            self._end(want, HELD, reason)

    def close(self) -> None:
        for adapter in self.kinds.values():
            closer = getattr(adapter, "close", None)
            if closer is not None:
                closer()

    # -- reading back ------------------------------------------------------------------------------
    @property
    def processes(self) -> int:
        """Adapter processes started so far (exec batches and world servers)."""
        return sum(getattr(adapter, "started", 0) for adapter in self.kinds.values())

    def report(self) -> Report:
        items = list(self.outcomes.items())
        return Report(
            self.rounds,
            tuple(w for w, (s, _) in items if s == ANSWERED),
            tuple((w, r or "") for w, (s, r) in items if s == FAILED),
            tuple((w, r or "") for w, (s, r) in items if s == HELD),
            self.partial,
            self.processes,
            tuple((w, self.ended_at.get(w, 0)) for w, _ in items),
        )

    def boundary(self, who: str | None) -> str | None:
        """For a fact asserted by book ``who``: where a why of it stops (the book, and the other world
        when the book is a rofl adapter)."""
        if who is None or self.catalog is None or who not in self.catalog.books:
            return None
        book = self.catalog.books[who]
        if book.kind == "rofl":
            return f"book {book.name}, answered by the world {book.address}; ask that world why"
        return f"book {book.name}, answered by its {book.kind} adapter {book.address}"


def _untrusted_support(node, loaders: Mapping[str, set]) -> str | None:
    """How the why tree ``node`` rests on a fact or a rule of an identity outside TRUSTED (``was asserted
    by ...``, ``is derived from ...``), or None when every premise is trusted."""
    stack = [node] if node is not None else []
    top = node
    while stack:
        n = stack.pop()
        if n.kind == "base" and n.who not in TRUSTED:
            text = n.text.replace("[main]", "", 1)
            return f"was asserted by {n.who}" if n is top else f"is derived from {text}, asserted by {n.who}"
        if n.kind in ("derived", "past") and n.rule is not None:
            who = loaders.get(n.rule, set())
            if who and not who & set(TRUSTED):
                return f"is derived by rule {n.rule}, loaded by {', '.join(sorted(who))}"
        if n.kind in ("derived", "past"):
            stack.extend(n.children)
    return None

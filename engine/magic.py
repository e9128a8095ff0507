"""Demand for bound arguments: a question that binds arguments of a linearly recursive relation is
answered from those bindings, without building the relation.

A literal ``p[P](args)`` of a question with some ground arguments (the *bound* positions, the
others *free*) is answered by demand when every rule of ``p`` in perspective ``P`` is one of

* an *exit* rule: no premise reads ``p``;
* a *pass-through* rule: one premise ``p[P](...)`` whose bound arguments are the head's bound
  arguments (``p(A, C) :- p(A, B), e(B, C)`` asked as ``p("a", X)``): it extends the answers of the
  same call, so the answers are a fixpoint over that call alone (semi-naive, one key);
* a *factor* rule: one premise ``p[P](...)`` whose free arguments are the head's free arguments,
  distinct variables that occur nowhere else (``p(A, C) :- e(A, B), p(B, C)`` asked as
  ``p("a", X)``): every answer of the call it makes is an answer of the question, so the question's
  answers are the exit answers of every call reachable from it (the magic set of Bancilhon et al.,
  factored as in Naughton et al.'s right-linear case: linear in what is reachable, never the
  quadratic closure plain magic sets would build on a chain);

and pass-through and factor rules do not both occur.  The relations the rules read (everything but
``p``) are evaluated as usual, so negation and builtins in those rules see complete relations: this is
sound wherever the evaluation itself is (stratified), and ``p``'s own rules can only read ``p``
positively.  Anything else (mutual recursion through ``p``, a non-linear rule, a rule reading ``p`` in
another perspective, a variable head perspective, ``@next`` or ``@init`` on ``p``, a demand (moded)
relation) is no plan: the question is answered from the full evaluation.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from . import builtins as B
from . import vocabulary as V
from .clauses import NEXT, NOW, Aggregate, Literal, Negated, is_var, item_vars, literal_vars, term_vars
from .plan import CompiledRule
from .terms import is_ground


@dataclass(frozen=True, slots=True)
class Use:
    """One rule of the demanded relation: its body without the recursive premise, ordered so that
    builtins and negations run once their inputs are bound, and the recursive premise (or None)."""

    rule: CompiledRule
    body: tuple
    recursive: Literal | None


@dataclass(frozen=True, slots=True)
class DemandPlan:
    rel: str
    persp: str
    width: int  # the relation's arity
    bound: tuple[int, ...]  # argument positions (0-based) the question binds
    exits: tuple[Use, ...]
    passes: tuple[Use, ...]
    factors: tuple[Use, ...]
    reads: frozenset[str]  # the relations the rules read, other than rel

    @property
    def free(self) -> tuple[int, ...]:
        return tuple(i for i in range(self.width) if i not in self.bound)


def plan_demand(decoded, lit: Literal) -> DemandPlan | None:
    """The demand plan for question literal ``lit`` (rules of ``decoded``), or None when the question
    must read the fully evaluated relation."""
    rel = lit.rel
    if not isinstance(lit.persp, str) or rel in decoded.demand or rel in V.RESERVED_SET or lit.temporal != NOW:
        return None
    if rel in V.VIRTUAL_RELATIONS:
        return None
    bound = tuple(i for i, a in enumerate(lit.args) if is_ground(a))
    if not bound:
        return None
    width = len(lit.args)
    free = tuple(i for i in range(width) if i not in bound)
    exits: list[Use] = []
    passes: list[Use] = []
    factors: list[Use] = []
    reads: set[str] = set()
    for rule in decoded.rules:
        head = rule.clause.head
        if head.rel != rel:
            continue
        if is_var(head.persp):
            return None
        if head.temporal == NEXT or head.persp != lit.persp or len(head.args) != width:
            continue  # stages the next tick, or concludes rows this question cannot match
        if any(type(item) is Aggregate for item in rule.clause.body):
            return None  # an aggregate reads its relations whole: evaluate the relation bottom-up
        recursive: list[int] = []
        for k, item in enumerate(rule.clause.body):
            target = item.lit if isinstance(item, Negated) else item
            if isinstance(target, Literal):
                if target.rel == rel:
                    if isinstance(item, Negated) or target.persp != lit.persp or target.temporal != NOW:
                        return None
                    recursive.append(k)
                else:
                    reads.add(target.rel)
        if len(recursive) > 1:
            return None
        head_vars = {v for i in bound for v in term_vars(head.args[i], {})}
        if not recursive:
            way = _use(rule, None, head_vars)
            if way is None:
                return None
            exits.append(way)
            continue
        k = recursive[0]
        rec = rule.clause.body[k]
        if [rec.args[i] for i in bound] == [head.args[i] for i in bound]:
            way = _use(rule, k, head_vars | set(literal_vars(rec, {})))
            if way is None:
                return None
            passes.append(way)
        elif _factors(rule, k, bound, free):
            way = _use(rule, k, head_vars)
            need = {v for i in bound for v in term_vars(rec.args[i], {})}
            if way is None or not need <= _binds(way, head_vars):
                return None  # the call's bound arguments must be known: r(X) :- r(_), ... is no call
            factors.append(way)
        else:
            return None
    if not (exits or passes or factors) or (passes and factors):
        return None
    return DemandPlan(rel, lit.persp, width, bound, tuple(exits), tuple(passes), tuple(factors), frozenset(reads))


def _factors(rule: CompiledRule, k: int, bound: tuple, free: tuple) -> bool:
    """Whether premise ``k`` passes the head's free arguments through unchanged: the same distinct
    variables in the free positions, occurring nowhere else in the rule."""
    head, rec = rule.clause.head, rule.clause.body[k]
    names = []
    for i in free:
        a, b = head.args[i], rec.args[i]
        if not is_var(a) or a != b:
            return False
        names.append(a[1])
    if len(set(names)) != len(names):
        return False
    elsewhere: set[str] = set()
    for i in bound:
        elsewhere |= set(term_vars(head.args[i], {})) | set(term_vars(rec.args[i], {}))
    if is_var(head.persp):
        elsewhere.add(head.persp[1])
    for j, item in enumerate(rule.clause.body):
        if j != k:
            elsewhere |= set(item_vars(item))
    return not (set(names) & elsewhere)


def _use(rule: CompiledRule, k: int | None, bound: set[str]) -> Use | None:
    """The rule's body without premise ``k``, with builtins and negations moved to where their inputs
    are bound (given ``bound``); None when some never are."""
    from .query import schedule

    order, pending = schedule([item for j, item in enumerate(rule.clause.body) if j != k], bound)
    if pending:
        return None
    return Use(rule, tuple(order), None if k is None else rule.clause.body[k])


def _binds(way: Use, bound: set[str]) -> set[str]:
    """The variables known after its body has run (its positive literals and builtins bind)."""
    out = set(bound)
    for item in way.body:
        if not isinstance(item, Negated):
            out |= set(item_vars(item))
    return out


def demanded_rows(plan: DemandPlan, ctx, key: tuple) -> list[tuple]:
    """The rows ``(persp, *args)`` of the plan's relation whose bound arguments are ``key``: its base
    facts and what its rules conclude, computed from the call alone (each premise row is a step)."""
    solver = ctx.demand
    free = plan.free
    base = _base_index(plan, ctx)

    def exit_answers(m: tuple):
        yield from base.get(m, ())
        for _, _, out in _exits(plan, solver, m):
            yield out

    keys: dict[tuple, None] = {key: None}
    todo = [key]
    while todo:  # the magic set: every call the factor rules make, transitively
        m = todo.pop()
        for _, _, m2 in _calls(plan, solver, m):
            if m2 not in keys:
                keys[m2] = None
                todo.append(m2)
    answers: dict[tuple, None] = {}
    delta: list[tuple] = []
    for m in keys:
        for out in exit_answers(m):
            if out not in answers:
                answers[out] = None
                delta.append(out)
    while delta and plan.passes:  # semi-naive: each round extends only the answers found last round
        new: list[tuple] = []
        for got in delta:
            for _, _, out in _extended(plan, solver, key, got):
                if out not in answers:
                    answers[out] = None
                    new.append(out)
        delta = new
    return [_row(plan, key, free, out) for out in answers]


def demanded_proof(plan: DemandPlan, ctx, args: tuple) -> dict[tuple, tuple] | None:
    """One derivation of the fact ``(plan.persp, *args)`` found by demand, as the provenance records of
    the plan's relation it passes through (``{row: (rule index, *premise rows)}``, the form
    ``Context.provs`` keeps; empty for a base fact), or None when the fact does not hold.

    The calls the factor rules make are searched breadth first from the fact's bound arguments, and the
    first call with an exit answer equal to the fact's free arguments ends the search, so the proof is a
    shortest chain of calls and the search stops there instead of building every call's answers; the
    fact is missing exactly when ``demanded_rows`` would not list it.  A plan with pass-through rules
    has none (a ground fact binds every argument, so only a rule whose recursive premise is its own head
    passes through): the caller evaluates the relation instead."""
    assert not plan.passes, "a pass-through plan proves nothing by demand"
    free = plan.free
    key = tuple(args[i] for i in plan.bound)
    want = tuple(args[i] for i in free)
    base = _base_index(plan, ctx)
    solver = ctx.demand
    parents: dict[tuple, tuple | None] = {key: None}
    queue = deque([key])
    while queue:  # breadth first: the first call with the exit answer ends the shortest chain
        m = queue.popleft()
        leaf = _exit_record(plan, ctx, m, want, base)
        if leaf is not None:
            records: dict[tuple, tuple] = {}
            row = _row(plan, m, free, want)
            if leaf:
                records[row] = leaf
            link = parents[m]
            while link is not None:
                caller, way, wit = link
                above = _row(plan, caller, free, want)
                records[above] = _record(way, wit, row)
                row, link = above, parents[caller]
            return records
        for way, wit, m2 in _calls(plan, solver, m):
            if m2 not in parents:
                parents[m2] = (m, way, wit)
                queue.append(m2)
    return None


def _calls(plan: DemandPlan, solver, m: tuple):
    """``(rule, premise rows, call)`` for each call the factor rules make from call ``m``."""
    return _firings(plan, solver, m, plan.factors, plan.bound, recursive=True)


def _exits(plan: DemandPlan, solver, m: tuple):
    """``(rule, premise rows, answer)`` for each answer the exit rules give call ``m``."""
    return _firings(plan, solver, m, plan.exits, plan.free, recursive=False)


def _firings(plan: DemandPlan, solver, m: tuple, ways: tuple[Use, ...], positions: tuple[int, ...], recursive: bool):
    """``(rule, premise rows, values)`` for each firing of ``ways`` from call ``m``: the values at
    ``positions`` of the recursive premise (``recursive``) or of the head."""
    for way in ways:
        b0 = _head_binding(plan, way, m)
        if b0 is None:
            continue
        target = way.recursive if recursive else way.rule.clause.head
        assert target is not None
        for b, wit in solver.solve(way.body, 0, b0, ()):
            out = tuple(B.substitute(target.args[i], b) for i in positions)
            if None not in out:
                yield way, wit, out


def _extended(plan: DemandPlan, solver, key: tuple, got: tuple):
    """``(rule, premise rows, answer)`` for each answer the pass-through rules make of call ``key``'s answer ``got``."""
    free = plan.free
    for way in plan.passes:
        b0 = _head_binding(plan, way, key)
        assert way.recursive is not None
        if b0 is None or not all(B.match(way.recursive.args[i], v, b0) for i, v in zip(free, got)):
            continue
        for b, wit in solver.solve(way.body, 0, b0, ()):
            out = tuple(B.substitute(way.rule.clause.head.args[i], b) for i in free)
            if None not in out:
                yield way, wit, out


def _exit_record(plan: DemandPlan, ctx, m: tuple, want: tuple, base: dict) -> tuple | None:
    """How call ``m`` answers ``want`` without recursion: ``()`` for a base fact, an exit rule's record,
    or None when it does not."""
    if want in base.get(m, ()):
        return ()
    for way in plan.exits:
        b0 = _head_binding(plan, way, m)
        if b0 is None or not all(B.match(way.rule.clause.head.args[i], v, b0) for i, v in zip(plan.free, want)):
            continue
        for _, wit in ctx.demand.solve(way.body, 0, b0, ()):
            return _record(way, wit, None)
    return None


def _head_binding(plan: DemandPlan, way: Use, m: tuple) -> dict | None:
    """The binding of the rule's head to the call's bound arguments ``m`` (None: they do not match)."""
    b: dict = {}
    for i, v in zip(plan.bound, m):
        if not B.match(way.rule.clause.head.args[i], v, b):
            return None
    return b


def _recursive_position(way: Use) -> int:
    """The body position of the rule's recursive premise."""
    body = way.rule.clause.body
    return next(k for k, item in enumerate(body) if item is way.recursive)


def _record(way: Use, wit: tuple, recursive_row: tuple | None) -> tuple:
    """The provenance record ``(rule index, *premise rows)`` of one firing: the premise rows in the rule's
    written order, the recursive premise's row (``recursive_row``) in its place.  ``wit`` holds the rows
    of the other positive premises in written order (``engine.query.schedule`` keeps literals in place)."""
    rows = iter(wit)
    k = _recursive_position(way) if way.recursive is not None else -1
    return (way.rule.index, *(recursive_row if pos == k else next(rows) for pos in way.rule.positive))


def _row(plan: DemandPlan, key: tuple, free: tuple, out: tuple) -> tuple:
    args: list = [None] * (len(key) + len(out))
    for i, v in zip(plan.bound, key):
        args[i] = v
    for i, v in zip(free, out):
        args[i] = v
    return (plan.persp, *args)


def _base_index(plan: DemandPlan, ctx) -> dict[tuple, list[tuple]]:
    """The relation's base facts in the plan's perspective: their free arguments by their bound ones."""
    out: dict[tuple, list[tuple]] = {}
    free = plan.free
    for row in ctx.store.base.get(plan.rel, ()):
        if len(row) == plan.width + 1 and row[0] == plan.persp:
            out.setdefault(tuple(row[1 + i] for i in plan.bound), []).append(tuple(row[1 + i] for i in free))
    return out

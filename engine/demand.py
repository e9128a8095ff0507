"""Demand (moded) evaluation: rules that are not range-restricted run top-down at their call sites.

A call carries the caller's bindings (None marks an unbound argument).  The body runs in written
order, Prolog-like; each unfolding node is one derivation step.  Ground answers are materialised into
the relation's table with full provenance, so ``why`` and ``excise`` treat them like any other fact.
Answers are memoised per call pattern for the life of one evaluation.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter

from . import builtins as B
from .clauses import ARITH, INIT, Aggregate, Builtin, Literal, Negated, is_var
from .costs import made_steps
from .plan import BudgetExhausted, CompiledRule, again
from .tables import Table


class Demand:
    def __init__(self, ctx, rules_by_rel: dict[str, list[CompiledRule]]) -> None:
        self.ctx = ctx
        self.rules = rules_by_rel
        self.memo: dict = {}
        self.seen: set = set()
        self.stack: list = []  # call patterns being computed, outermost first
        self.active: set = set()
        self.reentered: set = set()  # active patterns that were called again from inside themselves
        self.tainted: set = set()  # patterns computed while reading an unfinished caller
        self.scanned: set = set()  # (relation, columns) looked up once by a scan: the next lookup indexes

    def forget(self) -> None:
        """Drop memoised answers (the relations they read grew); materialised firings stay counted once."""
        self.memo.clear()

    def step(self, cost: int = 1) -> None:
        ctx = self.ctx
        if ctx.steps + cost > ctx.limit:
            raise BudgetExhausted()
        ctx.steps += cost

    def call(self, rel: str, persp: str | None, args: tuple) -> list:
        """The rows of ``rel`` matching a call pattern (None = unbound): its base facts and what its rules give.

        A call that meets itself again (recursion over cyclic data) is re-run until its answers stop
        growing; calls computed while an unfinished caller's answers were read are not memoised.
        """
        key = (rel, persp, args)
        hit = self.memo.get(key)
        if hit is not None:
            if key in self.active:
                self.reentered.add(key)
                self.tainted.update(self.stack[self.stack.index(key) + 1 :])
            return hit
        self.memo[key] = []
        self.stack.append(key)
        self.active.add(key)
        try:
            while True:
                answers = self._answers(rel, persp, args)
                if key in self.reentered and len(answers) > len(self.memo[key]):
                    self.reentered.discard(key)
                    self.memo[key] = list(answers)
                    continue
                break
        except BudgetExhausted:
            self.memo.pop(key, None)  # never leave an unfinished answer behind
            self.tainted.discard(key)
            raise
        finally:
            self.stack.pop()
            self.active.discard(key)
            self.reentered.discard(key)
        result = list(answers)
        if key in self.tainted:
            self.tainted.discard(key)
            self.memo.pop(key, None)  # it read an unfinished caller: compute it again when asked
        else:
            self.memo[key] = result
        return result

    def _answers(self, rel: str, persp: str | None, args: tuple) -> dict:
        answers: dict = {}
        table = self.ctx.tables.get(rel)
        if table is not None:  # base facts of the relation hold whatever its rules say
            for row, rnd in list(table.rows.items()):
                if (
                    rnd == -1
                    and len(row) == len(args) + 1
                    and (persp is None or row[0] == persp)
                    and all(a is None or a == v for a, v in zip(args, row[1:]))
                ):
                    answers[row] = None
        for rule in self.rules.get(rel, ()):
            head = rule.clause.head
            if len(head.args) != len(args):
                continue
            binding: dict = {}
            if persp is not None:
                if is_var(head.persp):
                    binding[head.persp[1]] = (persp,)
                elif head.persp != persp:
                    continue
            ok = True
            for pattern, value in zip(head.args, args):
                if value is not None and not B.match(pattern, value, binding):
                    ok = False
                    break
            if not ok:
                continue
            self.step()
            for b, wit in self.solve(rule.clause.body, 0, binding, ()):
                row = self.ground_head(head, b)
                if row is None:
                    continue
                self.materialise(rel, row, rule.index, wit)
                answers[row] = None
        return answers

    @staticmethod
    def ground_head(head: Literal, binding: dict):
        if is_var(head.persp):
            p = binding.get(head.persp[1])
            if type(p) is not tuple or len(p) != 1:
                return None
            persp = p[0]
        else:
            persp = head.persp
        out = [persp]
        for a in head.args:
            v = B.substitute(a, binding)
            if v is None:
                return None
            out.append(v)
        return tuple(out)

    def materialise(self, rel: str, row: tuple, rix: int, wit: tuple) -> None:
        ctx = self.ctx
        firing = (rix, row, wit)
        if firing in self.seen:
            return
        self.seen.add(firing)
        prov = ctx.prov(rel)
        rec = prov.get(row)
        if rec is None:
            prov[row] = (rix, *wit)
            table = ctx.table(rel)
            if row not in table.rows:
                table.add(row, -2)
        else:
            again(ctx.more(rel), row, rec, rix)

    def lookup(self, lit: Literal, binding: dict):
        """Rows of a table-backed literal that can match under ``binding``."""
        ctx = self.ctx
        if lit.temporal == INIT and ctx.tick != 0:
            return ()  # @init literals hold at tick 0 only
        persp = None
        if is_var(lit.persp):
            p = binding.get(lit.persp[1])
            if p is not None:
                if type(p) is not tuple or len(p) != 1:
                    return ()
                persp = p[0]
        else:
            persp = lit.persp
        cols, vals = [], []
        if persp is not None:
            cols.append(0)
            vals.append(persp)
        for c, a in enumerate(lit.args, 1):
            v = B.substitute(a, binding)
            if v is not None:
                cols.append(c)
                vals.append(v)
        if not cols:
            return list(ctx.rows(lit.rel))
        key = vals[0] if len(cols) == 1 else tuple(vals)
        spec = tuple(cols)
        table = ctx.table(lit.rel)
        if type(table) is Table and spec not in table.indexes and (lit.rel, spec) not in self.scanned:
            # one lookup costs a scan; an index costs a scan and a dict entry per row, paid back only when
            # the same columns are looked up again (then it is built): a question asking once stays a scan
            self.scanned.add((lit.rel, spec))
            return _matching(table.rows, spec, key)
        return ctx.index(lit.rel, spec).get(key, ())

    def literal_rows(self, lit: Literal, binding: dict):
        if lit.rel in self.rules:
            persp = None
            if is_var(lit.persp):
                p = binding.get(lit.persp[1])
                if type(p) is tuple and len(p) == 1:
                    persp = p[0]
            else:
                persp = lit.persp
            return self.call(lit.rel, persp, tuple(B.substitute(a, binding) for a in lit.args))
        return self.lookup(lit, binding)

    def unify_row(self, lit: Literal, row: tuple, binding: dict) -> dict | None:
        if len(row) != len(lit.args) + 1:
            return None
        b = dict(binding)
        if is_var(lit.persp):
            if not B.match(lit.persp, (row[0],), b):
                return None
        elif lit.persp != row[0]:
            return None
        for pattern, value in zip(lit.args, row[1:]):
            if not B.match(pattern, value, b):
                return None
        return b

    def solve(self, body: tuple, i: int, binding: dict, wit: tuple, charge: bool = True):
        """Solutions of ``body`` from item ``i`` on, in written order; each matched premise row is a
        derivation step unless ``charge`` is False (a question reads facts; only calls derive)."""
        if i == len(body):
            yield binding, wit
            return
        item = body[i]
        if isinstance(item, Literal):
            for row in list(self.literal_rows(item, binding)):
                b = self.unify_row(item, row, binding)
                if b is not None:
                    if charge:
                        self.step()
                    yield from self.solve(body, i + 1, b, wit + (row,), charge)
        elif isinstance(item, Negated):
            for row in self.literal_rows(item.lit, binding):
                if self.unify_row(item.lit, row, binding) is not None:
                    return
            yield from self.solve(body, i + 1, binding, wit, charge)
        elif type(item) is Aggregate:
            from .aggregates import solutions

            for b in list(solutions(self, item, binding, charge)):
                yield from self.solve(body, i + 1, b, wit, charge)
        else:
            for b in builtin_solutions(item, binding, self.step if charge else None):
                yield from self.solve(body, i + 1, b, wit, charge)


def builtin_solutions(item: Builtin, binding: dict, pay: Callable[[int], None] | None = None):
    """The bindings under which a builtin holds (zero or one), by its kind in ``engine.builtins.TABLE``;
    unbound inputs make it fail.  ``pay`` is charged what the integers its arithmetic makes cost
    (``engine.costs``)."""
    spec = B.BY_OP[item.op]
    if spec.kind == B.ASSIGN:
        value = B.evaluate(item.right, binding)
        if value is None or type(value) is not int:
            return
        if pay is not None and _is_arith(item.right) and (cost := made_steps(value)):
            pay(cost)
        b = dict(binding)
        if B.match(item.left, value, b):
            yield b
    elif spec.kind == B.UNIFY:
        left, right = B.evaluate(item.left, binding), B.evaluate(item.right, binding)
        if pay is not None and (cost := _arith_steps(item, left, right)):
            pay(cost)
        b = dict(binding)
        if left is not None and B.match(item.right, left, b):
            yield b
        elif left is None and right is not None and B.match(item.left, right, b):
            yield b
    else:
        left, right = B.evaluate(item.left, binding), B.evaluate(item.right, binding)
        if left is None or right is None:
            return
        if pay is not None and (cost := _arith_steps(item, left, right)):
            pay(cost)
        assert spec.test is not None, spec  # every TEST builtin has its test
        if spec.test(left, right):
            yield binding


def _arith_steps(item: Builtin, left, right) -> int:
    """What the integers a builtin's arithmetic sides made cost (a side without arithmetic made nothing)."""
    cost = made_steps(left) if _is_arith(item.left) else 0
    return cost + made_steps(right) if _is_arith(item.right) else cost


def _is_arith(term) -> bool:
    return isinstance(term, tuple) and term[0] == ARITH


def _matching(rows, cols: tuple[int, ...], key) -> list:
    """The rows whose ``cols`` hold ``key`` (the value itself for one column), in row order: what
    ``Table.index(cols).get(key)`` gives, found by a scan."""
    width = max(cols) + 1
    get = itemgetter(*cols)
    return [row for row in rows if len(row) >= width and get(row) == key]

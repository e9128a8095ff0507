"""Rule analysis and compilation: safety, demand detection, and generated Python join code per rule.

Each rule is compiled once into one Python function per *variant*: the full variant (every premise
read in full) and one semi-naive variant per recursive premise position (that premise read from the
round's delta, earlier recursive premises from facts older than the delta, later ones in full).
Premises are joined through hash indexes keyed by the columns bound at that point (built where a firing
first reaches them), or, for a premise a ``matches``/``glob`` tests by its pattern column, through a
pattern index (``engine.pattern_index``); builtins and negations run as soon as their inputs are bound.  Facts are rows ``(persp, *args)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from . import builtins as B
from . import costs as C
from .aggregates import Call, compiled_call
from .base.errors import BudgetExhausted
from .clauses import (
    ARITH,
    INIT,
    NEXT,
    NOW,
    VAR,
    WILDCARD_PREFIX,
    Aggregate,
    Builtin,
    Clause,
    Literal,
    Negated,
    binders,
    is_var,
    is_wildcard,
    item_vars,
    literal_vars,
    term_vars,
)
from .terms import Term, compound


class UnsafeRule(Exception):
    """A rule that cannot be evaluated even on demand."""


def _wildcards(clause: Clause) -> set[str]:
    """Variables written ``_`` (fresh names ``_N``) that occur exactly once in the clause."""
    counts: dict[str, int] = {}
    items = [clause.head, *clause.body]
    for it in items:
        for name in item_vars(it) if not isinstance(it, Literal) else literal_vars(it, {}):
            counts[name] = counts.get(name, 0) + 1
    return {n for n, c in counts.items() if c == 1 and is_wildcard(n)}


def _simulate(clause: Clause, bound: set[str]) -> str | None:
    """Walk the body in written order; return a reason when something needs an unbound variable."""
    wild = _wildcards(clause)
    outer: set[str] | None = None
    for item in clause.body:
        if isinstance(item, Literal):
            bound |= set(literal_vars(item, {}))
        elif isinstance(item, Aggregate):
            if outer is None:
                outer = binders(clause.body)
            reason = _simulate_inner(item, bound | (set(item.groups) & outer))
            if reason is not None:
                return reason
            bound |= set(item_vars(item))
        else:
            reason = _check_step(item, bound, wild.__contains__, "")
            if reason is not None:
                return reason
    head = set(literal_vars(clause.head, {}))
    if not head <= bound:
        return f"head variable {', '.join(sorted(head - bound))} is not bound by the body"
    return None


def _simulate_inner(agg: Aggregate, bound: set[str]) -> str | None:
    """The reason an aggregate's inner conjunction cannot run with ``bound`` known, or None."""
    bound = set(bound)
    for item in agg.body:
        if isinstance(item, Literal):
            bound |= set(literal_vars(item, {}))
        else:
            reason = _check_step(item, bound, is_wildcard, f" in {agg.op}")
            if reason is not None:
                return reason
    missing = set(term_vars(agg.value, {})) - bound
    if missing:
        return f"the value of {agg.op} uses {', '.join(sorted(missing))}, which its body does not bind"
    return None


def _check_step(item: Negated | Builtin, bound: set[str], unused: Callable[[str], bool], where: str) -> str | None:
    """The reason a negation or builtin cannot run with ``bound`` known (``where`` names the aggregate it
    stands in, or is empty), or None; what a builtin binds is added to ``bound``.  ``unused(name)``
    says which wildcards a negation need not have bound."""
    if isinstance(item, Negated):
        need = {n for n in literal_vars(item.lit, {}) if not unused(n)}
        if not need <= bound:
            return f"negated {item.lit.rel}{where} uses unbound {', '.join(sorted(need - bound))}"
        return None
    left, right = set(term_vars(item.left, {})), set(term_vars(item.right, {}))
    out = B.binds(item.op, item.left, item.right, left, right, bound)
    if out is None:
        return _unbound_reason(item, (left | right) - bound) + where
    bound |= out
    return None


def _unbound_reason(item: Builtin, missing: set) -> str:
    spec = B.BY_OP[item.op]
    names = ", ".join(sorted(missing))
    if spec.kind == B.UNIFY:
        return "'=' needs one side bound and the other a pattern (arithmetic cannot be solved for a variable)"
    if spec.kind == B.ASSIGN:
        return f"'is' needs {names} bound"
    return f"'{item.op}' compares unbound {names}"


def range_restricted(clause: Clause) -> bool:
    return _simulate(clause, set()) is None


def check_demand_safe(clause: Clause) -> None:
    """Raise UnsafeRule when the rule is unsafe even with every head variable bound by a caller."""
    reason = _simulate(clause, set(literal_vars(clause.head, {})))
    if reason is not None:
        raise UnsafeRule(reason)
    if clause.head.temporal == NEXT:
        raise UnsafeRule("an @next rule must be range-restricted")


# ----------------------------------------------------------------------------------- codegen
@dataclass(slots=True)
class CompiledRule:
    rid: str
    index: int
    clause: Clause
    positive: tuple[int, ...]  # body positions of positive literals: the witness order


@dataclass(frozen=True, slots=True)
class PatternJoin:
    """How a premise is joined through its pattern index: the builtin it stands for (body position), the
    variable holding the text, the premise's pattern column and the builtin (matches or glob)."""

    builtin: int
    text: str
    column: int
    op: str


def _vname(name: str) -> str:
    """A Python name for a variable: v_X for source variables, w_N for the wildcard _$N."""
    return "w_" + name[len(WILDCARD_PREFIX) :] if is_wildcard(name) else "v_" + name


class _Gen:
    def __init__(self, rule: CompiledRule, demand: frozenset, next_head: bool, naive: bool) -> None:
        self.rule = rule
        self.clause = rule.clause
        self.demand = demand
        self.naive = naive
        self.next_head = next_head
        self.lines: list[str] = []
        self.pre: list[str] = []
        self.bound: set[str] = set()
        self.atom_vars: set[str] = set()
        self.wild = _wildcards(self.clause)
        self.outer = binders(self.clause.body)
        self.calls: list = []  # engine.aggregates.Call of each aggregate, named A0, A1, ...
        self.depth = 1
        self.tmp = 0
        self.consts: list = []

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def lookup(self, name: str, expr: str) -> None:
        """Bind ``name`` to the table or index ``expr`` reads: before the loops when the premise is the
        outermost one, else where it is first reached, so an index no firing reaches is never built
        (a rule whose first premise has no row builds nothing)."""
        if self.depth <= 2:  # the variant's body and its one-pass loop: reached once
            self.pre.append(f"{name} = {expr}")
            return
        self.pre.append(f"{name} = None")
        self.emit(f"if {name} is None:")
        self.emit(f"    {name} = {expr}")

    def fresh(self, prefix: str = "t") -> str:
        self.tmp += 1
        return f"{prefix}{self.tmp}"

    # -- terms ------------------------------------------------------------------------------
    def ground(self, term: Term) -> bool:
        return set(term_vars(term, {})) <= self.bound

    def build(self, term: Term) -> str:
        """Code for a term that is ground under the current bindings."""
        kind = type(term)
        if kind is int:
            return repr(term)
        if kind is str:
            return repr(term)
        if len(term) == 2 and term[0] == VAR:
            return _vname(term[1])
        if term[0] == ARITH:
            return self.arith(term)
        if len(term) == 1:
            return repr(term)
        if not term_vars(term, {}) and not _has_arith(term):
            return self.const(term)
        return "_C(" + repr(term[0]) + ", " + ", ".join(self.build(a) for a in term[1:]) + ")"

    def const(self, term: Term) -> str:
        """A ground compound as a named constant of the generated code: a term of any depth costs one
        name, never a nested literal the Python compiler would refuse."""
        self.consts.append(term)
        return f"K{len(self.consts) - 1}"

    def arith(self, term: Term) -> str:
        if isinstance(term, tuple) and term[0] == ARITH:
            fn = B.ARITH_CODE[term[1]]
            return f"{fn}({self.arith(term[2])}, {self.arith(term[3])})"
        return self.build(term)

    def match(self, pattern: Term, src: str) -> None:
        """Emit checks/bindings that make ``pattern`` equal the value of expression ``src``."""
        kind = tuple if isinstance(pattern, tuple) else type(pattern)
        if kind is tuple and len(pattern) == 2 and pattern[0] == VAR:
            name = pattern[1]
            if name in self.bound:
                self.emit(f"if {_vname(name)} != {src}: continue")
            else:
                self.emit(f"{_vname(name)} = {src}")
                self.bound.add(name)
            return
        if kind is tuple and self.ground(pattern):
            self.emit(f"if {src} != {self.build(pattern)}: continue")
            return
        if kind is not tuple:
            self.emit(f"if type({src}) is not {kind.__name__} or {src} != {pattern!r}: continue")
            return
        t = self.fresh()
        self.emit(f"{t} = {src}")
        self.emit(f"if not isinstance({t}, tuple) or len({t}) != {len(pattern)} or {t}[0] != {pattern[0]!r}: continue")
        for i, sub in enumerate(pattern[1:], 1):
            self.match(sub, f"{t}[{i}]")

    def persp_value(self, persp: Term) -> str | None:
        """Code for a literal's perspective name when known, else None."""
        if type(persp) is str:
            return repr(persp)
        name = persp[1]
        if name in self.bound:
            if name not in self.atom_vars:
                v = _vname(name)
                self.emit(f"if type({v}) is not tuple or len({v}) != 1: continue")
                self.atom_vars.add(name)
            return f"{_vname(name)}[0]"
        return None

    # -- steps ------------------------------------------------------------------------------
    def bound_columns(self, persp: str | None, args: tuple) -> tuple[list[int], list[str]]:
        """The columns whose values are known here (the perspective when given, ground arguments) and
        the code for those values."""
        cols: list[int] = [0] if persp is not None else []
        vals: list[str] = [persp] if persp is not None else []
        for c, arg in enumerate(args, 1):
            if self.ground(arg):
                cols.append(c)
                vals.append(self.build(arg))
        return cols, vals

    def table_literal(self, pos: int, lit: Literal, source: str) -> None:
        """source: 'full', 'delta' or 'old'."""
        row = f"r{pos}"
        key_cols, key_vals = self.bound_columns(self.persp_value(lit.persp), lit.args)
        rows_name = f"R{pos}"
        width = len(lit.args) + 1
        narrow = type(lit.persp) is str and source != "delta"  # the perspective's own index: no width checks
        if source == "old" or (source == "full" and not key_cols and not narrow):
            self.lookup(rows_name, f"ctx.rows({lit.rel!r})")
        if narrow:
            cols, vals = key_cols[1:], key_vals[1:]
            idx = f"I{pos}"
            self.lookup(idx, f"ctx.pindex({lit.rel!r}, {lit.persp!r}, {width}, {tuple(cols)!r})")
            if cols:
                key = vals[0] if len(vals) == 1 else "(" + ", ".join(vals) + ")"
                self.emit(f"for {row} in {idx}.get({key}, ()):")
            else:
                self.emit(f"for {row} in {idx}:")
            self.depth += 1
        elif source == "delta":
            self.pre.append(f"D{pos} = ctx.delta({lit.rel!r})")
            self.emit(f"for {row} in D{pos}:")
            self.depth += 1
            for c, val in zip(key_cols, key_vals):
                self.emit(f"if {row}[{c}] != {val}: continue")
        elif key_cols:
            idx = f"I{pos}"
            self.lookup(idx, f"ctx.index({lit.rel!r}, {tuple(key_cols)!r})")
            key = key_vals[0] if len(key_vals) == 1 else "(" + ", ".join(key_vals) + ")"
            self.emit(f"for {row} in {idx}.get({key}, ()):")
            self.depth += 1
        else:
            self.emit(f"for {row} in {rows_name}:")
            self.depth += 1
        if not narrow:
            self.emit(f"if len({row}) != {width}: continue")
        if source == "old":
            self.emit(f"if {rows_name}[{row}] >= prev: continue")
        if lit.temporal == INIT:
            self.emit("if ctx.tick != 0: continue")
        if is_var(lit.persp) and lit.persp[1] not in self.bound:
            self.emit(f"{_vname(lit.persp[1])} = ({row}[0],)")
            self.bound.add(lit.persp[1])
            self.atom_vars.add(lit.persp[1])
        for c, arg in enumerate(lit.args, 1):
            if c not in key_cols:
                self.match(arg, f"{row}[{c}]")

    def pattern_joins(self, order: list[int], delta: int, recursive: frozenset) -> dict[int, PatternJoin]:
        """The premises to join through a pattern index (``engine.pattern_index``), by body position, and
        ``order`` rearranged in place so that each comes right after the premise that binds its text.

        A premise qualifies when a ``matches(X, P)`` or ``glob(X, P)`` tests the variable ``P`` it alone
        binds (no other premise, builtin or negation names ``P``) against a variable ``X`` another positive
        premise binds; it is read in full (neither this variant's delta nor in the rule's own recursive
        component: its table is complete), with a written perspective, and shares no other variable with the
        rest of the body (a premise the rule joins on a column keeps that index).  Joined, the firings are those of the
        pair loop (the same premises hold), so only their order and the work per firing change."""
        body = self.clause.body
        joins: dict[int, PatternJoin] = {}
        for j, item in enumerate(body):
            if not (
                isinstance(item, Builtin)
                and item.op in ("matches", "glob")
                and is_var(item.left)
                and is_var(item.right)
                and item.left[1] != item.right[1]
            ):
                continue
            text, pattern = item.left[1], item.right[1]
            users = [k for k, other in enumerate(body) if k != j and pattern in item_vars(other)]
            if len(users) != 1 or users[0] in joins:
                continue
            i = users[0]
            lit = body[i]
            if (
                not isinstance(lit, Literal)
                or i == delta
                or lit.rel in recursive
                or lit.rel in self.demand
                or lit.temporal != NOW
                or type(lit.persp) is not str
            ):
                continue
            own = set(literal_vars(lit, {}))
            if text in own or any(own & set(item_vars(other)) - {pattern} for k, other in enumerate(body) if k != i):
                continue  # shares a variable with the rest of the body: its joins on that are kept
            columns = [c for c, arg in enumerate(lit.args, 1) if is_var(arg) and arg[1] == pattern]
            if len(columns) != 1 or any(pattern in term_vars(arg, {}) for arg in lit.args if not is_var(arg)):
                continue
            binder = next(
                (k for k in order if k != i and isinstance(body[k], Literal) and text in literal_vars(body[k], {})),
                None,
            )
            if binder is None:
                continue
            if order.index(binder) > order.index(i):
                order.remove(i)
                order.insert(order.index(binder) + 1, i)
            joins[i] = PatternJoin(j, text, columns[0], item.op)
        return joins

    def pattern_literal(self, pos: int, lit: Literal, join: PatternJoin) -> None:
        """A premise read through its pattern index: the rows whose pattern the bound text matches."""
        row = f"r{pos}"
        idx = f"PJ{pos}"
        width = len(lit.args) + 1
        self.pre.append(f"{idx} = ctx.pattern_index({lit.rel!r}, {lit.persp!r}, {width}, {join.column}, {join.op!r})")
        self.emit(f"for {row} in {idx}.rows({_vname(join.text)}):")
        self.depth += 1
        for c, arg in enumerate(lit.args, 1):
            self.match(arg, f"{row}[{c}]")

    def call_args(self, lit: Literal) -> tuple[str, str]:
        persp = self.persp_value(lit.persp)
        args = [self.build(a) if self.ground(a) else "None" for a in lit.args]
        return (persp or "None"), "(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"

    def demand_literal(self, pos: int, lit: Literal) -> None:
        row = f"r{pos}"
        persp, args = self.call_args(lit)
        rows = self.fresh("c")
        self.emit("ctx.steps = steps")  # a call unfolds on the shared step count
        self.emit(f"{rows} = CALL({lit.rel!r}, {persp}, {args})")
        self.emit("steps = ctx.steps")
        self.emit(f"for {row} in {rows}:")
        self.depth += 1
        if is_var(lit.persp) and lit.persp[1] not in self.bound:
            self.emit(f"{_vname(lit.persp[1])} = ({row}[0],)")
            self.bound.add(lit.persp[1])
            self.atom_vars.add(lit.persp[1])
        for c, arg in enumerate(lit.args, 1):
            if not self.ground(arg):
                self.match(arg, f"{row}[{c}]")

    def pattern(self, term: Term) -> str:
        """Code for a term with its bound variables filled in and its wildcards left as variables."""
        if isinstance(term, tuple) and len(term) == 2 and term[0] == VAR:
            return _vname(term[1]) if term[1] in self.bound else repr(term)
        if isinstance(term, tuple) and len(term) > 1:
            if not term_vars(term, {}):
                return self.const(term)
            return "(" + repr(term[0]) + ", " + ", ".join(self.pattern(a) for a in term[1:]) + ")"
        return repr(term)

    def negation(self, pos: int, lit: Literal) -> None:
        """Skip the firing when a fact matching the negated literal exists (its wildcards match anything)."""
        width = len(lit.args) + 1
        guard = None  # a perspective variable bound to a non-atom names no perspective: 'not' holds
        if type(lit.persp) is str:
            persp = repr(lit.persp)
        elif lit.persp[1] in self.bound:
            v = _vname(lit.persp[1])
            persp, guard = f"{v}[0]", f"type({v}) is tuple and len({v}) == 1"
        else:
            persp = None  # a wildcard perspective
        cols, vals = self.bound_columns(persp, lit.args)
        checks = [
            f"({c}, {self.pattern(arg)})"
            for c, arg in enumerate(lit.args, 1)
            if not self.ground(arg) and not is_var(arg)
        ]
        if lit.rel in self.demand:
            args = "(" + "".join(f"{self.build(a) if self.ground(a) else 'None'}, " for a in lit.args) + ")"
            found = self.fresh("c")
            self.emit("ctx.steps = steps")
            self.emit(f"{found} = CALL({lit.rel!r}, {persp or 'None'}, {args}) if {guard or 'True'} else ()")
            self.emit("steps = ctx.steps")
            hit = f"_exists({found}, {width}, ({''.join(ch + ', ' for ch in checks)}))"
        elif len(cols) == width:
            self.lookup(f"R{pos}", f"ctx.rows({lit.rel!r})")
            hit = f"({', '.join(vals)},) in R{pos}"
        else:
            if cols:
                self.lookup(f"I{pos}", f"ctx.index({lit.rel!r}, {tuple(cols)!r})")
                key = vals[0] if len(vals) == 1 else "(" + ", ".join(vals) + ")"
                bucket = f"I{pos}.get({key}, ())"
            else:
                self.lookup(f"R{pos}", f"ctx.rows({lit.rel!r})")
                bucket = f"R{pos}"
            hit = f"_exists({bucket}, {width}, ({''.join(ch + ', ' for ch in checks)}))"
        self.emit(f"if {guard + ' and ' if guard else ''}{hit}: continue")

    def value(self, term: Term) -> str:
        """Code for a bound term's value in a fresh temporary; the firing is skipped when it is undefined
        (arithmetic on a non-integer, division by zero)."""
        t = self.fresh()
        self.emit(f"{t} = {self.build(term)}")
        for path in _arith_paths(term):  # only where arithmetic ran: a bound subterm is never walked
            self.emit(f"if {t}{''.join(f'[{i}]' for i in path)} is None: continue")
        if isinstance(term, tuple) and term[0] == ARITH:  # arithmetic is only ever a builtin's whole side
            self.charge_int(t)
        return t

    def charge_int(self, t: str) -> None:
        """Charge a new integer its size (``engine.costs.int_steps``, inlined: a small integer costs two
        comparisons); a charge past the budget ends the evaluation here."""
        self.emit(f"if not {-C.INT_LIMIT} < {t} < {C.INT_LIMIT}:")
        self.emit(f"    steps += {t}.bit_length() - {C.FREE_BITS}")
        self.emit("    if steps > limit:")
        self.emit("        ctx.steps = limit")
        self.emit("        raise _BUDGET")

    def builtin(self, item: Builtin) -> None:
        """The generated form of a builtin, by its kind in ``engine.builtins.TABLE``."""
        spec = B.BY_OP[item.op]
        if spec.kind == B.ASSIGN:
            t = self.value(item.right)
            self.emit(f"if type({t}) is not int: continue")  # integer arithmetic only
            self.match(item.left, t)
        elif spec.kind == B.UNIFY:
            if self.ground(item.left) and self.ground(item.right):
                self.emit(f"if {self.value(item.left)} != {self.value(item.right)}: continue")
            elif self.ground(item.left):
                self.match(item.right, self.value(item.left))
            else:
                self.match(item.left, self.value(item.right))
        elif item.op in ("matches", "glob") and type(item.right) is str and (search := self.constant_pattern(item)):
            # a written pattern is compiled once, here: the firing calls its search alone
            matcher = self.const(search)
            text = self.value(item.left)
            self.emit(f"if type({text}) is not str or not {matcher}({text}): continue")
        else:
            self.emit(f"if not {spec.code}({self.value(item.left)}, {self.value(item.right)}): continue")

    def constant_pattern(self, item: Builtin) -> Any:
        """The search of ``matches``'s or ``glob``'s written pattern (None when it is refused: the builtin
        then says so where it runs, as before)."""
        from . import text_builtins as T

        try:
            return (T.regex if item.op == "matches" else T.glob_automaton)(item.right).search
        except T.PatternError:
            return None

    def aggregate(self, item: Aggregate) -> None:
        """Loop over the aggregate's groups (computed once per evaluation and bound-group values:
        ``engine.aggregates.compiled_call``), binding its free groups and matching its result."""
        bound = tuple(g for g in item.groups if g in self.bound)
        call = Call(item, bound)
        self.calls.append(call)
        name = f"A{len(self.calls) - 1}"
        values = "(" + "".join(f"{_vname(g)}, " for g in bound) + ")"
        found, each = self.fresh("g"), self.fresh("e")
        self.emit("ctx.steps = steps")  # the inner solutions are steps on the shared count
        self.emit(f"{found} = _AGG(ctx, {name}, {values})")
        self.emit("steps = ctx.steps")
        self.emit(f"for {each} in {found}:")
        self.depth += 1
        for i, g in enumerate(call.free):
            self.match((VAR, g), f"{each}[0][{i}]")
        self.match(item.result, f"{each}[1]")

    def ready(self, item) -> bool:
        if isinstance(item, Aggregate):
            return set(item.groups) & self.outer <= self.bound
        if isinstance(item, Negated):
            return set(literal_vars(item.lit, {})) - self.wild <= self.bound
        left, right = set(term_vars(item.left, {})), set(term_vars(item.right, {}))
        return B.binds(item.op, item.left, item.right, left, right, self.bound) is not None

    # -- whole variant ----------------------------------------------------------------------
    def generate(self, delta: int, recursive: frozenset) -> str:
        body = self.clause.body
        order = ([delta] if delta >= 0 else []) + [i for i in range(len(body)) if i != delta]
        pending: list[int] = []

        def flush() -> None:
            progress = True
            while progress:
                progress = False
                for i in list(pending):
                    if self.ready(body[i]):
                        pending.remove(i)
                        item = body[i]
                        if isinstance(item, Negated):
                            self.negation(i, item.lit)
                        elif isinstance(item, Aggregate):
                            self.aggregate(item)
                        else:
                            self.builtin(item)
                        progress = True
                        break

        joins = self.pattern_joins(order, delta, recursive)
        self.emit("for _once in _ONCE:")
        self.depth += 1
        for i in order:
            item = body[i]
            if isinstance(item, Literal):
                if item.rel in self.demand:
                    self.demand_literal(i, item)
                elif i in joins:
                    self.pattern_literal(i, item, joins[i])
                else:
                    if i == delta:
                        source = "delta"
                    elif delta >= 0 and i < delta and item.rel in recursive:
                        source = "old"
                    else:
                        source = "full"
                    self.table_literal(i, item, source)
            elif not any(join.builtin == i for join in joins.values()):  # a joined pattern's test is the join
                pending.append(i)
            flush()
        if pending:
            raise UnsafeRule("premises could not be ordered so that their inputs are bound")
        self.head()
        return self.assemble()

    def head(self) -> None:
        h = self.clause.head
        persp = self.persp_value(h.persp)
        assert persp is not None, "a head's perspective is a name or a variable its body binds"
        parts = [persp] + [self.build(a) for a in h.args]
        self.emit(f"f = ({', '.join(parts)},)")
        wit = "(" + "".join(f"r{i}, " for i in self.rule.positive) + ")"
        if self.naive:
            self.emit(f"k = (RID, f, {wit})")
            self.emit("if k in SEEN: continue")
            self.emit("SEEN.add(k)")
        self.emit(f"steps += {1 + _built_nodes(h) // C.TERM_STEP}")  # a head pays for the nodes it builds
        self.emit("if steps > limit:")
        self.emit("    ctx.steps = steps - 1")
        self.emit("    raise _BUDGET")
        if self.next_head or not rewitnessable(self.rule):
            # a staged fact keeps its witness (the tick that installs it reads no rounds), and so does a
            # fact whose witness could only be found again by scanning a premise's whole relation
            # one probe of the records per firing: a new record is set by the probe itself
            self.emit(f"new = (RIX, {''.join(f'r{i}, ' for i in self.rule.positive)})")
            self.emit("rec = P.setdefault(f, new)")
            self.emit("if rec is not new:")
            self.emit("    _again(M, f, rec, RIX)")
            if not self.next_head:
                self.emit("else:")
                self.emit("    NEW.append(f)")  # base facts are left out when the round is installed (Context.flush)
            return
        # the record is the rule alone; its witness is found again when asked (Context.record).  For a lean
        # relation (``Context.lean_records``) P holds only this round's facts and R the installed ones, which
        # keep no record at all; for any other R is empty
        self.emit("rec = P.get(f)")
        self.emit("if rec is None:")
        self.emit("    if f in R:")
        self.emit("        _again_lean(M, f)")
        self.emit("    else:")
        self.emit("        P[f] = RIX")
        self.emit("        NEW.append(f)")  # base facts are left out when the round is installed (Context.flush)
        self.emit("else:")
        self.emit("    _again(M, f, rec, RIX)")

    def assemble(self) -> str:
        h = self.clause.head.rel
        head = [
            "def variant(ctx, RIX):",
            "    steps = ctx.steps; limit = ctx.limit; prev = ctx.prev",
            f"    M = ctx.{'staged_more' if self.next_head else 'more'}({h!r})",
        ]
        if self.next_head or not rewitnessable(self.rule):
            head.append(f"    P = ctx.{'staged' if self.next_head else 'prov'}({h!r})")
        else:
            head.append(f"    P, R = ctx.lean_records({h!r})")
        if not self.next_head:
            head.append(f"    ctx.table({h!r}); NEW = ctx.new({h!r})")  # the head has a table, even if empty
        if self.naive:
            head.append("    SEEN = ctx.seen")
        head.append("    CALL = ctx.call")
        head.extend("    " + p for p in self.pre)
        return "\n".join(head + self.lines + ["    ctx.steps = steps"])


_has_arith = B.has_arith


def _built_nodes(head: Literal) -> int:
    """Compound nodes a firing of the head builds: those around a variable (ground ones are constants
    built once).  Bound subterms are shared, never copied, so this is the firing's whole term cost."""
    nodes = 0
    stack = [a for a in head.args if isinstance(a, tuple) and len(a) > 1 and a[0] != VAR]
    while stack:
        t = stack.pop()
        if term_vars(t, {}):
            nodes += 1
            stack.extend(a for a in t[1:] if isinstance(a, tuple) and len(a) > 1 and a[0] != VAR)
    return nodes


def _arith_paths(term: Term) -> list[tuple[int, ...]]:
    """The argument paths of the arithmetic nodes of a term (outermost only): where its value can be
    undefined (None)."""
    out: list[tuple[int, ...]] = []
    stack: list = [(term, ())]
    while stack:
        t, path = stack.pop()
        if not isinstance(t, tuple) or len(t) < 2 or t[0] == VAR:
            continue
        if t[0] == ARITH:
            out.append(path)
        else:
            stack.extend((a, (*path, i)) for i, a in enumerate(t[1:], 1))
    return sorted(out)


def _exists(rows, width: int, checks: tuple) -> bool:
    """Whether some row of the right width matches every (column, pattern) check."""
    for row in rows:
        if len(row) == width and all(B.match(p, row[c], {}) for c, p in checks):
            return True
    return False


def rewitnessable(rule: CompiledRule) -> bool:
    """Whether the witness of a fact the rule derives can be found again through indexes
    (``Context.record``): with the head's variables bound, the body in solving order looks every
    positive premise up by at least one known argument.  A rule that fails this (``r(N) :- r(Z),
    N is Z * 4``) keeps each fact's witness in its record instead."""
    from .query import schedule

    order, pending = schedule(rule.clause.body, set(literal_vars(rule.clause.head, {})))
    if pending:
        return False
    have = set(literal_vars(rule.clause.head, {}))
    for item in order:
        if isinstance(item, Literal):
            if item.args and not any(set(term_vars(a, {})) <= have for a in item.args):
                return False
            have.update(literal_vars(item, {}))
        elif not isinstance(item, Negated):
            have.update(item_vars(item))
    return True


def rule_of(rec: int | tuple) -> int:
    """The rule index of a provenance record: a compiled rule's record is its rule index alone (its
    witness is found again when asked: ``Context.record``); a staged fact's, a demand answer's and an
    interpreted rule's is the tuple ``(rule_index, *witness_rows)``."""
    return rec if isinstance(rec, int) else rec[0]


def again(more: dict, fact: tuple, rec: int | tuple, rix: int) -> None:
    """Count one more distinct firing of an already derived ``fact`` (its record ``rec``) by rule ``rix``.

    Support beyond one firing and the other rules that derived the fact live in ``more``: the support
    alone (an int) while every firing is by the record's rule, else ``[support, extra_rule_indexes]``
    (most facts have one firing; most of the others one rule)."""
    first = rule_of(rec)
    m = more.get(fact)
    if m is None:
        more[fact] = 2 if first == rix else [2, [rix]]
    elif type(m) is int:
        more[fact] = m + 1 if first == rix else [m + 1, [rix]]
    else:
        m[0] += 1
        if first != rix and rix not in m[1]:
            m[1].append(rix)


def again_lean(more: dict, fact: tuple) -> None:
    """Count one more firing of an installed fact of a lean relation (no record: ``Context.lean_records``);
    which rules derived it is found when asked."""
    m = more.get(fact)
    if m is None:
        more[fact] = 2
    elif type(m) is int:
        more[fact] = m + 1
    else:
        m[0] += 1


def support_of(more: int | list | None) -> int:
    """The number of distinct firings a fact's entry in ``more`` (``again``) counts; 1 without one."""
    return 1 if more is None else more if isinstance(more, int) else more[0]


def extra_rules(more: int | list | None) -> tuple[int, ...]:
    """The rules other than its record's that derived a fact, from its entry in ``more`` (``again``)."""
    return tuple(more[1]) if isinstance(more, list) else ()


_GLOBALS = {
    **B.CODE_GLOBALS,
    "_ONCE": (None,),
    "_BUDGET": BudgetExhausted,
    "_C": compound,
    "_again": again,
    "_again_lean": again_lean,
    "_exists": _exists,
    "_AGG": compiled_call,
}


@lru_cache(maxsize=8192)
def _code(source: str, name: str):
    """Compiled code objects are immutable, so identical generated source is compiled once per process."""
    return compile(source, name, "exec")


def compile_variant(rule: CompiledRule, delta: int, recursive: frozenset, demand: frozenset, naive: bool) -> Callable:
    """Generate and compile one variant of ``rule`` (delta = -1 for the full variant)."""
    gen = _Gen(rule, demand, rule.clause.head.temporal == NEXT, naive)
    source = gen.generate(delta, recursive)
    env: dict[str, Any] = dict(_GLOBALS)
    env["RID"] = rule.rid
    for i, value in enumerate(gen.consts):
        env[f"K{i}"] = value
    for i, call in enumerate(gen.calls):
        env[f"A{i}"] = call
    exec(_code(source, f"<rule {rule.rid} variant {delta}>"), env)
    fn = env["variant"]
    fn.source = source
    return fn

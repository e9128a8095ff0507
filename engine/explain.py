"""Explanations: ``why`` (a derivation tree to base facts) and ``whynot`` (the failing premises)."""

from __future__ import annotations

from dataclasses import dataclass

from . import builtins as B
from . import vocabulary as V
from .clauses import Aggregate, Builtin, Literal, Negated, is_var
from .demand import Demand, builtin_solutions
from .display import clause_text, item_text, row_text
from .evaluate import Context
from .plan import BudgetExhausted
from .store import Store
from .terms import format_term

SEARCH_LIMIT = 20_000
AGGREGATE_SHOWN = 10  # solutions an aggregate's explanation shows; the rest are counted


@dataclass(frozen=True, slots=True)
class Node:
    """One node of an explanation.

    kind: ``base`` (asserted), ``derived`` (by ``rule``), ``past`` (a fact installed from a finished
    tick), ``negation`` (a negated premise shown with its finite-failure demonstration), ``builtin``,
    ``aggregate`` (an aggregate premise: ``detail`` says what it aggregated, its children are the
    solutions, the first ``AGGREGATE_SHOWN`` of them, then ``more``), ``solution`` (one solution of an
    aggregate's conjunction, over its premises), ``holds``, ``missing`` (no such base fact), ``rule`` (a rule that could conclude the fact) and
    ``fails`` (the premise that fails under the best partial match).
    """

    kind: str
    text: str
    rule: str | None = None
    rule_text: str | None = None
    who: str | None = None
    children: tuple = ()
    detail: str | None = None

    def as_dict(self) -> dict:
        """The tree as nested objects (built without recursion: any depth)."""
        root: dict = {}
        stack = [(self, root)]
        while stack:
            node, out = stack.pop()
            out["kind"] = node.kind
            out["fact"] = node.text
            if node.rule is not None:
                out["rule"] = node.rule
                out["rule_text"] = node.rule_text
            if node.who is not None:
                out["who"] = node.who
            if node.detail is not None:
                out["detail"] = node.detail
            if node.children:
                kids: list[dict] = [{} for _ in node.children]
                out["children"] = kids
                stack.extend(zip(node.children, kids))
        return root

    def label(self) -> str:
        return {
            "base": "base fact" + (f", asserted by {self.who}" if self.who else ""),
            "derived": f"by {self.rule}: {self.rule_text}",
            "past": f"[past tick] by {self.rule}, {self.rule_text}",
            "negation": "holds by finite failure",
            "builtin": "builtin holds",
            "aggregate": self.detail or "aggregate",
            "solution": "solution",
            "more": "not shown",
            "holds": "holds",
            "missing": "no such base fact",
            "rule": f"rule {self.rule} could conclude it: {self.rule_text}",
            "fails": "fails",
            "ok": "holds",
            "absent": "does not hold",
        }.get(self.kind, self.kind)

    def lines(self, depth: int = 0) -> list[str]:
        """One line per node, children indented under their parent (iterative: any depth, linear time)."""
        out: list[str] = []
        stack = [(self, depth)]
        while stack:
            node, d = stack.pop()
            out.append(f"{_indent(d)}{node.text}    -- {node.label()}")
            stack.extend((c, d + 1) for c in reversed(node.children))
        return out


INDENT_CAP = 40  # deeper levels show their depth instead of more indentation: output stays linear


def _indent(depth: int) -> str:
    return "  " * depth if depth <= INDENT_CAP else "  " * INDENT_CAP + f"[{depth}] "


def _bind_rule(rule, row: tuple, wit: tuple) -> dict:
    binding: dict = {}
    head = rule.clause.head
    if is_var(head.persp):
        binding[head.persp[1]] = (row[0],)
    for p, v in zip(head.args, row[1:]):
        B.match(p, v, binding)
    for pos, prow in zip(rule.positive, wit):
        lit = rule.clause.body[pos]
        if is_var(lit.persp):
            B.match(lit.persp, (prow[0],), binding)
        for p, v in zip(lit.args, prow[1:]):
            B.match(p, v, binding)
    return binding


def _ground(lit: Literal, binding: dict) -> tuple | None:
    return Demand.ground_head(lit, binding)


def _pattern_row(lit: Literal, binding: dict) -> tuple:
    """A literal's row under ``binding``, with None where a variable is still unbound."""
    if is_var(lit.persp):
        p = binding.get(lit.persp[1])
        persp = p[0] if type(p) is tuple and len(p) == 1 else None
    else:
        persp = lit.persp
    return (persp, *[B.substitute(a, binding) for a in lit.args])


def why(
    ctx: Context, store: Store, rel: str, row: tuple, _path: set | None = None, demanded: dict | None = None
) -> Node | None:
    """One derivation tree of a fact that holds, or None when it does not hold.

    ``_path`` holds the facts being explained above this one (a cycle shows as "see above"); it is one
    set shared down the tree, so a derivation n levels deep costs time linear in n.  ``demanded`` holds
    the records ``engine.magic.demanded_proof`` found for a relation the evaluation did not build
    (``{rel: {row: record}}``), read where the evaluation has none."""
    if _path is None:
        _path = set()
    text = row_text(rel, row)
    if rel in (V.IN_PERSPECTIVE, V.ASSERTED_BY):
        return Node("base", text)  # fact metadata, answered from the store
    base = store.base.get(rel)
    if base is not None and row in base:
        origin = store.past.get((rel, row))
        if origin is not None:
            return Node("past", text, rule=origin[0], rule_text=f"staged at tick {origin[1]}")
        return Node("base", text, who=base[row].who)
    rec = ctx.record(rel, row)
    if rec is None and demanded is not None:
        rec = demanded.get(rel, {}).get(row)
    if rec is None:
        return None
    if (rel, row) in _path:
        return Node("derived", text + " (see above)")
    path = _path
    path.add((rel, row))
    rule = ctx.decoded.rules[rec[0]]
    binding = _bind_rule(rule, row, rec[1:])
    children: list[Node] = []
    wit = iter(rec[1:])
    for item in rule.clause.body:
        if isinstance(item, Literal):
            prow = next(wit, None)
            if prow is None:  # a record without its witness (``Context.record``'s last resort)
                children.append(Node("missing", _instantiate(item, binding)))
                continue
            child = why(ctx, store, item.rel, prow, path, demanded)
            children.append(child if child is not None else Node("missing", row_text(item.rel, prow)))
        elif isinstance(item, Negated):
            g = _ground(item.lit, binding)
            if g is not None:
                label, demo = "not " + row_text(item.lit.rel, g), whynot(ctx, store, item.lit.rel, g)
            else:  # wildcards left: demonstrate that no fact matches the pattern
                label = _instantiate(item, binding)
                demo = whynot(ctx, store, item.lit.rel, _pattern_row(item.lit, binding), label[4:])
            children.append(Node("negation", label, children=demo.children))
        elif isinstance(item, Aggregate):
            node, binding = _aggregate_node(ctx, store, item, binding, row, rule.clause.head, path)
            children.append(node)
        else:
            binding = next(iter(builtin_solutions(item, binding)), binding)
            children.append(Node("builtin", _builtin_text(item, binding)))
    path.discard((rel, row))
    return Node("derived", text, rule=rule.rid, rule_text=clause_text(rule.clause), children=tuple(children))


def _aggregate_node(ctx: Context, store: Store, agg: Aggregate, binding: dict, row: tuple, head, path: set):
    """An aggregate premise under ``binding``: the group the fact came from (the first whose result
    fits the head), as a node over the solutions it aggregated, and the binding it extends."""
    from .aggregates import extend, groups

    free = tuple(g for g in agg.groups if g not in binding)
    chosen = None
    for key, result in groups(ctx.demand, agg, binding, False, free):
        b = extend(agg, binding, free, key, result)
        if b is not None and (chosen is None or _ground(head, b) == row):
            chosen = (b, result)
            if _ground(head, b) == row:
                break
    if chosen is None:  # the aggregate no longer holds (cannot happen for a fact that holds)
        return Node("fails", _aggregate_text(agg, binding)), binding
    b, result = chosen
    inner = dict(binding)
    inner.update((g, b[g]) for g in free)
    seen: dict = {}
    for sb, wit in ctx.demand.solve(agg.body, 0, inner, (), False):
        seen.setdefault(tuple(sb.get(n) for n in sorted(sb)), (sb, wit))
    kids: list[Node] = []
    positive = [i for i in agg.body if isinstance(i, Literal)]
    for sb, wit in list(seen.values())[:AGGREGATE_SHOWN]:
        facts = []
        for lit, prow in zip(positive, wit):
            child = why(ctx, store, lit.rel, prow, path)
            facts.append(child if child is not None else Node("missing", row_text(lit.rel, prow)))
        if len(facts) == 1 and len(agg.body) == 1:
            kids.append(facts[0])
        else:
            text = ", ".join(_instantiate(i, sb) for i in agg.body)
            kids.append(Node("solution", text, children=tuple(facts)))
    if len(seen) > AGGREGATE_SHOWN:
        kids.append(Node("more", f"... {len(seen) - AGGREGATE_SHOWN} more solutions"))
    n = len(seen)
    detail = f"{agg.op} of {n} solution{'' if n == 1 else 's'}"
    if agg.op != "count":
        detail += f" is {format_term(result)}"
    return Node("aggregate", _aggregate_text(agg, b), children=tuple(kids), detail=detail), b


def _aggregate_value(ctx: Context, agg: Aggregate, binding: dict) -> str:
    """What a failing aggregate's groups are instead: `` (it is 2)``, `` (no solution)``."""
    from .aggregates import groups

    try:
        found = groups(ctx.demand, agg, binding, False)
    except BudgetExhausted:
        return ""
    if not found:
        return " (no solution)"
    shown = ", ".join(format_term(result) for _, result in found[:AGGREGATE_SHOWN])
    return f" (it is {shown}{', ...' if len(found) > AGGREGATE_SHOWN else ''})"


def _aggregate_text(agg: Aggregate, binding: dict) -> str:
    from .display import aggregate_text, term_text

    body = tuple(_subst_item(i, binding) for i in agg.body)
    shown = Aggregate(agg.op, agg.result, _partial(agg.value, binding), body, agg.groups)
    return f"{term_text(_partial(agg.result, binding))} = {aggregate_text(shown)}"


def _subst_item(item, binding: dict):
    if isinstance(item, Literal):
        return _subst_lit(item, binding)
    if isinstance(item, Negated):
        return Negated(_subst_lit(item.lit, binding))
    return Builtin(item.op, _partial(item.left, binding), _partial(item.right, binding))


def _builtin_text(item: Builtin, binding: dict) -> str:
    from .display import item_text

    return item_text(Builtin(item.op, _partial(item.left, binding), _partial(item.right, binding)))


def _partial(term, binding: dict):
    """Substitute the bound variables of ``term``, leaving unbound ones (and operators) in place."""
    if not isinstance(term, tuple) or len(term) == 1:
        return term
    if len(term) == 2 and term[0] == "$var":
        return binding.get(term[1], term)
    if term[0] == "$arith":
        return ("$arith", term[1], _partial(term[2], binding), _partial(term[3], binding))
    return (term[0], *[_partial(a, binding) for a in term[1:]])


def holds(ctx: Context, rel: str, row: tuple) -> bool:
    if rel in ctx.demand.rules:
        try:
            return row in ctx.call(rel, row[0], row[1:])
        except BudgetExhausted:
            return False
    t = ctx.tables.get(rel)
    return t is not None and row in t.rows


def whynot(ctx: Context, store: Store, rel: str, row: tuple, text: str | None = None) -> Node:
    """For a fact that does not hold: per rule that could conclude it, the premise that fails.

    ``None`` in ``row`` stands for a wildcard (a pattern from a negated premise).
    """
    pattern = any(v is None for v in row)
    text = text or row_text(rel, row)
    if not pattern and holds(ctx, rel, row):
        return Node("holds", text)
    candidates = []
    for rule in ctx.decoded.rules:
        head = rule.clause.head
        if head.rel != rel or len(head.args) != len(row) - 1:
            continue
        binding: dict = {}
        if row[0] is not None:
            if is_var(head.persp):
                binding[head.persp[1]] = (row[0],)
            elif head.persp != row[0]:
                continue
        if not all(v is None or B.match(p, v, binding) for p, v in zip(head.args, row[1:])):
            continue
        candidates.append(_best_partial(ctx, rule, binding))
    if not candidates:
        return Node("missing", text)
    return Node("absent", text, children=tuple(candidates))


def _best_partial(ctx: Context, rule, binding: dict) -> Node:
    body = rule.clause.body
    solver = ctx.demand
    best: list = [-1, binding]  # [depth, binding] of the deepest partial match
    budget = [SEARCH_LIMIT]

    def dfs(i: int, b: dict) -> bool:
        if i > best[0]:
            best[0], best[1] = i, b
        if i == len(body) or budget[0] <= 0:
            return i == len(body)
        budget[0] -= 1
        item = body[i]
        if isinstance(item, Literal):
            for prow in list(solver.literal_rows(item, b)):
                nb = solver.unify_row(item, prow, b)
                if nb is not None and dfs(i + 1, nb):
                    return True
            return False
        if isinstance(item, Negated):
            for prow in solver.literal_rows(item.lit, b):
                if solver.unify_row(item.lit, prow, b) is not None:
                    return False
            return dfs(i + 1, b)
        if isinstance(item, Aggregate):
            from .aggregates import solutions

            for nb in list(solutions(solver, item, b)):
                if dfs(i + 1, nb):
                    return True
            return False
        for nb in builtin_solutions(item, b):
            if dfs(i + 1, nb):
                return True
        return False

    saved = ctx.limit
    ctx.limit = ctx.steps + SEARCH_LIMIT
    try:
        dfs(0, binding)
    except BudgetExhausted:
        pass
    finally:
        ctx.limit = saved
    depth, b = best
    children = []
    for item in body[:depth]:
        children.append(Node("ok", _instantiate(item, b)))
    if depth < len(body):
        item = body[depth]
        text = _instantiate(item, b)
        if isinstance(item, Aggregate):
            text += _aggregate_value(ctx, item, b)
        children.append(Node("fails", text))
    return Node(
        "rule",
        row_text(rule.clause.head.rel, _ground(rule.clause.head, b) or ("?",))
        if _ground(rule.clause.head, b)
        else item_text(rule.clause.head),
        rule=rule.rid,
        rule_text=clause_text(rule.clause),
        children=tuple(children),
    )


def _instantiate(item, binding: dict) -> str:
    if isinstance(item, Literal):
        g = _ground(item, binding)
        return row_text(item.rel, g) if g else item_text(_subst_lit(item, binding))
    if isinstance(item, Negated):
        g = _ground(item.lit, binding)
        return "not " + (row_text(item.lit.rel, g) if g else item_text(_subst_lit(item.lit, binding)))
    if isinstance(item, Aggregate):
        return _aggregate_text(item, binding)
    return _builtin_text(item, binding)


def _subst_lit(lit: Literal, binding: dict) -> Literal:
    return Literal(
        lit.rel,
        lit.persp if not is_var(lit.persp) else (binding.get(lit.persp[1], (None,))[0] or lit.persp),
        tuple(_partial(a, binding) for a in lit.args),
        lit.temporal,
    )


def explain_text(ctx: Context, store: Store, rel: str, row: tuple) -> str:
    node = why(ctx, store, rel, row)
    return "\n".join(node.lines()) if node else row_text(rel, row) + " does not hold"

"""``cycle_component[P](Rel, Node, Comp)``: the nodes on a cycle of a binary relation, by strongly
connected component, computed once per evaluation with Tarjan's algorithm (linear in the edges).

Node lies on a cycle of ``Rel[P]`` (its component has more than one node, or it has an edge to itself);
``Comp`` names the component by its least node in canonical order.  A question about cycles therefore
never builds the transitive closure.  The relation is read only with ``Rel`` known: a rule or question
names the relation whose cycles it wants, and the kernel orders that relation's rules first.
"""

from __future__ import annotations

from . import vocabulary as V
from .tables import Table
from .terms import sort_key


def named_relation(lit) -> str | None:
    """The relation a ``cycle_component(Rel, _, _)`` literal names (``Rel`` an atom), else None.

    The literal reads that relation whole, complete before the rule runs, as under negation: the
    reflection records it as a negative premise, so stratification puts the relation in a lower
    stratum and reports a recursion through it as unstratified."""
    if lit.rel == V.CYCLE_COMPONENT and lit.args and type(lit.args[0]) is tuple and len(lit.args[0]) == 1:
        return lit.args[0][0]
    return None


def strong_components(succ: dict, roots) -> list[list]:
    """Tarjan's strongly connected components of ``succ`` ({node: [successors]}), iteratively.

    Roots are visited in the order given and successors in list order; each component is emitted
    after every component it reaches, members in the order they leave the stack.
    """
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    out: list[list] = []
    counter = 0
    for root in roots:
        if root in index:
            continue
        work = [(root, iter(succ[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(succ[nxt])))
                    advanced = True
                    break
                if nxt in on_stack and index[nxt] < low[node]:
                    low[node] = index[nxt]
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[node] < low[parent]:
                    low[parent] = low[node]
            if low[node] == index[node]:
                members = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    members.append(w)
                    if w == node:
                        break
                out.append(members)
    return out


def components(edges: list[tuple]) -> dict:
    """``{node: component representative}`` for every node on a cycle of ``edges`` ((a, b) pairs)."""
    succ: dict = {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        succ.setdefault(b, [])
    out: dict = {}
    for members in strong_components(succ, list(succ)):
        if len(members) > 1 or members[0] in succ[members[0]]:
            rep = min(members, key=sort_key)
            for m in members:
                out[m] = rep
    return out


class _ByRelation:
    """An index of the cycle table over columns that include the relation (column 1), computed per probe."""

    __slots__ = ("table", "cols")

    def __init__(self, table: CycleTable, cols: tuple) -> None:
        self.table = table
        self.cols = cols

    def get(self, key, default=()):
        values = (key,) if len(self.cols) == 1 else key
        if type(values) is not tuple or len(values) != len(self.cols):
            return default
        rel = values[self.cols.index(1)]
        persps = [values[self.cols.index(0)]] if 0 in self.cols else self.table.perspectives(rel)
        out: list = []
        for persp in persps:
            out.extend(self.table.index_for(persp, rel, self.cols).get(values, ()))
        return out or default


class CycleTable:
    """A read-only table whose rows are computed from the evaluation's tables when a relation is asked."""

    __slots__ = ("ctx", "_done", "_indexes", "_table")

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self._done: dict = {}
        self._indexes: dict = {}
        self._table = Table()

    def index_for(self, persp, rel, cols: tuple) -> dict:
        """The rows of one relation's components keyed by their values at ``cols``, built once."""
        key = (persp, rel, cols)
        index = self._indexes.get(key)
        if index is None:
            index = self._indexes[key] = {}
            for row in self.rows_for(persp, rel):
                index.setdefault(tuple(row[c] for c in cols), []).append(row)
        return index

    def perspectives(self, rel) -> list:
        if type(rel) is not tuple or len(rel) != 1:
            return []
        table = self.ctx.tables.get(rel[0])
        return sorted({row[0] for row in table.rows if len(row) == 3}) if table is not None else []

    def rows_for(self, persp, rel) -> list:
        key = (persp, rel)
        hit = self._done.get(key)
        if hit is not None:
            return hit
        rows: list = []
        if type(rel) is tuple and len(rel) == 1 and type(persp) is str:
            table = self.ctx.tables.get(rel[0])
            edges = [(r[1], r[2]) for r in table.rows if len(r) == 3 and r[0] == persp] if table is not None else []
            for node, rep in components(edges).items():
                rows.append((persp, rel, node, rep))
            for row in rows:
                self._table.add(row, -1)
        self._done[key] = rows
        return rows

    @property
    def rows(self) -> dict:
        return self._table.rows

    @property
    def indexes(self) -> dict:
        return self._table.indexes

    def index(self, cols: tuple):
        if 1 in cols:
            return _ByRelation(self, cols)
        return self._table.index(cols)  # the relation unnamed: only what was computed already

    def add(self, row: tuple, rnd: int) -> None:
        raise TypeError("cycle_component is computed by the kernel")

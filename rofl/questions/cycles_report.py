"""Import cycles as paths: each strongly connected component, a shortest cycle through each of its
files, and a smallest set of imports whose removal breaks every cycle (a minimum feedback arc set).

The components come from ``engine.cycles.strong_components`` (the kernel's one Tarjan).  The cut is
exact when the component has at most ``EXACT_MAX_IMPORTS`` imports and an implicit hitting-set search
finishes within ``EXACT_STEPS`` branch steps: it finds a
smallest set of edges meeting every cycle found so far (branch and bound), and stops when removing
that set leaves the component acyclic (a smallest set meeting some of the cycles that meets all of
them is a smallest feedback arc set); otherwise it adds a cycle the set misses and searches again.
Beyond the budget the cut is the backward edges of the greedy Eades-Lin-Smyth order (improved by
moving files one at a time while that helps), reduced until every edge in it is needed, and marked
approximate, with a lower bound: how many edge-disjoint cycles a packing finds.

Every cut edge carries its proof: the listed cycles it breaks, and a witness cycle that passes
through it and through no other cut edge (so the cut without it leaves that cycle whole).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from rofl.engine.cycles import strong_components

EXACT_STEPS = 50_000  # branch steps of the exact search per component before the greedy order is used
EXACT_MAX_IMPORTS = 500  # a component with more imports than this gets the greedy order without a search
SIFT_PASSES = 8  # local search passes over the greedy order
SIFT_MAX_FILES = 1_000  # a larger component keeps the greedy order as it is
CYCLE_PROBES = 32  # files a search for a cycle the candidate cut misses starts from

Edge = tuple[str, str]


@dataclass(frozen=True, slots=True)
class CutEdge:
    """One import to remove, with why: the listed cycles through it and a cycle only it breaks."""

    source: str
    target: str
    breaks: tuple[tuple[str, ...], ...]  # the component's listed cycles that use this edge
    witness: tuple[str, ...]  # a cycle through this edge and no other cut edge (closed: first == last)


@dataclass(frozen=True, slots=True)
class CycleComponent:
    """A strongly connected component with a cycle: its files, cycles as closed paths, and the cut."""

    files: tuple[str, ...]
    cycles: tuple[tuple[str, ...], ...]
    cut: tuple[CutEdge, ...]
    exact: bool  # the cut is a minimum feedback arc set (False: greedy, each edge needed, maybe not fewest)
    lower_bound: int  # no cut has fewer imports (edge-disjoint cycles found; len(cut) when exact)


def components(edges: Iterable[Edge]) -> list[CycleComponent]:
    """Every component of the graph that holds a cycle, largest first, each with cycles and a cut."""
    succ: dict[str, list[str]] = {}
    for a, b in sorted(set(edges)):
        succ.setdefault(a, []).append(b)
        succ.setdefault(b, [])
    out = []
    for members in strong_components(succ, sorted(succ)):
        inside = set(members)
        if len(members) == 1 and members[0] not in succ[members[0]]:
            continue
        local = {n: [m for m in succ[n] if m in inside] for n in sorted(inside)}
        out.append(analyse(local))
    out.sort(key=lambda c: (-len(c.files), c.files))
    return out


def analyse(succ: dict[str, list[str]]) -> CycleComponent:
    """Cycles and a cut of one strongly connected component given as ``{file: [files it imports]}``."""
    cycles = shortest_cycles(succ)
    cut, exact = minimum_cut(succ)
    proofs = []
    for edge in sorted(cut):
        breaks = tuple(c for c in cycles if edge in set(zip(c, c[1:])))
        witness = _cycle_through(succ, edge, cut - {edge})
        proofs.append(CutEdge(edge[0], edge[1], breaks, witness))
    bound = len(cut) if exact else disjoint_cycles(succ)
    return CycleComponent(tuple(sorted(succ)), cycles, tuple(proofs), exact, bound)


def disjoint_cycles(succ: dict[str, list[str]]) -> int:
    """How many edge-disjoint cycles a greedy packing finds (short cycles first): every cut must
    remove one import of each, so this many imports at least must go."""
    removed: frozenset[Edge] = frozenset()
    count = 0
    while (cycle := _any_cycle(succ, removed)) is not None:
        removed |= cycle
        count += 1
    return count


def shortest_cycle(succ: dict[str, list[str]], start: str, banned: frozenset[Edge] = frozenset()) -> list[str] | None:
    """A shortest closed path ``[start, ..., start]`` avoiding ``banned`` edges (breadth first), or None."""
    parent: dict[str, str] = {}
    queue = deque([start])
    seen = {start}
    while queue:
        node = queue.popleft()
        for nxt in succ.get(node, ()):
            if (node, nxt) in banned:
                continue
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return [*reversed(path), start]
            if nxt not in seen:
                seen.add(nxt)
                parent[nxt] = node
                queue.append(nxt)
    return None


def shortest_cycles(succ: dict[str, list[str]]) -> tuple[tuple[str, ...], ...]:
    """A shortest cycle through each file, each cycle written once (rotated to start at its least file)."""
    out: dict[tuple[str, ...], None] = {}
    for node in sorted(succ):
        path = shortest_cycle(succ, node)
        if path is None:  # the file is on no cycle
            continue
        ring = path[:-1]
        i = ring.index(min(ring))
        key = (*ring[i:], *ring[:i], ring[i])
        out.setdefault(key, None)
    return tuple(out)


def minimum_cut(succ: dict[str, list[str]], steps: int = EXACT_STEPS) -> tuple[frozenset[Edge], bool]:
    """A smallest set of edges whose removal leaves ``succ`` acyclic, and whether it is proven smallest."""
    upper = greedy_cut(succ)
    if not upper:
        return upper, True
    if sum(len(t) for t in succ.values()) > EXACT_MAX_IMPORTS:
        return upper, False
    search = _HittingSet(steps)
    cycles: list[frozenset[Edge]] = []
    first = _any_cycle(succ, frozenset())
    assert first is not None
    cycles.append(first)
    found: frozenset[Edge] | None = None
    while True:
        try:
            found = search.smallest(cycles, len(upper))
        except _OutOfSteps:  # the last candidate, completed greedily, may beat the greedy order
            if found is not None:
                completed = reduce_cut(succ, found | greedy_cut(succ, found))
                if len(completed) < len(upper):
                    upper = completed
            return upper, False
        if found is None:  # nothing smaller than the feasible upper bound meets even these cycles
            return upper, True
        missed = _any_cycle(succ, found)
        if missed is None:
            return found, True
        cycles.append(missed)


def greedy_cut(
    succ: dict[str, list[str]], removed: frozenset[Edge] = frozenset(), improve: bool = True
) -> frozenset[Edge]:
    """The backward edges of the Eades-Lin-Smyth order (sinks last, sources first, else the node with
    the largest out-degree minus in-degree next), sifted unless not ``improve``, reduced so that each
    edge is needed."""
    out_n, in_n = _neighbours(succ, succ, removed)
    left: list[str] = []
    right: list[str] = []
    alive = set(succ)

    def drop(n: str) -> None:
        alive.discard(n)
        for b in out_n[n]:
            in_n[b].discard(n)
        for a in in_n[n]:
            out_n[a].discard(n)

    while alive:
        progressed = True
        while progressed:
            progressed = False
            for n in sorted(alive):
                if n in alive and not out_n[n]:
                    right.append(n)
                    drop(n)
                    progressed = True
            for n in sorted(alive):
                if n in alive and not in_n[n]:
                    left.append(n)
                    drop(n)
                    progressed = True
        if alive:
            n = max(sorted(alive), key=lambda x: len(out_n[x]) - len(in_n[x]))
            left.append(n)
            drop(n)
    order = left + list(reversed(right))
    if improve:
        order = sift(order, succ, removed)
    position = {n: i for i, n in enumerate(order)}
    cut = {
        (a, b)
        for a, targets in succ.items()
        for b in targets
        if (a, b) not in removed and position[b] <= position[a]  # backward edges and self-imports
    }
    return reduce_cut(succ, frozenset(cut), removed)


def _neighbours(
    nodes: Iterable[str], succ: dict[str, list[str]], removed: frozenset[Edge]
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Each of ``nodes``' files it imports and files importing it, by the edges of ``succ`` not ``removed``
    (self-imports left out)."""
    outs: dict[str, set[str]] = {n: set() for n in nodes}
    ins: dict[str, set[str]] = {n: set() for n in outs}
    for a, targets in succ.items():
        for b in targets:
            if (a, b) not in removed and a != b:
                outs[a].add(b)
                ins[b].add(a)
    return outs, ins


def sift(order: list[str], succ: dict[str, list[str]], removed: frozenset[Edge]) -> list[str]:
    """Local search on an order: move each file to the place where the fewest of its imports point
    backward, while any move helps (at most ``SIFT_PASSES`` passes; orders of more than
    ``SIFT_MAX_FILES`` files are left as they are)."""
    if len(order) > SIFT_MAX_FILES:
        return order
    outs, ins = _neighbours(order, succ, removed)
    order = list(order)
    for _ in range(SIFT_PASSES):
        improved = False
        for v in list(order):
            rest = [n for n in order if n != v]
            here = order.index(v)
            cost = best = len(ins[v])  # v first: every import of v by another file points backward
            best_at = 0
            current = None
            for p, x in enumerate(rest, 1):  # v placed after x
                cost += (-1 if x in ins[v] else 0) + (1 if x in outs[v] else 0)
                if cost < best:
                    best, best_at = cost, p
                if p == here:
                    current = cost
            if here == 0:
                current = len(ins[v])
            if current is not None and best < current:
                rest.insert(best_at, v)
                order = rest
                improved = True
        if not improved:
            break
    return order


def reduce_cut(
    succ: dict[str, list[str]], cut: frozenset[Edge], removed: frozenset[Edge] = frozenset()
) -> frozenset[Edge]:
    """Put back every edge of ``cut`` whose return leaves the graph (without ``removed``) acyclic:
    at once those that run forward in a topological order of the graph without the cut, then one by
    one each edge a -> b for which no path leads from b back to a."""
    kept = set(cut)
    order = _topological_order(succ, kept | removed)
    for a, b in sorted(cut):
        if a != b and order[a] < order[b]:
            kept.discard((a, b))
    for edge in sorted(kept):
        a, b = edge
        if a == b:
            continue
        kept.discard(edge)
        if shortest_path(succ, b, a, frozenset(kept | removed)) is not None:
            kept.add(edge)
    return frozenset(kept)


def _topological_order(succ: dict[str, list[str]], removed: set[Edge]) -> dict[str, int]:
    """Position of each node in a topological order of the graph without ``removed`` (acyclic)."""
    indeg = dict.fromkeys(succ, 0)
    for a, targets in succ.items():
        for b in targets:
            if (a, b) not in removed:
                indeg[b] += 1
    ready = sorted((n for n, d in indeg.items() if d == 0), reverse=True)
    order: dict[str, int] = {}
    while ready:
        a = ready.pop()
        order[a] = len(order)
        for b in succ[a]:
            if (a, b) not in removed:
                indeg[b] -= 1
                if indeg[b] == 0:
                    ready.append(b)
    assert len(order) == len(succ), "the graph without the cut still has a cycle"
    return order


def _any_cycle(succ: dict[str, list[str]], removed: frozenset[Edge]) -> frozenset[Edge] | None:
    """The edges of a short cycle left after removing ``removed`` (the shortest through any of the
    first ``CYCLE_PROBES`` files that Kahn's peeling leaves), or None when there is none."""
    indeg = dict.fromkeys(succ, 0)
    for a, targets in succ.items():
        for b in targets:
            if (a, b) not in removed:
                indeg[b] += 1
    ready = [n for n, d in indeg.items() if d == 0]
    while ready:
        a = ready.pop()
        for b in succ[a]:
            if (a, b) not in removed:
                indeg[b] -= 1
                if indeg[b] == 0:
                    ready.append(b)
    left = sorted(n for n, d in indeg.items() if d > 0)
    best: list[str] | None = None
    for node in left[:CYCLE_PROBES]:
        path = shortest_cycle(succ, node, removed)
        if path is not None and (best is None or len(path) < len(best)):
            best = path
            if len(best) <= 3:
                break
    return None if best is None else frozenset(zip(best, best[1:]))


def _cycle_through(succ: dict[str, list[str]], edge: Edge, banned: frozenset[Edge]) -> tuple[str, ...]:
    """A shortest cycle using ``edge`` and none of ``banned``: edge then a path back (breadth first)."""
    a, b = edge
    if a == b:
        return (a, a)
    back = shortest_path(succ, b, a, banned)
    return (a, *back) if back is not None else ()


def shortest_path(succ: dict[str, list[str]], start: str, goal: str, banned: frozenset[Edge]) -> list[str] | None:
    parent: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            path = [node]
            while (p := parent[path[-1]]) is not None:
                path.append(p)
            return list(reversed(path))
        for nxt in succ.get(node, ()):
            if (node, nxt) not in banned and nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return None


class _OutOfSteps(Exception):
    """The exact search used its step budget."""


class _HittingSet:
    """Branch and bound for a smallest set of edges meeting every given cycle, with a step budget."""

    def __init__(self, steps: int) -> None:
        self.left = steps

    def smallest(self, cycles: list[frozenset[Edge]], bound: int) -> frozenset[Edge] | None:
        """A smallest hitting set of ``cycles`` with fewer than ``bound`` edges, or None if none exists."""
        self.best: frozenset[Edge] | None = None
        self.bound = bound
        self._branch(frozenset(), list(cycles))
        return self.best

    def _branch(self, chosen: frozenset[Edge], open_cycles: list[frozenset[Edge]]) -> None:
        self.left -= 1
        if self.left < 0:
            raise _OutOfSteps
        if not open_cycles:
            self.best, self.bound = chosen, len(chosen)
            return
        if len(chosen) + _disjoint_count(open_cycles) >= self.bound:
            return
        pivot = min(open_cycles, key=len)
        counts: dict[Edge, int] = {}
        for c in open_cycles:
            for e in c:
                counts[e] = counts.get(e, 0) + 1
        excluded: set[Edge] = set()
        for edge in sorted(pivot, key=lambda e: (-counts[e], e)):
            rest = []
            feasible = True
            for c in open_cycles:
                if edge in c:
                    continue
                trimmed = c - excluded if excluded else c
                if not trimmed:
                    feasible = False
                    break
                rest.append(trimmed)
            if feasible:
                self._branch(chosen | {edge}, rest)
            excluded.add(edge)


def _disjoint_count(cycles: list[frozenset[Edge]]) -> int:
    """How many of ``cycles`` share no edge, chosen greedily shortest first: a lower bound on any hitting set."""
    used: set[Edge] = set()
    count = 0
    for c in sorted(cycles, key=len):
        if used.isdisjoint(c):
            used |= c
            count += 1
    return count

"""`rofl cycles`: components equal networkx's, listed cycles are real and shortest, the cut breaks every
cycle (checked with networkx) and is smallest (checked by brute force on small graphs)."""

from __future__ import annotations

import itertools
import json

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rofl.questions.cycles_report import components, disjoint_cycles, minimum_cut
from tests.cli.impact_fixtures import import_graph, run, scan_tree

NODES = [f"f{i}" for i in range(7)]
graphs = st.lists(st.tuples(st.sampled_from(NODES), st.sampled_from(NODES)), max_size=16, unique=True)


def nontrivial_sccs(graph: nx.DiGraph) -> set[frozenset[str]]:
    return {
        frozenset(c)
        for c in nx.strongly_connected_components(graph)
        if len(c) > 1 or graph.has_edge(next(iter(c)), next(iter(c)))
    }


def brute_force_fas_size(edges: list[tuple[str, str]]) -> int:
    for k in range(len(edges) + 1):
        for removed in itertools.combinations(edges, k):
            g = nx.DiGraph()
            g.add_edges_from(e for e in edges if e not in removed)
            if nx.is_directed_acyclic_graph(g):
                return k
    raise AssertionError("unreachable")


@settings(max_examples=150, deadline=None)
@given(graphs)
def test_components_cycles_and_cuts_agree_with_networkx(edges):
    graph = nx.DiGraph(edges)
    found = components(edges)
    assert {frozenset(c.files) for c in found} == nontrivial_sccs(graph)
    for comp in found:
        sub = graph.subgraph(comp.files).copy()
        inside = set(comp.files)
        on_cycles = set()
        for cycle in comp.cycles:
            assert cycle[0] == cycle[-1] and set(cycle) <= inside
            assert all(graph.has_edge(a, b) for a, b in zip(cycle, cycle[1:]))
            on_cycles |= set(cycle)
        assert on_cycles == inside  # a cycle through every file
        for f in comp.files:  # the cycle listed through f is a shortest one
            best = min(len(c) - 1 for c in comp.cycles if f in c)
            shortest = min(nx.shortest_path_length(sub, g, f) + 1 for g in sub.successors(f) if nx.has_path(sub, g, f))
            assert best == shortest
        cut = {(e.source, e.target) for e in comp.cut}
        sub.remove_edges_from(cut)
        assert nx.is_directed_acyclic_graph(sub)
        for e in comp.cut:  # the proof: the witness uses the edge and no other cut edge
            steps = set(zip(e.witness, e.witness[1:]))
            assert (e.source, e.target) in steps and not (steps & (cut - {(e.source, e.target)}))
            assert all(graph.has_edge(a, b) for a, b in steps) and e.witness[0] == e.witness[-1]
            assert all((e.source, e.target) in set(zip(c, c[1:])) for c in e.breaks)


@settings(max_examples=120, deadline=None)
@given(graphs)
def test_exact_cut_is_as_small_as_brute_force(edges):
    for comp in components(edges):
        inner = [(a, b) for a, b in edges if a in comp.files and b in comp.files]
        assert comp.exact
        assert len(comp.cut) == brute_force_fas_size(inner) == comp.lower_bound
        succ = {f: [b for a, b in inner if a == f] for f in comp.files}
        assert disjoint_cycles(succ) <= len(comp.cut)  # the bound shown for approximate cuts is a bound


def test_out_of_steps_falls_back_to_a_needed_greedy_cut():
    # a tournament-like component on 9 files: many cycles; with a 1-step budget the search gives up
    nodes = [f"n{i}" for i in range(9)]
    succ = {a: [b for b in nodes if b != a and (nodes.index(b) - nodes.index(a)) % 9 in (1, 2, 4)] for a in nodes}
    cut, exact = minimum_cut(succ, steps=1)
    assert not exact
    graph = nx.DiGraph([(a, b) for a in succ for b in succ[a]])
    graph.remove_edges_from(cut)
    assert nx.is_directed_acyclic_graph(graph)
    for edge in cut:  # every edge is needed: putting one back makes a cycle
        graph.add_edge(*edge)
        assert not nx.is_directed_acyclic_graph(graph)
        graph.remove_edge(*edge)
    exact_cut, proven = minimum_cut(succ)
    assert proven and disjoint_cycles(succ) <= len(exact_cut) <= len(cut)


# modelled on rxjs/src: Observable <-> types (through Operator and pipe), Subscriber <-> config (through
# helpers), Scheduler <-> scheduler/Action, and a type-only cycle that is no runtime cycle
RXJS_LIKE = {
    "internal/types.ts": 'import { Observable } from "./Observable";\nimport { Subscription } from "./Subscription";\nexport type Op = (o: Observable) => Subscription;\n',
    "internal/Observable.ts": 'import { Operator } from "./Operator";\nimport { pipeFromArray } from "./util/pipe";\nimport { Subscriber } from "./Subscriber";\nimport type { Op } from "./types";\nexport class Observable {}\n',
    "internal/Operator.ts": 'import { Op } from "./types";\nexport interface Operator { op: Op }\n',
    "internal/util/pipe.ts": 'import { Op } from "../types";\nexport function pipeFromArray(fns: Op[]) { return fns; }\n',
    "internal/Subscription.ts": 'import type { Op } from "./types";\nexport class Subscription {}\n',
    "internal/Subscriber.ts": 'import { config } from "./config";\nimport { errorContext } from "./util/errorContext";\nexport class Subscriber {}\n',
    "internal/config.ts": 'import { Subscriber } from "./Subscriber";\nexport const config = { s: Subscriber };\n',
    "internal/util/errorContext.ts": 'import { config } from "../config";\nexport function errorContext() { return config; }\n',
    "internal/Scheduler.ts": 'import { Action } from "./scheduler/Action";\nexport class Scheduler { a?: Action }\n',
    "internal/scheduler/Action.ts": 'import { Scheduler } from "../Scheduler";\nexport class Action { s?: Scheduler }\n',
    "index.ts": 'export { Observable } from "./internal/Observable";\nexport { Scheduler } from "./internal/Scheduler";\n',
    "internal/typesOnly/a.ts": 'import type { B } from "./b";\nexport type A = B[];\n',
    "internal/typesOnly/b.ts": 'import type { A } from "./a";\nexport type B = A | 1;\n',
}


def test_rxjs_shaped_cycles_on_the_command_line(tmp_path):
    _, facts = scan_tree(tmp_path, RXJS_LIKE)
    for runtime in (False, True):
        flags = ["--runtime"] if runtime else []
        code, out, err = run("cycles", "--facts", facts, "--json", *flags)
        assert code == 1, err
        data = json.loads(out)
        graph = import_graph(facts, runtime=runtime)
        assert {frozenset(c["files"]) for c in data["components"]} == nontrivial_sccs(graph)
        for c in data["components"]:
            sub = graph.subgraph(c["files"]).copy()
            sub.remove_edges_from(map(tuple, c["cut"]))
            assert nx.is_directed_acyclic_graph(sub)
            assert c["exact"]
            for proof in c["proofs"]:  # each cut import names the statement behind it
                a, b = proof["cut"]
                assert proof["imports"] and all(i["file"] == a and i["line"] >= 1 for i in proof["imports"])
        type_cycle = {"internal/typesOnly/a.ts", "internal/typesOnly/b.ts"}
        assert (frozenset(type_cycle) in {frozenset(c["files"]) for c in data["components"]}) is not runtime
    code, out, _ = run("cycles", "--facts", facts)
    assert code == 1
    assert (
        "internal/config.ts -> internal/Subscriber.ts" in out or "internal/Subscriber.ts -> internal/config.ts" in out
    )
    assert "needed: without it" in out


def test_no_cycle_exits_0_and_missing_facts_exits_2(tmp_path):
    _, facts = scan_tree(
        tmp_path, {"a.ts": 'import { b } from "./b";\nexport const a = b;\n', "b.ts": "export const b = 1;\n"}
    )
    code, out, _ = run("cycles", "--facts", facts)
    assert code == 0 and "no import cycle in 2 file(s)" in out
    code, out, _ = run("cycles", "--facts", facts, "--json")
    assert code == 0 and json.loads(out)["components"] == []
    code, _, err = run("cycles")
    assert code == 2 and "--facts DIR is required" in err
    code, _, err = run("cycles", "--facts", tmp_path / "nowhere")
    assert code == 2 and "no manifest.json" in err


@settings(max_examples=100, deadline=None)
@given(graphs, st.randoms(use_true_random=False))
def test_sifting_an_order_never_adds_backward_imports(edges, rnd):
    from rofl.questions.cycles_report import sift

    succ: dict[str, list[str]] = {n: [] for n in NODES}
    for a, b in edges:
        succ[a].append(b)
    order = list(NODES)
    rnd.shuffle(order)

    def backward(o: list[str]) -> int:
        at = {n: i for i, n in enumerate(o)}
        return sum(1 for a, b in edges if a != b and at[b] < at[a])

    sifted = sift(order, succ, frozenset())
    assert sorted(sifted) == sorted(order)
    assert backward(sifted) <= backward(order)


@pytest.mark.slow
def test_components_equal_madges_on_the_rxjs_shaped_fixture(tmp_path):
    """Differential against madge (when bench/.cache has it): the non-trivial strongly connected
    components of madge's graph, and every cycle `madge --circular` lists lies inside one of ours."""
    import subprocess

    from bench.corpora import node_bin

    madge = node_bin("madge")
    if not madge.exists():
        pytest.skip("madge is not installed under bench/.cache (make bench installs it)")
    src, facts = scan_tree(tmp_path, RXJS_LIKE)
    code, out, _ = run("cycles", "--facts", facts, "--json")
    ours = {frozenset(c["files"]) for c in json.loads(out)["components"]}
    args = [str(madge), "--extensions", "ts", "--json"]
    graph_out = subprocess.run([*args, "."], cwd=src, capture_output=True, text=True, timeout=120)
    theirs = nx.DiGraph([(a, b) for a, deps in json.loads(graph_out.stdout).items() for b in deps])
    assert ours == nontrivial_sccs(theirs)
    circular = subprocess.run([*args, "--circular", "."], cwd=src, capture_output=True, text=True, timeout=120)
    listed = json.loads(circular.stdout)
    assert listed and all(any(set(cycle) <= comp for comp in ours) for cycle in listed)

"""Helpers for the impact tests: fixture trees, git, scans, and the edges read straight from fact files."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import networkx as nx
from rofl.engine.parse import parse_program

from tests.conftest import write_tree


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(root), "-c", "user.email=t@t", "-c", "user.name=t", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return proc.stdout


def commit_all(root: Path, message: str = "base") -> None:
    if not (root / ".git").exists():
        git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


def run(*args: str) -> tuple[int, str, str]:
    from click.testing import CliRunner

    from rofl.cli import main

    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def scan_tree(root: Path, files: dict[str, str | bytes], in_git: bool = False) -> tuple[Path, Path]:
    """Write ``files`` under ``root/src``, optionally commit them, scan into ``root/facts``."""
    src = root / "src"
    src.mkdir(parents=True, exist_ok=True)
    write_tree(src, files)
    if in_git:
        commit_all(src)
    facts = root / "facts"
    code, _, err = run("scan", src, "--out", facts)
    assert code == 0, err
    return src, facts


def code_facts(facts: Path) -> list[tuple]:
    """Every [code] fact of the scan, parsed from the fact files the manifest names (not through the rules)."""
    manifest = json.loads((facts / "manifest.json").read_text())
    out: list[tuple] = []
    for entry in manifest["files"].values():
        for clause in parse_program((facts / entry["facts"]).read_text(encoding="utf-8"), entry["facts"]):
            head = clause.head
            out.append((head.rel, *head.args))
    return out


def import_graph(facts: Path, runtime: bool = False) -> nx.DiGraph:
    """The import graph read from the facts: an edge per src_resolves (runtime: a kind other than
    `type`, into a file that is not a declaration), plus src_workspace_import edges to every scanned
    file under the package folder."""
    rows = code_facts(facts)
    kinds: dict[tuple[str, str], set[str]] = {}
    for r in rows:
        if r[0] == "src_import_kind":
            kinds.setdefault((r[1], r[2]), set()).add(r[3][0])
    declarations = {r[1] for r in rows if r[0] == "src_declaration"}
    files = {r[1] for r in rows if r[0] == "src_file"}
    graph = nx.DiGraph()
    graph.add_nodes_from(files)

    def counts(path: str, spec: str, target: str | None) -> bool:
        if not runtime:
            return True
        return bool(kinds.get((path, spec), set()) - {"type"}) and target not in declarations

    for r in rows:
        if r[0] == "src_resolves" and counts(r[1], r[2], r[3]):
            graph.add_edge(r[1], r[3])
        elif r[0] == "src_workspace_import":
            folder = r[3]
            for f in files:
                if f != r[1] and (folder == "." or f.startswith(folder + "/")) and counts(r[1], r[2], f):
                    graph.add_edge(r[1], f)
    return graph


def affected_of(graph: nx.DiGraph, changed: set[str]) -> set[str]:
    out: set[str] = set()
    for c in changed:
        if c in graph:
            out |= nx.ancestors(graph, c)
    return out - changed

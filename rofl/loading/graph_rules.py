"""The import graph impact walks, derived in Python from a scan's base rows exactly as rules/code.rofl derives it.

``derive(rows)`` mirrors the rules behind ``impact_edge`` (``dependency``, ``runtime_dependency``, the
package-wide dependencies and their targets) and the three lists impact prints beside its answer
(``unfollowed_alias``, ``virtual_module``, ``unfollowed_workspace_import``), including the order in
which the kernel derives each relation's rows (written body order, base relations in canonical order,
derived ones in derivation order), so that a walk over ``Graph.importers`` meets each file's first
witness where the kernel's semi-naive evaluation does.  ``PINNED`` is the hash of the clauses of
rules/code.rofl this mirrors: the demand path answers only while they are unchanged
(``rules_match``); a change sends every question to the kernel until this module follows it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rofl.engine.terms import canonical_rows
from rofl.engine.text_builtins import glob, matches, not_matches

# the base [code] relations the mirrored rules (and impact's classification) read, with their arity
RELATIONS: dict[str, int] = {
    "src_resolves": 3,
    "src_import_kind": 3,
    "src_declaration": 1,
    "src_workspace_import": 3,
    "src_external": 3,
    "src_unresolved": 2,
    "src_file": 2,
    "src_asset": 1,
    "src_package": 3,
    "src_package_entry": 3,
    "src_package_subpath": 4,
}
# the heads of rules/code.rofl whose clauses this module mirrors (their text is pinned)
MIRRORED = (
    "dependency",
    "runtime_dependency",
    "package_wide_target",
    "package_offers",
    "package_unoffered",
    "package_nonsource",
    "package_wide_subpath_target",
    "package_wide_subpath_matched",
    "package_wide_import_target",
    "package_wide_dependency",
    "runtime_package_wide_dependency",
    "unfollowed_workspace_import",
    "package_followed",
    "package_nonsource_glob",
    "impact_edge",
    "impact_reach",
    "affected",
    "npm_package_name",
    "unfollowed_alias",
    "virtual_module",
)
PINNED = "2418a73575fa94e4"  # hash_bytes of mirrored_text(rules/code.rofl); see tests/cli/test_impact_index.py
TYPE = ("type",)
NPM_NAME = "^(@[A-Za-z0-9][A-Za-z0-9._~-]*/)?[A-Za-z0-9][A-Za-z0-9._~-]*$"
PLATFORM = "^(node|bun|deno):"
SCHEME = "^[A-Za-z][A-Za-z0-9+.-]+:"
NOT_VIRTUAL = "^(node|bun|deno|https?|file|data|blob):"
NUL = "^\x00"

_HEAD = re.compile(r"^(" + "|".join(MIRRORED) + r")(\[code\])?\(")


def mirrored_text(code_rules: str) -> str:
    """The lines of rules/code.rofl that state the mirrored clauses (facts and rules), in order."""
    return "\n".join(line for line in code_rules.splitlines() if _HEAD.match(line))


def rules_match(code_rules: str) -> bool:
    """Whether rules/code.rofl still says what this module mirrors."""
    from rofl.scanner.hashing import hash_bytes

    return hash_bytes(mirrored_text(code_rules).encode("utf-8")) == PINNED


@dataclass(frozen=True, slots=True)
class Graph:
    """What impact reads, derived: per node its importers in the kernel's order (all imports, runtime
    ones), the package-wide ingredients of hop labels, and the lists impact prints beside its answer."""

    importers: dict[str, tuple[str, ...]]  # B -> A for every dependency(A, B), in impact_edge's order
    runtime_importers: dict[str, tuple[str, ...]]  # the same for runtime_dependency
    wide: dict[tuple[str, str], tuple[str, ...]]  # package_wide_dependency (A, B) -> folders D
    imports: frozenset[tuple[str, str]]  # wide pairs an import of A also resolves to B
    runtime_imports: frozenset[tuple[str, str]]  # the same, through an import that is not type-only
    specifiers: dict[tuple[str, str], tuple[str, ...]]  # (A, D) -> A's specifiers of D leading to no file
    runtime_specifiers: dict[tuple[str, str], tuple[str, ...]]
    why: dict[tuple[str, str], str]  # (D, B) -> entry | source
    aliases: tuple[tuple[str, str, str], ...]
    virtual: tuple[tuple[str, str, str], ...]
    unfollowed_workspace: tuple[tuple[str, str, str], ...]


def _ordered(rows: Iterable[tuple]) -> list[tuple]:
    """Rows once each, in canonical order (as the store holds base facts): Python's own order where it
    is defined (strings among strings, atoms, as 1-tuples, among atoms: the canonical order), the
    kernel's sort key where a column mixes kinds."""
    unique = set(rows)
    if any(type(x) is tuple and len(x) != 1 for row in unique for x in row):
        return canonical_rows(unique)  # a compound term: ordered by arity first, unlike Python's tuples
    try:
        return sorted(unique)
    except TypeError:  # a column mixing integers, strings and atoms
        return canonical_rows(unique)


def _bucket(rows: Iterable[tuple], cols: tuple[int, ...]) -> dict:
    out: dict = {}
    for row in rows:
        key = row[cols[0]] if len(cols) == 1 else tuple(row[c] for c in cols)
        out.setdefault(key, []).append(row)
    return out


def derive(base: dict[str, list[tuple]], globs: tuple[str, ...]) -> Graph:
    """The graph from ``base`` (relation -> argument tuples, any order) and package_nonsource_glob's
    patterns (in canonical order)."""
    rows = {rel: _ordered(base.get(rel, ())) for rel in RELATIONS}
    resolves, kinds_rows = rows["src_resolves"], rows["src_import_kind"]
    swi, pkg, entry, subpath = (
        rows["src_workspace_import"],
        rows["src_package"],
        rows["src_package_entry"],
        rows["src_package_subpath"],
    )
    decl = {r[0] for r in rows["src_declaration"]}
    kinds = _bucket(kinds_rows, (0, 1))

    def nontype(a: object, s: object) -> bool:  # as rofl.questions.affected.hop_labeller reads the kinds
        names = {k[2][0] if type(k[2]) is tuple and len(k[2]) == 1 else k[2] for k in kinds.get((a, s), ())}
        return bool(names - {"type"})

    # package_wide_target(D, B, Why), in derivation order
    pwt: dict[tuple, None] = {}
    for d, b, _ in entry:
        pwt[(d, b, ("entry",))] = None
    offers = {r[0] for r in entry}
    unoffered = list(dict.fromkeys(d for _, _, d in swi if d not in offers))
    pkg_by_d = _bucket(pkg, (1,))
    nonsource = {b for d in unoffered for b, _, i in pkg_by_d.get(d, ()) if any(glob(i, p) for p in globs)}
    for d in unoffered:
        for b, _, _ in pkg_by_d.get(d, ()):
            if b not in nonsource:
                pwt[(d, b, ("source",))] = None
    pwt_by_d = _bucket(pwt, (0,))
    # package_wide_subpath_target(S, D, B) and its matched (S, D)
    sub_by_d = _bucket(subpath, (0,))
    pwst: dict[tuple, None] = {}
    for _, s, d in swi:
        for _, b, _, m in sub_by_d.get(d, ()):
            if matches(s, m):
                pwst[(s, d, b)] = None
    pwst_by_sd = _bucket(pwst, (0, 1))
    # package_wide_import_target(A, S, D, B): the subpath rule's rows, then the package's
    pwit: dict[tuple, None] = {}
    for a, s, d in swi:
        for _, _, b in pwst_by_sd.get((s, d), ()):
            pwit[(a, s, d, b)] = None
    for a, s, d in swi:
        if (s, d) not in pwst_by_sd:
            for _, b, _ in pwt_by_d.get(d, ()):
                pwit[(a, s, d, b)] = None
    pwd: dict[tuple, None] = {}
    rpwd: dict[tuple, None] = {}
    for a, _, d, b in pwit:
        if a != b:
            pwd[(a, b, d)] = None
    for a, s, d, b in pwit:
        for k in kinds.get((a, s), ()):
            if k[2] != TYPE and a != b and b not in decl:
                rpwd[(a, b, d)] = None
    # dependency and runtime_dependency, in derivation order; then each target's importers
    dep: dict[tuple, None] = {}
    for a, _, b in resolves:
        dep[(a, b)] = None
    for a, b, _ in pwd:
        dep[(a, b)] = None
    rdep: dict[tuple, None] = {}
    for a, s, b in resolves:
        for k in kinds.get((a, s), ()):
            if k[2] != TYPE and b not in decl:
                rdep[(a, b)] = None
    for a, b, _ in rpwd:
        rdep[(a, b)] = None
    # hop labels (rofl.questions.affected.hop_labeller's ingredients), for the package-wide pairs only
    wide: dict[tuple[str, str], set[str]] = {}
    for a, b, d in pwd:
        wide.setdefault((a, b), set()).add(d)
    imports = {(a, b) for a, _, b in resolves if (a, b) in wide}
    rt_imports = {(a, b) for a, s, b in resolves if (a, b) in wide and nontype(a, s) and b not in decl}
    wide_ds = {(a, d) for (a, _), ds in wide.items() for d in ds}
    specs: dict[tuple, list] = {}
    rt_specs: dict[tuple, list] = {}
    for a, s, d in swi:
        if (a, d) in wide_ds:
            specs.setdefault((a, d), []).append(s)
            if nontype(a, s):
                rt_specs.setdefault((a, d), []).append(s)
    why: dict[tuple[str, str], str] = {}
    for d, b, w in pwt:
        if why.get((d, b)) != "entry":
            why[(d, b)] = w[0]
    # the lists impact prints beside its answer
    followed = {r[0] for r in pwt}
    unfollowed = [(a, s, d) for a, s, d in swi if d not in followed]
    externals = rows["src_external"]
    npm = {p for _, _, p in externals if matches(p, NPM_NAME)}
    virtual: dict[tuple, None] = {}
    for f, s in rows["src_unresolved"]:
        if matches(s, SCHEME) and not_matches(s, NOT_VIRTUAL):
            virtual[(f, s, s)] = None
    for f, s in rows["src_unresolved"]:
        if matches(s, NUL):
            virtual[(f, s, s)] = None
    for f, s, p in externals:
        if p == "~icons":
            virtual[(f, s, "~icons")] = None
    aliases = [
        (f, s, p) for f, s, p in externals if p not in npm and not_matches(p, PLATFORM) and (f, s, p) not in virtual
    ]
    return Graph(
        importers=_importers(dep),
        runtime_importers=_importers(rdep),
        wide={k: tuple(sorted(v)) for k, v in wide.items()},
        imports=frozenset(imports),
        runtime_imports=frozenset(rt_imports),
        specifiers={k: tuple(v) for k, v in specs.items()},
        runtime_specifiers={k: tuple(v) for k, v in rt_specs.items()},
        why=why,
        aliases=_texts(aliases),
        virtual=_texts(virtual),
        unfollowed_workspace=_texts(unfollowed),
    )


def _importers(edges: dict[tuple, None]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list] = {}
    for a, b in edges:
        out.setdefault(b, []).append(a)
    return {b: tuple(v) for b, v in out.items()}


def _texts(rows: Iterable[tuple]) -> tuple[tuple[str, str, str], ...]:
    """As rofl.questions.affected._unfollowed reads a relation: each row's three values as text, sorted."""
    out = sorted(tuple(map(str, row[:3])) for row in rows if len(row) == 3)
    return tuple((a, b, c) for a, b, c in out)

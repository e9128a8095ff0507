"""The import graph impact walks, derived in Python from a scan's base rows exactly as rules/code.rofl derives it,
and maintained per changed record (``maintain``: equal to deriving it again).

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


def derive(base: dict[str, list[tuple]], globs: tuple[str, ...], referenced: Iterable[str] = ()) -> Graph:
    """The graph from ``base`` (relation -> argument tuples, any order) and package_nonsource_glob's
    patterns (in canonical order).  ``referenced``: package folders some src_workspace_import outside
    ``base`` names (``maintain`` derives a part of the graph from a part of the base: which packages
    are package_unoffered is a question about every file)."""
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
    named = [d for _, _, d in swi]
    named.extend(sorted(referenced))
    unoffered = list(dict.fromkeys(d for d in named if d not in offers))
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


# -- maintenance per changed record -------------------------------------------------------------------
#
# Every output of ``derive`` is keyed by a target file (``importers``, ``runtime_importers``), by an owner
# (the file in the first column of the rows it comes from: ``wide``, ``imports``, the specifiers and the
# three lists) or by a package folder (``why``), and depends on a part of the base that a few reverse
# indexes (``State``) name: a target's importers on the rows of the files that resolve to it or name one of
# its packages, an owner's parts on its own rows and the package rows of the packages it names.  After an
# edit, ``maintain`` finds the keys whose inputs changed, derives the graph of the part of the base those
# keys read (``derive`` itself, so the rules are written once) and replaces those keys' values.  A change to
# the package entries or subpaths (a package.json), to the globs, or rows whose owner is not one record's
# text is not followed: the caller derives the whole graph again.

PACKAGE = "src_package"
GLOBAL = ("src_package_entry", "src_package_subpath")
UNREAD = ("src_file", "src_asset")  # read by impact's classification, not by derive (an asset's row is its importer's)
OWNED = tuple(rel for rel in RELATIONS if rel != PACKAGE and rel not in GLOBAL and rel not in UNREAD)
STATE_FIELDS = 9

Rows = tuple[tuple[str, tuple[tuple, ...]], ...]  # ((relation, rows), ...) of one record (a fact file)


@dataclass(frozen=True, slots=True)
class State:
    """What ``maintain`` reads beside the graph: the base's global rows and its reverse indexes."""

    globs: tuple[str, ...]
    entries: tuple[tuple, ...]  # src_package_entry rows
    subpaths: tuple[tuple, ...]  # src_package_subpath rows
    home: dict[str, str]  # owner -> the record that holds its rows (of OWNED)
    packages: dict[str, frozenset[tuple]]  # file -> its src_package rows
    members: dict[str, frozenset[str]]  # package folder -> the files src_package puts in it
    targets: dict[str, frozenset[str]]  # file -> the files src_resolves resolves to it
    referrers: dict[str, frozenset[str]]  # package folder -> the files that src_workspace_import it
    declared: frozenset[str]  # the files src_declaration names


def state_of(records: dict[str, Rows], globs: tuple[str, ...]) -> State | None:
    """The state of the base made of ``records`` (key -> rows); None when an owner's rows are in two
    records or a row's owner is not text (the graph is then always derived whole)."""
    home: dict[str, str] = {}
    entries: set[tuple] = set()
    subpaths: set[tuple] = set()
    packages: dict[str, set] = {}
    targets: dict[str, set] = {}
    referrers: dict[str, set] = {}
    declared: set[str] = set()
    for key, rows in records.items():
        owners = _owners(rows)
        if owners is None:
            return None
        for owner in owners:
            if home.setdefault(owner, key) != key:
                return None
        for rel, part in rows:
            if rel == "src_resolves":
                for a, _, b in part:
                    targets.setdefault(b, set()).add(a)
            elif rel == "src_workspace_import":
                for a, _, d in part:
                    referrers.setdefault(d, set()).add(a)
            elif rel == "src_declaration":
                declared.update(r[0] for r in part)
            elif rel == PACKAGE:
                for row in part:
                    if type(row[0]) is not str or type(row[1]) is not str:
                        return None
                    packages.setdefault(row[0], set()).add(row)
            elif rel == GLOBAL[0]:
                entries.update(part)
            elif rel == GLOBAL[1]:
                subpaths.update(part)
    members: dict[str, set] = {}
    for b, held in packages.items():
        for row in held:
            members.setdefault(row[1], set()).add(b)
    return State(
        globs,
        tuple(sorted(entries, key=repr)),
        tuple(sorted(subpaths, key=repr)),
        home,
        _frozen(packages),
        _frozen(members),
        _frozen(targets),
        _frozen(referrers),
        frozenset(declared),
    )


def _frozen(index: dict[str, set]) -> dict[str, frozenset]:
    return {k: frozenset(v) for k, v in index.items()}


def _owners(rows: Rows) -> set[str] | None:
    """The files in the first column of a record's rows of OWNED (None: one is not text)."""
    out: set[str] = set()
    for rel, part in rows:
        if rel in OWNED:
            out.update(r[0] for r in part)
    return out if all(type(o) is str for o in out) else None


def maintain(
    graph: Graph, state: State, before: dict[str, Rows | None], records: dict[str, Rows], globs: tuple[str, ...]
) -> tuple[Graph, State] | None:
    """``graph`` and ``state`` of the base the records were, after the records ``before`` names changed:
    ``before`` holds each changed record's rows before (None: added), ``records`` every record now (a
    removed one absent).  Equal to ``derive`` and ``state_of`` of ``records``; None when the change is
    not one this follows (the caller derives the whole graph)."""
    if globs != state.globs:
        return None
    old: dict[str, set] = {rel: set() for rel in RELATIONS}
    new: dict[str, set] = {rel: set() for rel in RELATIONS}
    for key, rows in before.items():
        for rel, part in rows or ():
            old[rel].update(part)
        for rel, part in records.get(key, ()):
            new[rel].update(part)
    if any(old[rel] != new[rel] for rel in GLOBAL):
        return None
    home = dict(state.home)
    for key, was_rows in before.items():
        for owner in _owners(was_rows or ()) or ():
            if home.get(owner) == key:
                del home[owner]
    for key in before:
        if key in records:
            found = _owners(records[key])
            if found is None:
                return None
            for owner in found:
                if home.setdefault(owner, key) != key:
                    return None  # an owner's rows in two records
    old_by, new_by = _by_owner(old), _by_owner(new)
    changed = {o for o in old_by.keys() | new_by.keys() if old_by.get(o) != new_by.get(o)}
    moved = {r[0] for r in old[PACKAGE] ^ new[PACKAGE]}
    if any(type(r[0]) is not str or type(r[1]) is not str for r in new[PACKAGE]):
        return None
    packages, members = dict(state.packages), dict(state.members)
    targets, referrers = dict(state.targets), dict(state.referrers)
    declared = set(state.declared)
    was_members: dict[str, frozenset[str]] = {}
    dirty_packages: set[str] = set()
    for b in moved:
        held = packages.get(b, frozenset())
        now = frozenset((held - old[PACKAGE]) | {r for r in new[PACKAGE] if r[0] == b})
        for d in {r[1] for r in held | now}:
            was_members.setdefault(d, members.get(d, frozenset()))
            dirty_packages.add(d)
        _edit(members, {r[1] for r in held}, {r[1] for r in now}, b)
        if now:
            packages[b] = now
        else:
            packages.pop(b, None)
    was_referrers: dict[str, frozenset[str]] = {}
    dirty_targets: set[str] = set()
    owners: set[str] = set(changed)
    for a in changed:
        o, n = old_by.get(a, {}), new_by.get(a, {})
        was_b, now_b = _col(o, "src_resolves", 2), _col(n, "src_resolves", 2)
        _edit(targets, was_b, now_b, a)
        dirty_targets |= was_b | now_b
        was_d, now_d = _col(o, "src_workspace_import", 2), _col(n, "src_workspace_import", 2)
        for d in was_d | now_d:
            was_referrers.setdefault(d, referrers.get(d, frozenset()))
        _edit(referrers, was_d, now_d, a)
        for d in was_d | now_d:
            dirty_targets |= _reach(d, state, members, was_members)
        if bool(o.get("src_declaration")) != bool(n.get("src_declaration")):
            (declared.add if n.get("src_declaration") else declared.discard)(a)
            dirty_targets.add(a)
            owners |= state.targets.get(a, frozenset()) | targets.get(a, frozenset())
    for d, was in was_referrers.items():
        if bool(was) != (d in referrers):  # package_unoffered changed: and so package_nonsource of its files
            dirty_packages.add(d)
            for b in was_members.get(d, members.get(d, frozenset())) | members.get(d, frozenset()):
                dirty_packages |= {r[1] for r in packages.get(b, frozenset()) | state.packages.get(b, frozenset())}
    for d in dirty_packages:
        owners |= was_referrers.get(d, referrers.get(d, frozenset())) | referrers.get(d, frozenset())
        dirty_targets |= _reach(d, state, members, was_members)
    # the part of the base the dirty keys read
    entered: dict[str, set[str]] = {}
    for row in (*state.entries, *state.subpaths):
        entered.setdefault(row[1], set()).add(row[0])
    reads = set(owners)
    for b in dirty_targets:
        reads |= targets.get(b, frozenset())
        for d in {r[1] for r in packages.get(b, frozenset())} | entered.get(b, set()):
            reads |= referrers.get(d, frozenset())
    if len(reads) * 4 > len(home) * 3 + 30:
        return None  # most of the base: derived whole (with state_of), at no more cost
    sub_base: dict[str, list[tuple]] = {rel: [] for rel in RELATIONS}
    for key in {home[a] for a in reads if a in home}:
        for rel, got in records[key]:
            if rel in OWNED:
                sub_base[rel].extend(got)
    named = {d for _, _, d in sub_base["src_workspace_import"]} | dirty_packages
    for d in named:
        for b in members.get(d, ()):
            sub_base[PACKAGE].extend(packages[b])
    sub_base["src_declaration"].extend((a,) for a in declared)
    sub_base[GLOBAL[0]].extend(state.entries)
    sub_base[GLOBAL[1]].extend(state.subpaths)
    sub = derive(sub_base, globs, referrers.keys())
    return _spliced(graph, sub, dirty_targets, owners, dirty_packages), State(
        globs,
        state.entries,
        state.subpaths,
        home,
        packages,
        members,
        targets,
        referrers,
        frozenset(declared),
    )


def _by_owner(rows: dict[str, set]) -> dict[str, dict[str, set]]:
    out: dict[str, dict[str, set]] = {}
    for rel in OWNED:
        for row in rows[rel]:
            out.setdefault(row[0], {}).setdefault(rel, set()).add(row)
    return out


def _col(rows: dict[str, set], rel: str, col: int) -> set:
    return {r[col] for r in rows.get(rel, ())}


def _edit(index: dict[str, frozenset], was: set, now: set, value: str) -> None:
    """``value`` out of ``index``'s sets under the keys ``was`` and into those under ``now``."""
    for key in was - now:
        rest = index.get(key, frozenset()) - {value}
        if rest:
            index[key] = rest
        else:
            index.pop(key, None)
    for key in now - was:
        index[key] = index.get(key, frozenset()) | {value}


def _reach(d: str, state: State, members: dict, was_members: dict) -> set[str]:
    """Every file a package-wide import of ``d`` may lead to, before the change or after it."""
    out = set(members.get(d, ())) | set(was_members.get(d, state.members.get(d, ())))
    out |= {row[1] for row in state.entries if row[0] == d}
    out |= {row[1] for row in state.subpaths if row[0] == d}
    return out


def _spliced(graph: Graph, sub: Graph, targets: set[str], owners: set[str], packages: set[str]) -> Graph:
    """``graph`` with the values of the dirty keys taken from ``sub`` (the graph of the part they read)."""

    def by_target(old: dict, new: dict) -> dict:
        out = dict(old)
        for b in targets:
            if b in new:
                out[b] = new[b]
            else:
                out.pop(b, None)
        return out

    def by_first(old: dict, new: dict, keys: set) -> dict:
        out = {k: v for k, v in old.items() if k[0] not in keys}
        out.update((k, v) for k, v in new.items() if k[0] in keys)
        return out

    def pairs(old: frozenset, new: frozenset) -> frozenset:
        return frozenset({p for p in old if p[0] not in owners} | {p for p in new if p[0] in owners})

    def texts(old: tuple, new: tuple) -> tuple:
        return tuple(sorted([r for r in old if r[0] not in owners] + [r for r in new if r[0] in owners]))

    return Graph(
        importers=by_target(graph.importers, sub.importers),
        runtime_importers=by_target(graph.runtime_importers, sub.runtime_importers),
        wide=by_first(graph.wide, sub.wide, owners),
        imports=pairs(graph.imports, sub.imports),
        runtime_imports=pairs(graph.runtime_imports, sub.runtime_imports),
        specifiers=by_first(graph.specifiers, sub.specifiers, owners),
        runtime_specifiers=by_first(graph.runtime_specifiers, sub.runtime_specifiers, owners),
        why=by_first(graph.why, sub.why, packages),
        aliases=texts(graph.aliases, sub.aliases),
        virtual=texts(graph.virtual, sub.virtual),
        unfollowed_workspace=texts(graph.unfollowed_workspace, sub.unfollowed_workspace),
    )

"""Symbol-level impact (`rofl impact --symbols`): which exports a change touches, and the files that use them.

A change names the exports it touches: every one for a changed file (``--changed FILE``), one for
``--changed FILE:NAME``, and for ``--git-base`` those whose statements the diff's line ranges meet
(``src_export_span``), or whose top-level bindings mention a binding the diff meets (``src_decl``,
``src_decl_uses``), in the work tree and, for removed lines, in the file at REF.  Impact then walks
importers by name over the scan's rows:

* a named or default import of a touched name affects the importer and touches its local binding;
  a binding touches the importer's top-level bindings that mention it, and the exports they are
  (``src_export_local``); a re-export (``export { x as y } from``, or an import exported again)
  passes the name on under its exported name;
* a namespace import (``import * as ns``) of a file with a touched ``x`` affects the importer where
  it writes ``ns.x`` or uses ``ns`` itself (any other use), and ``export * as ns`` passes on ``ns``;
* ``export * from`` passes on every touched name but ``default`` and those the file exports itself,
  and the file that re-exports everything is affected by any change (whole-module);
* side-effect imports, ``import()`` and ``require`` are whole-module: any change affects the
  importer (a side-effect import touches all its exports; ``import()``/``require`` the bindings whose
  statements hold the call, all exports from module-level code); so are imports of a file that
  records no exports (an asset, JSON), and the files a config, lock file or deleted path touches;
* a package-wide dependency (``package_wide_dependency`` of rules/code.rofl: A imports a workspace
  package by a name that led to no file, and B is a file standing for the package, one it offers by
  name or, offering none, one of its sources) is whole-module: any change of B affects A, through the
  bindings of A's imports of the package.  Only those edges: never every file under the package's
  folder.

Where the scan cannot see which exports use a binding (an export with no ``src_export_local``:
``exports.x =``, ``module.exports``; a top-level statement binding nothing), all count as touched:
never narrower than true.  Every hop is a file-level impact edge, so the answer is a subset of
``rofl impact``'s.  Each affected file's proof names, at each hop, the export of the next file used.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from rofl.engine.kernel import Kernel

    from .changes import Change
    from .gitrefs import Git

WHOLE = "*"  # the symbol of a whole-module hop (side effect, import(), require, a config)
WIDE = "* package-wide"  # a package-wide dependency (src_workspace_import): no import names the file
PACKAGE_WIDE = "package_wide_dependency"  # [code], derived: (importer, file standing for the package, folder)
MODULE_DECL = "<module>"  # scanner.extract.MODULE_DECL: a top-level statement binding no name
RELATIONS = (
    "src_file",
    "src_export",
    "src_import_name",
    "src_import_kind",
    "src_import_line",
    "src_resolves",
    "src_workspace_import",
    "src_declaration",
    "src_decl",
    "src_export_local",
    "src_export_span",
    "src_decl_uses",
)
MAX_SEED_LINES = 20  # more changed files than this: one text line says how many have touched exports
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def _s(value: object) -> str:
    """A string column, or an atom column (a 1-tuple) as its name."""
    if isinstance(value, tuple) and len(value) == 1:
        return str(value[0])
    return str(value)


@dataclass(frozen=True, slots=True)
class SymbolFacts:
    """The [code] rows symbol impact walks, indexed by file."""

    files: frozenset[str]
    exports: dict[str, frozenset[str]]  # file -> its exported names
    importers: dict[str, tuple[tuple[str, str], ...]]  # target -> (importer, specifier)
    names: dict[tuple[str, str], tuple[tuple[str, str], ...]]  # (importer, specifier) -> (imported, local)
    kinds: dict[tuple[str, str], frozenset[str]]
    lines: dict[tuple[str, str], frozenset[int]]
    wide: dict[str, tuple[tuple[str, str], ...]]  # file -> (importer, specifier): its package-wide importers
    declarations: frozenset[str]  # .d.ts files
    decls: dict[str, tuple[tuple[str, int, int], ...]]  # file -> (binding, first line, last line)
    export_local: dict[str, dict[str, frozenset[str]]]  # file -> local binding -> export names
    mapped: dict[str, frozenset[str]]  # file -> exports with a local binding or a re-export behind them
    export_spans: dict[str, tuple[tuple[str, int, int], ...]]  # file -> (export name, first, last line)
    uses: dict[str, dict[str, frozenset[str]]]  # file -> mentioned name -> bindings whose statement mentions it
    stars: dict[str, tuple[str, ...]]  # file -> the files its `export * from` names

    @staticmethod
    def from_rows(rows: Mapping[str, Iterable[tuple]]) -> SymbolFacts:
        """From ``{relation: rows}`` of [code] rows ``("code", *args)``: the base rows of ``RELATIONS``
        and the derived ``package_wide_dependency`` (``PACKAGE_WIDE``)."""

        def of(rel: str, arity: int) -> Iterable[tuple]:
            return (r[1:] for r in rows.get(rel, ()) if len(r) == arity + 1 and r[0] == "code")

        exports: dict[str, set[str]] = {}
        for f, n in of("src_export", 2):
            exports.setdefault(f, set()).add(n)
        names: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for f, s, n, loc in of("src_import_name", 4):
            names.setdefault((f, s), []).append((n, loc))
        kinds: dict[tuple[str, str], set[str]] = {}
        for f, s, k in of("src_import_kind", 3):
            kinds.setdefault((f, s), set()).add(_s(k))
        lines: dict[tuple[str, str], set[int]] = {}
        for f, s, line in of("src_import_line", 3):
            if type(line) is int:
                lines.setdefault((f, s), set()).add(line)
        importers: dict[str, list[tuple[str, str]]] = {}
        stars: dict[str, list[str]] = {}
        for f, s, t in of("src_resolves", 3):
            importers.setdefault(t, []).append((f, s))
            if ("*", "*") in names.get((f, s), ()):
                stars.setdefault(f, []).append(t)
        specifiers: dict[tuple[str, str], list[str]] = {}  # (importer, package folder) -> specifiers
        for f, s, d in of("src_workspace_import", 3):
            specifiers.setdefault((f, d), []).append(s)
        wide: dict[str, set[tuple[str, str]]] = {}
        for a, b, d in of(PACKAGE_WIDE, 3):
            for s in specifiers.get((a, d), ()):
                wide.setdefault(b, set()).add((a, s))
        decls: dict[str, list[tuple[str, int, int]]] = {}
        for f, n, a, b in of("src_decl", 4):
            decls.setdefault(f, []).append((n, int(a), int(b)))
        export_local: dict[str, dict[str, set[str]]] = {}
        mapped: dict[str, set[str]] = {}
        for f, e, loc in of("src_export_local", 3):
            export_local.setdefault(f, {}).setdefault(loc, set()).add(e)
            mapped.setdefault(f, set()).add(e)
        for (f, _), pairs in names.items():  # an exported name an import brings: a re-export
            for _, loc in pairs:
                if loc in exports.get(f, ()):
                    mapped.setdefault(f, set()).add(loc)
        spans: dict[str, list[tuple[str, int, int]]] = {}
        for f, n, a, b in of("src_export_span", 4):
            spans.setdefault(f, []).append((n, int(a), int(b)))
        uses: dict[str, dict[str, set[str]]] = {}
        for f, d, n in of("src_decl_uses", 3):
            by = uses.setdefault(f, {})
            by.setdefault(n, set()).add(d)
            if "." in n:  # every binding that mentions namespace ns in any way, under "ns."
                by.setdefault(n.split(".", 1)[0] + ".", set()).add(d)
        return SymbolFacts(
            files=frozenset(r[0] for r in of("src_file", 2)),
            exports={k: frozenset(v) for k, v in exports.items()},
            importers={k: tuple(v) for k, v in importers.items()},
            names={k: tuple(v) for k, v in names.items()},
            kinds={k: frozenset(v) for k, v in kinds.items()},
            lines={k: frozenset(v) for k, v in lines.items()},
            wide={k: tuple(sorted(v)) for k, v in wide.items()},
            declarations=frozenset(r[0] for r in of("src_declaration", 1)),
            decls={k: tuple(v) for k, v in decls.items()},
            export_local={f: {k: frozenset(v) for k, v in m.items()} for f, m in export_local.items()},
            mapped={k: frozenset(v) for k, v in mapped.items()},
            export_spans={k: tuple(v) for k, v in spans.items()},
            uses={f: {k: frozenset(v) for k, v in m.items()} for f, m in uses.items()},
            stars={k: tuple(v) for k, v in stars.items()},
        )

    @staticmethod
    def from_kernel(kernel: Kernel) -> SymbolFacts:
        """The base rows and the package-wide edges of rules/code.rofl (the evaluation `rofl impact`
        made is reused: it covers them)."""
        from rofl.engine.namespace import stored_name

        rows: dict[str, Iterable[tuple]] = {rel: kernel.rows(rel, "code") for rel in RELATIONS}
        rows[PACKAGE_WIDE] = kernel.evaluate(goals={stored_name(PACKAGE_WIDE, "code")}).rows(PACKAGE_WIDE, "code")
        return SymbolFacts.from_rows(rows)

    def provided(self, file: str) -> frozenset[str]:
        """The names ``file`` exports: its own and, through ``export * from``, those of the files behind it."""
        out: set[str] = set()
        stack, seen = [file], {file}
        while stack:
            f = stack.pop()
            out.update(n for n in self.exports.get(f, ()) if f == file or n != "default")
            for t in self._star_targets(f):
                if t not in seen:
                    seen.add(t)
                    stack.append(t)
        return frozenset(out)

    def _star_targets(self, file: str) -> tuple[str, ...]:
        return self.stars.get(file, ())

    def touched_by_lines(self, file: str, lines: Iterable[int]) -> tuple[set[str], set[str]]:
        """The exports whose statements, and the bindings whose statements, hold one of ``lines``."""
        wanted = sorted(set(lines))
        exports = {n for n, a, b in self.export_spans.get(file, ()) if _meets(wanted, a, b)}
        bindings = {n for n, a, b in self.decls.get(file, ()) if _meets(wanted, a, b)}
        return exports, bindings


def _meets(lines: list[int], first: int, last: int) -> bool:
    import bisect

    i = bisect.bisect_left(lines, first)
    return i < len(lines) and lines[i] <= last


@dataclass(frozen=True, slots=True)
class Seed:
    """What a change touches in one file: every export (``exports`` None), some exports, some bindings."""

    file: str
    exports: frozenset[str] | None = None
    bindings: frozenset[str] = frozenset()
    whole: bool = False  # no export of its own to name (an asset, a config): its importers are whole-module


@dataclass(frozen=True, slots=True)
class SymbolAffected:
    file: str
    via: tuple[str, ...]  # the affected file, the files along the chain, the changed file
    symbols: tuple[str, ...]  # one per hop: the export of via[i + 1] that via[i] uses (WHOLE: the whole module)
    touched: tuple[str, ...]  # the affected file's exports the change touches


@dataclass(frozen=True, slots=True)
class SymbolImpact:
    seeds: tuple[tuple[str, tuple[str, ...]], ...]  # (changed file, the exports the change touches)
    affected: tuple[SymbolAffected, ...]
    by_file: dict[str, SymbolAffected]


Node = tuple  # ("E", file, export) | ("L", file, binding) | ("M", file) | ("ALL", file) | ("R", file, symbol)


def symbol_impact(
    facts: SymbolFacts,
    seeds: list[Seed],
    touches: Iterable[tuple[str, str]] = (),
    runtime: bool = False,
) -> SymbolImpact:
    """Walk the touched symbols from ``seeds`` (and the whole-file ``touches`` links) to every importer that uses them."""
    pred: dict[Node, Node | None] = {}
    queue: deque[Node] = deque()

    def push(node: Node, parent: Node | None) -> None:
        if node not in pred:
            pred[node] = parent
            queue.append(node)

    changed = {s.file for s in seeds}
    for seed in seeds:
        if seed.whole:
            push(("M", seed.file), None)
        elif seed.exports is None:
            push(("ALL", seed.file), None)
        else:
            for n in sorted(seed.exports):
                push(("E", seed.file, n), None)
            for local, names in sorted(facts.export_local.get(seed.file, {}).items()):
                if names & seed.exports:  # the binding behind a changed export: what mentions it changes too
                    push(("L", seed.file, local), ("E", seed.file, min(names & seed.exports)))
            for b in sorted(seed.bindings):
                push(("L", seed.file, b), None)
    for f, c in touches:  # f's resolution read c (a config, a deleted file its imports named): f as a whole
        root: Node = ("C", c)
        pred.setdefault(root, None)
        push(("R", f, WHOLE), root)
        push(("ALL", f), ("R", f, WHOLE))

    def usable(a: str, s: str, t: str) -> bool:
        if not runtime:
            return True
        return t not in facts.declarations and any(k != "type" for k in facts.kinds.get((a, s), ()))

    reached: set[str] = set()

    def reach(a: str, symbol: str, parent: Node) -> Node:
        node = ("R", a, symbol)
        push(node, parent)
        if a not in reached:
            reached.add(a)
            for e in sorted(facts.exports.get(a, frozenset()) - facts.mapped.get(a, frozenset())):
                push(("E", a, e), node)  # the scan cannot see what this export uses: touched
        return node

    def code_uses(a: str, s: str) -> list[str]:
        """The bindings whose statements hold an import of ``s`` in code (``import()``, ``require``,
        ``typeof import()``), not in an import statement of its own (whose bindings are the names)."""
        lines = facts.lines.get((a, s), frozenset())
        bound = {loc for _, loc in facts.names.get((a, s), ())}
        return [n for n, x, y in facts.decls.get(a, ()) if n not in bound and any(x <= line <= y for line in lines)]

    def at_lines(a: str, s: str, parent: Node) -> None:
        hit = code_uses(a, s)
        if not hit or MODULE_DECL in hit:
            push(("ALL", a), parent)
        for n in hit:
            if n != MODULE_DECL:
                push(("L", a, n), parent)

    def whole_import(a: str, s: str, parent: Node) -> None:
        """An import whose target changed as a whole (no names to follow)."""
        kinds = facts.kinds.get((a, s), frozenset())
        if "side_effect" in kinds:
            push(("ALL", a), parent)
        if kinds & {"dynamic", "require"} or not facts.names.get((a, s)):
            at_lines(a, s, parent)
        for n, loc in facts.names.get((a, s), ()):
            if n == "*" and loc == "*":
                push(("ALL", a), parent)
                continue
            push(("L", a, loc), parent)
            if loc in facts.exports.get(a, ()):
                push(("E", a, loc), parent)

    while queue:
        node = queue.popleft()
        kind, f = node[0], node[1]
        if kind == "ALL":
            push(("M", f), node)
            for n in sorted(facts.provided(f)):
                push(("E", f, n), node)
        elif kind == "M":
            no_exports = not facts.exports.get(f) and not facts.stars.get(f)  # an asset, JSON, a script
            for a, s in facts.importers.get(f, ()):
                if a == f or not usable(a, s, f):
                    continue
                kinds = facts.kinds.get((a, s), frozenset())
                pairs = facts.names.get((a, s), ())
                if no_exports:
                    whole_import(a, s, reach(a, WHOLE, node))
                    continue
                if "side_effect" in kinds or kinds & {"dynamic", "require"} or not pairs:
                    whole_import(a, s, reach(a, WHOLE, node))
                elif "type" in kinds and code_uses(a, s):  # `typeof import("x")` beside named imports
                    at_lines(a, s, reach(a, WHOLE, node))
                elif ("*", "*") in pairs:  # a file that re-exports everything is affected by any change
                    reach(a, WHOLE, node)
            for a, s in facts.wide.get(f, ()):  # package-wide: the edges the rules make, as rofl impact
                if a != f and usable(a, s, f):
                    whole_import(a, s, reach(a, WIDE, node))
        elif kind == "E":
            name = node[2]
            push(("M", f), node)
            for a, s in facts.importers.get(f, ()):
                if a == f or not usable(a, s, f):
                    continue
                for imported, loc in facts.names.get((a, s), ()):
                    if imported == name:
                        r = reach(a, name, node)
                        push(("L", a, loc), r)
                        if loc in facts.exports.get(a, ()):
                            push(("E", a, loc), r)
                    elif imported == "*" and loc == "*":
                        if name != "default" and name not in facts.exports.get(a, ()):
                            push(("E", a, name), reach(a, name, node))
                    elif imported == "*":
                        if loc in facts.exports.get(a, ()):  # export * as loc
                            push(("E", a, loc), reach(a, name, node))
                        elif _uses_member(facts, a, loc, name):
                            push(("L", a, f"{loc}.{name}"), reach(a, name, node))
        elif kind == "L":
            binding = node[2]
            push(("M", f), node)  # a changed binding changes the module (its whole-module importers)
            uses = facts.uses.get(f, {})
            space = binding.split(".", 1)[0] if "." in binding else binding
            users = set(uses.get(binding, ())) | set(uses.get(space, ()))
            if "." not in binding:
                users |= uses.get(binding + ".", frozenset())
            for e in sorted(facts.export_local.get(f, {}).get(space, ())):
                push(("E", f, e), node)
            for d in sorted(users):
                push(("ALL", f) if d == MODULE_DECL else ("L", f, d), node)

    files: dict[str, Node] = {}
    for node in pred:
        if node[0] == "R" and node[1] not in changed and node[1] not in files:
            files[node[1]] = node
    touched: dict[str, set[str]] = {}
    for node in pred:
        if node[0] == "E":
            touched.setdefault(node[1], set()).add(node[2])
    out = []
    for f in sorted(files):
        via, symbols = _chain(files[f], pred)
        out.append(SymbolAffected(f, via, symbols, tuple(sorted(touched.get(f, ())))))
    seeded = tuple((s.file, tuple(sorted(touched.get(s.file, ())))) for s in seeds)
    return SymbolImpact(seeded, tuple(out), {a.file: a for a in out})


def _uses_member(facts: SymbolFacts, file: str, space: str, member: str) -> bool:
    """Whether ``file`` writes ``space.member``, or uses namespace ``space`` other than by a member."""
    uses = facts.uses.get(file, {})
    if not facts.decls.get(file):  # nothing recorded: assume it does
        return True
    return bool(uses.get(space) or uses.get(f"{space}.{member}") or space in facts.export_local.get(file, {}))


def _chain(start: Node, pred: dict[Node, Node | None]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The files from ``start``'s file down to a changed file, and at each hop the export used."""
    via = [start[1]]
    symbols: list[str] = []
    used = start[2]  # every hop into another file leaves through a reach node naming what it uses
    node = pred.get(start)
    while node is not None:
        if node[1] != via[-1]:
            via.append(node[1])
            symbols.append(used)
        if node[0] == "R":
            used = node[2]
        node = pred.get(node)
    return tuple(via), tuple(symbols)


# -- what a change touches ------------------------------------------------------------------------------


def split_named(raw: str, exists: Callable[[str], bool]) -> tuple[str, str | None]:
    """``FILE:NAME`` as (FILE, NAME) when FILE exists and the whole does not; else (raw, None)."""
    if ":" in raw and not exists(raw):
        path, _, name = raw.rpartition(":")
        if path and name and exists(path):
            return path, name
    return raw, None


def hunks(diff: str) -> tuple[set[int], set[int]]:
    """The lines a ``git diff -U0`` changes: (old lines removed or replaced, new lines added or replaced)."""
    old: set[int] = set()
    new: set[int] = set()
    for m in _HUNK.finditer(diff):
        a, b = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
        c, d = int(m.group(3)), int(m.group(4) if m.group(4) is not None else 1)
        old.update(range(a, a + b))
        new.update(range(c, c + d))
        if d == 0:  # a pure removal between new lines c and c + 1
            new.update((c, c + 1))
    return old, new


def old_symbols(path: str, data: bytes) -> SymbolFacts | None:
    """The file at REF, extracted as the scan extracts (its exports, spans and bindings); None when it cannot be."""
    from rofl.engine.base.errors import RoflError
    from rofl.engine.parse import parse_program
    from rofl.scanner.extract import Extractor
    from rofl.scanner.files import grammar_for

    try:
        data.decode("utf-8")
        lines = Extractor().extract(path, data, grammar_for(path)).lines
        clauses = parse_program("\n".join(lines), path)
    except (UnicodeDecodeError, RoflError, ValueError):
        return None
    rows: dict[str, list[tuple]] = {}
    for clause in clauses:
        rows.setdefault(clause.head.rel, []).append(("code", *clause.head.args))
    return SymbolFacts.from_rows(rows)


def git_seed(facts: SymbolFacts, path: str, diff: str, old: bytes | None) -> Seed:
    """What the work tree's change of ``path`` against REF touches: the statements its changed lines
    meet, now and at REF, and the exports added or removed.  A file new since REF touches every export."""
    if old is None:
        return Seed(path)
    before = old_symbols(path, old)
    if before is None:
        return Seed(path)
    removed, added = hunks(diff)
    exports, bindings = facts.touched_by_lines(path, added)
    old_exports, old_bindings = before.touched_by_lines(path, removed)
    exports |= old_exports
    bindings |= old_bindings
    now, then = facts.exports.get(path, frozenset()), before.exports.get(path, frozenset())
    exports |= now ^ then
    if WHOLE in exports or MODULE_DECL in bindings:  # `export * from` or module-level code changed
        return Seed(path)
    new_bindings = {b for b, _, _ in facts.decls.get(path, ())}
    return Seed(path, frozenset(exports), frozenset(b for b in bindings if b in new_bindings or b in now))


# -- the command's side ---------------------------------------------------------------------------------


def split_changed(paths: list[str], src: Path) -> tuple[list[str], dict[str, set[str]]]:
    """``--changed`` values with ``FILE:NAME`` split off: the paths, and the names asked for per path."""
    import os
    import posixpath

    named: dict[str, set[str]] = {}
    out = []
    for raw in paths:
        path, name = split_named(raw, lambda p: os.path.lexists(os.path.join(src, p)) or os.path.lexists(p))
        out.append(path)
        if name is not None:  # keyed as rofl.questions.changes.normalise names a path inside SRC
            key = os.path.relpath(path, src) if os.path.isabs(path) else path
            named.setdefault(posixpath.normpath(key.replace("\\", "/")), set()).add(name)
    return out, named


def answer(
    kernel: Kernel, changes: list[Change], named: dict[str, set[str]], git_base: str | None, git: Git, runtime: bool
) -> SymbolImpact:
    """The symbol impact of the classified ``changes`` (rofl.questions.changes.Change), with ``FILE:NAME`` names
    and, under ``--git-base``, the changed lines of each scanned source."""
    from rofl.engine.base.errors import RoflError

    from .changes import SOURCE

    facts = SymbolFacts.from_kernel(kernel)
    seeds: list[Seed] = []
    touches: list[tuple[str, str]] = []
    asked = dict(named)
    for change in changes:
        names = asked.pop(change.path, None)
        if names is not None:
            if change.kind != SOURCE:
                raise RoflError(
                    f"rofl impact: --changed {change.path}:NAME: {change.path} is a {change.kind}, not a scanned source with exports; drop :NAME"
                )
            provided = facts.provided(change.path)
            unknown = sorted(names - provided)
            if unknown:
                shown = ", ".join(sorted(provided)[:10]) or "none"
                raise RoflError(
                    f"rofl impact: --changed {change.path}:{unknown[0]}: {change.path} exports no {unknown[0]!r} (it exports {shown}); name one of its exports"
                )
            seeds.append(Seed(change.path, frozenset(names)))
            continue
        for node in change.changed:
            if node not in facts.files:
                seeds.append(Seed(node, whole=True))
            elif git_base is not None and change.kind == SOURCE and node == change.path:
                rel = git.from_src(node)
                diff = (
                    git.run(
                        "diff",
                        "-U0",
                        "--no-color",
                        "--no-ext-diff",
                        "--no-renames",
                        "--end-of-options",
                        git_base,
                        "--",
                        rel,
                    )
                    if rel is not None
                    else None
                )
                seeds.append(
                    git_seed(facts, node, diff or "", git.show(git_base, node)) if diff is not None else Seed(node)
                )
            else:
                seeds.append(Seed(node))
        touches.extend(change.touches)
    if asked:
        path = sorted(asked)[0]
        raise RoflError(
            f"rofl impact: --changed {path}:NAME: {path} is not among the changed paths; give it as a path relative to the scanned folder"
        )
    return symbol_impact(facts, seeds, touches, runtime)


def via_text(via: tuple[str, ...], symbols: tuple[str, ...], escape: Callable[[str], str]) -> str:
    """``a.ts -[f]-> b.ts -[x]-> c.ts``: each hop with the export of the next file it uses."""
    parts = [escape(via[0])]
    for file, symbol in zip(via[1:], symbols, strict=False):
        parts.append(f"-[{escape(symbol)}]-> {escape(file)}")
    return " ".join(parts)


def as_affected(result: SymbolImpact, kernel: Kernel, runtime: bool) -> list:
    """The affected files as ``rofl.questions.affected.Affected`` (chains of files), for the command's filters, each
    hop the walk took package-wide (``WIDE``) labelled as ``rofl impact`` labels it (``package_wide``)."""
    from rofl.engine.namespace import stored_name

    from .affected import PACKAGE_WIDE_TARGET, Affected, hop_labeller

    goals = {stored_name(PACKAGE_WIDE, "code"), stored_name(PACKAGE_WIDE_TARGET, "code")}
    label = hop_labeller(kernel, kernel.evaluate(goals=goals), runtime)
    out = []
    for a in result.affected:
        wide = {(x, y) for x, y, s in zip(a.via, a.via[1:], a.symbols, strict=False) if s == WIDE}
        hops = tuple(h for h in label(a.via) if (h.source, h.target) in wide) if wide else ()
        out.append(Affected(a.file, a.via, hops))
    return out


def affected_json(result: SymbolImpact | None, file: str) -> dict:
    """The JSON fields --symbols adds to an affected file: the export used at each hop, and its touched exports."""
    if result is None:
        return {}
    a = result.by_file.get(file)
    return {} if a is None else {"symbols": list(a.symbols), "touched": list(a.touched)}


def seeds_json(result: SymbolImpact) -> list[dict]:
    return [{"file": f, "exports": list(names)} for f, names in result.seeds]


def seed_lines(seeds: Sequence[tuple[str, Sequence[str]]], escape: Callable[[str], str], limit: int = 8) -> list[str]:
    """``exports: FILE: a, b`` per changed file (``seeds``: each with the exports the change touches)."""
    out = []
    if len(seeds) > MAX_SEED_LINES:  # a long branch: --format json lists every file's
        touched = sum(1 for _, names in seeds if names)
        return [f"exports touched: in {touched} of {len(seeds)} changed files (--format json lists them)"]
    for f, names in seeds:
        shown = ", ".join(escape(n) for n in names[:limit]) + (
            f" and {len(names) - limit} more" if len(names) > limit else ""
        )
        out.append(f"exports touched: {escape(f)}: {shown or 'none'}")
    return out

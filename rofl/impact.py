"""Impact of a change: the files that transitively depend on the changed paths, each with its chain.

The changed paths arrive classified (``rofl.changes``); this module asserts ``changed(C)``,
``touches(F, C)`` and, for --runtime, ``impact_via(runtime)`` in [main], evaluates ``affected`` from
rules/code.rofl, and reads each file's chain from the witnesses of ``impact_reach``.  It also picks
test files and workspace packages out of the answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.kernel import Kernel
from engine.namespace import stored_name

from .changes import Change

CHANGED = "changed"
TOUCHES = "touches"
VIA = "impact_via"
REACH = "impact_reach"
AFFECTED = "affected"
ALIAS = "unfollowed_alias"  # [code]: imports under a bundler alias rofl does not follow (rules/code.rofl)
VIRTUAL = (
    "virtual_module"  # [code]: imports of a virtual module (astro:content, virtual:x, ~icons/...) (rules/code.rofl)
)

# the usual test file conventions (jest, vitest and its type tests, mocha, node:test)
TEST_GLOBS = ("*.test.*", "*.spec.*", "*.test-d.*", "*.spec-d.*", "**/__tests__/**", "**/test/**", "**/tests/**")


@dataclass(frozen=True, slots=True)
class Affected:
    file: str
    via: tuple[str, ...]  # the affected file, the files it imports along the chain, the changed path


@dataclass(frozen=True, slots=True)
class Impact:
    changes: tuple[Change, ...]
    affected: tuple[Affected, ...]
    partial: bool
    aliases: tuple[tuple[str, str, str], ...] = ()  # (file, specifier, name) of every unfollowed alias import
    virtual: tuple[tuple[str, str, str], ...] = ()  # (file, specifier, name) of every virtual module import

    @property
    def changed(self) -> tuple[str, ...]:
        return tuple(c.path for c in self.changes)


def impact(kernel: Kernel, changes: list[Change], runtime: bool = False) -> Impact:
    """Assert the changes, evaluate ``affected``, and return each affected file with its shortest chain."""
    for change in changes:
        for node in change.changed:
            kernel.assert_fact(CHANGED, "main", (node,), who="user")
        for f, node in change.touches:
            kernel.assert_fact(TOUCHES, "main", (f, node), who="user")
    if runtime:
        kernel.assert_fact(VIA, "main", (("runtime",),), who="user")
    result = kernel.evaluate(goals={AFFECTED, stored_name(ALIAS, "code"), stored_name(VIRTUAL, "code")})
    files = sorted(row[1] for row in result.rows(AFFECTED, "main") if type(row[1]) is str)
    tails: dict[tuple, tuple[str, ...]] = {}  # shared by the chains: most end in the same few links
    return Impact(
        tuple(changes),
        tuple(Affected(f, chain(result, f, tails)) for f in files),
        result.partial,
        _unfollowed(result, ALIAS),
        _unfollowed(result, VIRTUAL),
    )


def _unfollowed(result, relation: str) -> tuple[tuple[str, str, str], ...]:
    """The (file, specifier, name) rows of a [code] relation of imports rofl does not follow, sorted."""
    rows = sorted(tuple(map(str, row[1:4])) for row in result.rows(relation, "code") if len(row) == 4)
    return tuple((a, b, c) for a, b, c in rows)


def chain(result, file: str, tails: dict[tuple, tuple[str, ...]] | None = None) -> tuple[str, ...]:
    """Follow the witnesses of impact_reach from ``file`` down to a changed path: each rule's first
    premise is ``changed(C)`` or ``impact_reach(G)``, and C or G is the next link.  ``tails`` keeps,
    for each row of a chain that reached a changed path, the links after it, so a chain that meets
    that row again stops there (the same witnesses give the same rest)."""
    out = [file]
    row = ("main", file)
    seen = {row}
    path = [row]
    complete = False
    while True:
        if tails is not None and row in tails:
            out.extend(tails[row])
            complete = True
            break
        record = result.provenance(REACH, row)
        if record is None:
            break
        rel, first = record.witness[0]
        out.append(first[1])
        if rel == CHANGED:
            complete = True
            break
        if first in seen:
            break
        seen.add(first)
        row = first
        path.append(row)
    if tails is not None and complete:  # the links after the i-th row of the path are out[i + 1:]
        for i, visited in enumerate(path):
            tails.setdefault(visited, tuple(out[i + 1 :]))
    return tuple(out)


def scanned_changed(result: Impact, scanned: set[str], exists) -> list[str]:
    """The changed nodes that are scanned files still on disk (a test runner should run those too)."""
    return sorted({n for c in result.changes for n in c.changed if n in scanned and exists(n)})


def test_filter(globs: tuple[str, ...] | None):
    """A predicate over paths: the given globs, or the usual test conventions."""
    from scanner.files import glob_to_regex

    patterns = [glob_to_regex(g) for g in (globs or TEST_GLOBS)]
    return lambda path: any(p.match(path) for p in patterns)


def package_of(path: str, packages: dict[str, str]) -> str | None:
    """The workspace package (by name) whose folder holds ``path``: the deepest one."""
    best: tuple[int, str] | None = None
    for name, folder in packages.items():
        if not isinstance(folder, str):
            continue
        prefix = "" if folder in ("", ".") else folder.rstrip("/") + "/"
        if path.startswith(prefix) and (best is None or len(prefix) > best[0]):
            best = (len(prefix), name)
    return best[1] if best else None


def packages_of(paths: list[str], packages: dict[str, str]) -> list[dict]:
    """Affected workspace packages: name, folder and how many of the paths lie in each."""
    counts: dict[str, int] = {}
    for p in paths:
        name = package_of(p, packages)
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    return [{"name": n, "folder": packages[n] or ".", "files": counts[n]} for n in sorted(counts)]


def escape(text: str) -> str:
    """Control characters, line separators and lone surrogates as \\u{hex}, so that one path is one line."""
    if all(
        32 <= ord(c) < 127 or (ord(c) >= 160 and not 0xD800 <= ord(c) <= 0xDFFF and c not in "\u2028\u2029")
        for c in text
    ):
        return text
    return "".join(
        f"\\u{{{ord(c):x}}}"
        if ord(c) < 32 or 127 <= ord(c) < 160 or 0xD800 <= ord(c) <= 0xDFFF or c in "\u2028\u2029"
        else c
        for c in text
    )

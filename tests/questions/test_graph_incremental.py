"""The import graph maintained per changed fact file equals the graph derived from scratch.

``rofl.loading.graph_rules.maintain`` updates the persisted graph (and its reverse indexes) from the rows of
the records that changed; on random record sets edited at random (imports added, removed and changed,
files added and deleted, package-wide imports, declarations, unfollowed and virtual imports, files moving
between packages), after every step it equals ``derive`` and ``state_of`` of the records as they are now,
or declines (and the caller derives the whole graph).  Through the index on disk
(``rofl.loading.graph_index``), a rescan of one changed file maintains the graph rather than deriving it.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rofl.loading import cachemac, graph_index, graph_rules
from rofl.loading.graph_rules import derive, maintain, state_of
from rofl.loading.kernel import CODE_RULES
from tests.cli.impact_fixtures import run
from tests.conftest import write_tree

GLOBS = graph_index._globs(CODE_RULES.read_text(encoding="utf-8"))
PACKAGES = ("packages/p0", "packages/p1", "packages/p2")
FILES = (
    "packages/p0/src/a.ts",
    "packages/p0/src/b.test.ts",
    "packages/p0/src/c.ts",
    "packages/p1/src/a.ts",
    "packages/p1/src/d.d.ts",
    "packages/p2/src/e.ts",
    "app/main.ts",
)
SPECS = ("./a", "./b", "@w/p0", "@w/p1/x", "@w/p2", "virtual:x", "~alias/y", "react", "\x00id", "node:fs")
KINDS = (("static",), ("type",), ("dynamic",), ("reexport",))


@st.composite
def file_rows(draw: st.DrawFn, f: str) -> graph_rules.Rows:
    """The rows of one source's fact file, as the scanner writes them (every row's first column is the file)."""
    by: dict[str, set] = {}
    for spec in draw(st.lists(st.sampled_from(SPECS), max_size=4, unique=True)):
        for kind in draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=2, unique=True)):
            by.setdefault("src_import_kind", set()).add((f, spec, kind))
        how = draw(st.sampled_from(["resolves", "workspace", "external", "unresolved", "both"]))
        if how in ("resolves", "both"):
            for b in draw(st.lists(st.sampled_from(FILES), min_size=1, max_size=2, unique=True)):
                by.setdefault("src_resolves", set()).add((f, spec, b))
        if how in ("workspace", "both"):
            by.setdefault("src_workspace_import", set()).add((f, spec, draw(st.sampled_from(PACKAGES))))
        if how == "external":
            by.setdefault("src_external", set()).add((f, spec, spec.split("/")[0]))
        if how == "unresolved":
            by.setdefault("src_unresolved", set()).add((f, spec))
    if f.endswith(".d.ts") or draw(st.booleans()):
        by.setdefault("src_declaration", set()).add((f,))
    by.setdefault("src_file", set()).add((f, "ts"))
    if draw(st.booleans()):  # an asset it imports: the row is in the importer's fact file
        by.setdefault("src_asset", set()).add(("packages/p0/logo.png",))
    return tuple((rel, tuple(sorted(rows))) for rel, rows in sorted(by.items()))


@st.composite
def entries_rows(draw: st.DrawFn, files: list[str], globals_too: bool) -> graph_rules.Rows:
    """The package rows (entries.rofl): each file in its package (or another one), and entries and subpaths."""
    package = [
        (f, d, f[len(d) + 1 :] if f.startswith(d + "/") else f)
        for f in files
        for d in PACKAGES
        if f.startswith(d + "/") or draw(st.integers(0, 9)) == 0
    ]
    rows: dict[str, tuple] = {"src_package": tuple(sorted(package))}
    if globals_too:
        rows["src_package_entry"] = (("packages/p1", "packages/p1/src/a.ts", "main"),)
        rows["src_package_subpath"] = (("packages/p1", "packages/p1/src/a.ts", "./x", "^@w/p1/x$"),)
    return tuple(sorted(rows.items()))


@st.composite
def record_sets(draw: st.DrawFn) -> dict[str, graph_rules.Rows]:
    files = draw(st.lists(st.sampled_from(FILES), min_size=1, unique=True))
    out = {_key(f, 0): draw(file_rows(f)) for f in files}
    out["entries.rofl"] = draw(entries_rows(files, True))
    out["preamble.rofl"] = ()
    return out


def _key(f: str, version: int) -> str:
    """A source's fact file: its name carries its digest, so an edit is a new name."""
    return f"code/{f.replace('/', '_')}.{version}.rofl"


def _files(records: dict) -> list[str]:
    return sorted({r[0] for rows in records.values() for rel, part in rows if rel == "src_file" for r in part})


def _edit(draw: st.DrawFn, records: dict[str, graph_rules.Rows], step: int) -> dict[str, graph_rules.Rows]:
    out = dict(records)
    keys = {r[0]: k for k, rows in records.items() for rel, part in rows if rel == "src_file" for r in part}
    what = draw(st.sampled_from(["change", "change", "change", "add", "delete", "move", "entries"]))
    if what == "change" and keys:
        f = draw(st.sampled_from(sorted(keys)))
        del out[keys[f]]
        out[_key(f, step)] = draw(file_rows(f))
    elif what == "add":
        f = draw(st.sampled_from(FILES))
        out.pop(keys.get(f, ""), None)
        out[_key(f, step)] = draw(file_rows(f))
        out["entries.rofl"] = draw(entries_rows(_files(out), True))
    elif what == "delete" and keys:
        f = draw(st.sampled_from(sorted(keys)))
        del out[keys[f]]
        out["entries.rofl"] = draw(entries_rows(_files(out), True))
    elif what == "move":  # the same rows under another name (a fact file renamed, its source unchanged)
        if keys:
            f = draw(st.sampled_from(sorted(keys)))
            out[_key(f, step)] = out.pop(keys[f])
    else:  # a package.json edited: its entries and subpaths changed, or files moved between packages
        out["entries.rofl"] = draw(entries_rows(_files(out), draw(st.booleans())))
    return out


def _changed(old: dict, new: dict) -> dict[str, graph_rules.Rows | None]:
    before: dict[str, graph_rules.Rows | None] = {k: rows for k, rows in old.items() if new.get(k) != rows}
    before.update((k, None) for k in new if k not in old)
    return before


def _base(records: dict) -> dict[str, list[tuple]]:
    return graph_index._union((None, rows) for rows in records.values())


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(records=record_sets(), data=st.data())
def test_the_maintained_graph_equals_the_derived_one_after_every_edit(records: dict, data: st.DataObject) -> None:
    graph, state = derive(_base(records), GLOBS), state_of(records, GLOBS)
    assert state is not None
    followed = 0
    for step in range(1, data.draw(st.integers(1, 6)) + 1):
        now = _edit(data.draw, records, step)
        maintained = maintain(graph, state, _changed(records, now), now, GLOBS)
        expected, expected_state = derive(_base(now), GLOBS), state_of(now, GLOBS)
        if maintained is None:  # declined (a package.json's entries changed, ...): derived whole
            graph, state = expected, expected_state
        else:
            followed += 1
            graph, state = maintained
            assert graph == expected
            assert state == expected_state
        assert state is not None
        records = now


def test_a_one_file_edit_is_followed_and_a_package_entry_change_is_not() -> None:
    """What the property test relies on actually happens: an edit of one source's imports is maintained,
    a change to package entries is declined."""
    a = {
        _key(FILES[0], 0): (("src_file", ((FILES[0], "ts"),)), ("src_resolves", ((FILES[0], "./c", FILES[2]),))),
        _key(FILES[2], 0): (("src_file", ((FILES[2], "ts"),)),),
        "entries.rofl": (("src_package", ((FILES[0], PACKAGES[0], "src/a.ts"), (FILES[2], PACKAGES[0], "src/c.ts"))),),
    }
    graph, state = derive(_base(a), GLOBS), state_of(a, GLOBS)
    assert state is not None
    b = dict(a)
    del b[_key(FILES[0], 0)]
    b[_key(FILES[0], 1)] = (("src_file", ((FILES[0], "ts"),)),)
    maintained = maintain(graph, state, _changed(a, b), b, GLOBS)
    assert maintained is not None and maintained[0] == derive(_base(b), GLOBS)
    assert maintained[0].importers.get(FILES[2]) is None and graph.importers[FILES[2]] == (FILES[0],)
    c = dict(a)
    c["entries.rofl"] = (*a["entries.rofl"], ("src_package_entry", ((PACKAGES[0], FILES[0], "main"),)))
    assert maintain(graph, state, _changed(a, c), c, GLOBS) is None


def test_a_rescan_of_one_file_maintains_the_index_rather_than_deriving_it(tmp_path: Path, monkeypatch) -> None:
    src, facts = tmp_path / "src", tmp_path / "facts"
    files = {
        "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
        "packages/p0/package.json": '{"name": "@w/p0"}',
        "packages/p0/src/a.ts": "import { b } from './b';\nexport const a = b;\n",
        "packages/p0/src/b.ts": "export const b = 1;\n",
        "packages/p0/src/c.ts": "export const c = 1;\n",
        "app/main.ts": "import { a } from '@w/p0';\nexport const m = a;\n",
    }
    write_tree(src, files)
    assert run("scan", src, "--out", facts)[0] == 0
    text = CODE_RULES.read_text(encoding="utf-8")
    first = graph_index.current(facts, text, cachemac.secret(), graph_index.manifest_bytes(facts))
    assert first is not None and "packages/p0/src/a.ts" in first.graph.importers["packages/p0/src/b.ts"]
    write_tree(src, {"packages/p0/src/a.ts": "import { c } from './c';\nexport const a = c;\n"})
    assert run("scan", src, "--out", facts)[0] == 0

    def whole(*args: object, **kwargs: object) -> None:
        raise AssertionError("the whole graph was derived again after a one-file edit")

    monkeypatch.setattr(graph_index, "derive", whole)
    view = graph_index.current(facts, text, cachemac.secret(), graph_index.manifest_bytes(facts))
    monkeypatch.undo()
    assert view is not None and view.updated == 1
    base = view.base(cachemac.secret())
    assert base is not None and view.graph == graph_rules.derive(base, graph_index._globs(text))
    assert "packages/p0/src/a.ts" not in view.graph.importers["packages/p0/src/b.ts"]
    assert view.graph.importers["packages/p0/src/c.ts"][0] == "packages/p0/src/a.ts"


def test_a_stale_or_damaged_state_is_not_maintained_from(tmp_path: Path) -> None:
    """A state file of an earlier build (or a damaged one) is ignored: the graph is derived whole and is right."""
    src, facts = tmp_path / "src", tmp_path / "facts"
    write_tree(src, {"a.ts": "import { b } from './b';\nexport const a = b;\n", "b.ts": "export const b = 1;\n"})
    text = CODE_RULES.read_text(encoding="utf-8")

    def view() -> graph_index.View:
        assert run("scan", src, "--out", facts)[0] == 0
        found = graph_index.current(facts, text, cachemac.secret(), graph_index.manifest_bytes(facts))
        assert found is not None
        return found

    view()
    stale = (facts / graph_index.STATE_NAME).read_bytes()
    write_tree(src, {"c.ts": "export const c = 1;\n", "a.ts": "import { c } from './c';\nexport const a = c;\n"})
    view()
    for state in (stale, b"damaged"):
        (facts / graph_index.STATE_NAME).write_bytes(state)
        write_tree(src, {"b.ts": "import { c } from './c';\nexport const b = 2;\n"})
        found = view()
        base = found.base(cachemac.secret())
        assert base is not None and found.graph == derive(base, GLOBS)
        assert found.graph.importers["c.ts"] == ("a.ts", "b.ts") and "b.ts" not in found.graph.importers
        write_tree(src, {"b.ts": "export const b = 3;\n"})
        view()

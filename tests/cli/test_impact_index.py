"""`rofl impact` by demand from the graph index answers exactly what the kernel answers, and only over verified facts.

The kernel's path is today's (every fact file loaded, rules/code.rofl evaluated from scratch); `--budget`
keeps a question on it.  On random workspaces edited at random (files added, removed and rewritten,
imports of every kind, package.json and tsconfig changes), after each rescan the answer by demand
(text and JSON, every option) equals the kernel's for random changed sets, and the kernel is never
asked.  A fact folder edited by hand, a forged or damaged index, a foreign or missing fact file: the
index does not answer, and the kernel's answer (with its warnings) is what the user sees.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rofl.loading import cachemac, graph_index, graph_rules
from rofl.loading.kernel import CODE_BUDGET, CODE_RULES
from tests.cli.impact_fixtures import run
from tests.conftest import write_tree

STEMS = ("a", "b", "c", "d")
PACKAGES = ("p0", "p1")
KERNEL = ("--budget", str(CODE_BUDGET))  # keeps the question on the kernel


def test_the_mirrored_rules_are_the_shipped_ones() -> None:
    """graph_rules mirrors rules/code.rofl's impact clauses; a change there must be followed there."""
    assert graph_rules.rules_match(CODE_RULES.read_text(encoding="utf-8")), (
        "rules/code.rofl changed a clause rofl/graph_rules.py mirrors: update the mirror, then PINNED"
    )


def _file(path: str, imports: list[tuple[str, bool]]) -> str:
    lines = [f"import {'type ' if kind else ''}{{ x{i} }} from '{spec}';" for i, (spec, kind) in enumerate(imports)]
    return "\n".join(lines) + f"\nexport const v = '{path}';\n"


SPECS = st.sampled_from(
    [
        "./a",
        "./b.ts",
        "./c",
        "../src/d",
        "./missing",
        "@w/p0",
        "@w/p1",
        "@w/p0/b",
        "@w/p1/c",
        "@w/p0/src/a",
        "@w/gone",
        "~alias/x",
        "virtual:thing",
        "astro:content",
        "react",
        "node:fs",
        "./style.css",
        "./types",
    ]
)


@st.composite
def sources(draw: st.DrawFn) -> str:
    imports = draw(st.lists(st.tuples(SPECS, st.booleans()), max_size=4))
    return _file("x", imports)


@st.composite
def package_json(draw: st.DrawFn, name: str) -> str:
    data: dict = {"name": name, "version": "1.0.0"}
    shape = draw(st.sampled_from(["main", "exports", "none", "subpaths"]))
    if shape == "main":
        data["main"] = "src/" + draw(st.sampled_from(STEMS)) + ".ts"
    elif shape == "exports":
        data["exports"] = {".": "./src/a.ts", "./*": "./src/*.ts"}
    elif shape == "subpaths":
        data["exports"] = {"./b": "./src/b.ts"}
    return json.dumps(data)


@st.composite
def workspaces(draw: st.DrawFn) -> dict[str, str]:
    tree: dict[str, str] = {"pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n", "package.json": '{"name": "root"}'}
    for p in PACKAGES:
        tree[f"packages/{p}/package.json"] = draw(package_json(f"@w/{p}"))
        for stem in draw(st.lists(st.sampled_from(STEMS), min_size=1, unique=True)):
            tree[f"packages/{p}/src/{stem}.ts"] = draw(sources())
        if draw(st.booleans()):
            tree[f"packages/{p}/src/types.d.ts"] = "export type T = number;\n"
        if draw(st.booleans()):
            tree[f"packages/{p}/src/a.test.ts"] = draw(sources())
    tree["packages/p0/src/style.css"] = "a {}\n"
    if draw(st.booleans()):
        tree["tsconfig.json"] = json.dumps({"compilerOptions": {"paths": {"~alias/*": ["packages/p1/src/*"]}}})
    return tree


EDITS = st.sampled_from(["add", "remove", "rewrite", "package", "tsconfig"])


def _edit(draw: st.DrawFn, src: Path, kind: str) -> None:
    files = sorted(p.relative_to(src).as_posix() for p in src.rglob("*.ts"))
    if kind == "add" or not files:
        p, stem = draw(st.sampled_from(PACKAGES)), draw(st.sampled_from(STEMS))
        write_tree(src, {f"packages/{p}/src/{stem}.ts": draw(sources())})
    elif kind == "remove":
        (src / draw(st.sampled_from(files))).unlink()
    elif kind == "rewrite":
        write_tree(src, {draw(st.sampled_from(files)): draw(sources())})
    elif kind == "package":
        p = draw(st.sampled_from(PACKAGES))
        write_tree(src, {f"packages/{p}/package.json": draw(package_json(f"@w/{p}"))})
    else:
        paths = {"~alias/*": [f"packages/{draw(st.sampled_from(PACKAGES))}/src/*"]}
        write_tree(src, {"tsconfig.json": json.dumps({"compilerOptions": {"paths": paths}})})


def _changed(draw: st.DrawFn, src: Path) -> list[str]:
    files = sorted(p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file())
    picks = draw(st.lists(st.sampled_from(files), min_size=1, max_size=3, unique=True))
    if draw(st.booleans()):
        picks.append("packages/p0/src/gone.ts")  # a source that is not there (refused, or a deleted one)
    return picks


OPTIONS = st.sampled_from([(), ("--runtime",), ("--tests",), ("--packages",), ("--format", "names"), ("--json",)])


def _answers(facts: Path, changed: list[str], options: tuple[str, ...]) -> tuple[tuple, tuple]:
    """(by demand, by the kernel): exit code, stdout and stderr of the same question."""
    argv = ["impact", "--facts", facts, *[a for c in changed for a in ("--changed", c)], *options]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("rofl.questions.affected.impact", _kernel_asked)
        demand = run(*argv)
    return demand, run(*argv, *KERNEL)


def _kernel_asked(*args: object, **kwargs: object) -> None:
    raise AssertionError("the kernel was asked a question the index answers")


def _demand_answers(facts: Path) -> bool:
    """Whether the index answers over this folder (the folder is a clean scan: nothing sent the
    question to the kernel)."""
    raw = graph_index.manifest_bytes(facts)
    return graph_index.current(facts, CODE_RULES.read_text(encoding="utf-8"), cachemac.secret(), raw) is not None


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tree=workspaces(), data=st.data())
def test_demand_equals_the_kernel_on_random_edits(tree: dict[str, str], data: st.DataObject, tmp_path_factory) -> None:
    _random_edits(tree, data, tmp_path_factory.mktemp("ws"))


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tree=workspaces(), data=st.data())
def test_demand_equals_the_kernel_on_many_random_edits(
    tree: dict[str, str], data: st.DataObject, tmp_path_factory
) -> None:
    _random_edits(tree, data, tmp_path_factory.mktemp("ws"))


def _random_edits(tree: dict[str, str], data: st.DataObject, root: Path) -> None:
    src, facts = root / "src", root / "facts"
    write_tree(src, tree)
    assert run("scan", src, "--out", facts)[0] == 0
    for _ in range(data.draw(st.integers(1, 3))):
        _edit(data.draw, src, data.draw(EDITS))
        changed = _changed(data.draw, src)
        options = data.draw(OPTIONS)
        if data.draw(st.booleans()):  # the question rescans (the index follows the changed fact files) ...
            demand, kernel = _answers(facts, changed, options)
            assert demand[:2] == kernel[:2]
        else:  # ... or the scan did, and both questions find nothing to rescan
            assert run("scan", src, "--out", facts)[0] == 0
            demand, kernel = _answers(facts, changed, options)
            assert demand == kernel
        assert _demand_answers(facts)


def _scanned(tmp_path: Path) -> tuple[Path, Path]:
    src, facts = tmp_path / "src", tmp_path / "facts"
    write_tree(
        src,
        {
            "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
            "packages/p0/package.json": '{"name": "@w/p0", "main": "src/a.ts"}',
            "packages/p0/src/a.ts": "import { b } from './b';\nexport const a = b;\n",
            "packages/p0/src/b.ts": "export const b = 1;\n",
            "packages/p1/package.json": '{"name": "@w/p1"}',
            "packages/p1/src/c.ts": "import { a } from '@w/p0';\nimport { z } from '~alias/z';\nexport const c = a;\n",
            "packages/p1/src/d.ts": "import { c } from './c';\nexport const d = c;\n",
        },
    )
    assert run("scan", src, "--out", facts)[0] == 0
    return src, facts


def _same_both_ways(facts: Path, changed: str = "packages/p0/src/b.ts", demand: bool = False) -> tuple:
    argv = ["impact", "--facts", facts, "--changed", changed, "--json", "--no-rescan"]
    if demand:
        first = run(*argv)
    else:
        with pytest.MonkeyPatch.context() as patch:  # the index must not answer: the kernel does
            patch.setattr("rofl.questions.affected.impact_by_demand", _index_asked)
            first = run(*argv)
    second = run(*argv, *KERNEL)
    assert first == second
    return first


def _index_asked(*args: object, **kwargs: object) -> None:
    raise AssertionError("the graph index answered over a folder it must not answer for")


def test_the_index_answers_a_clean_scan(tmp_path: Path) -> None:
    _, facts = _scanned(tmp_path)
    code, out, _ = _same_both_ways(facts, demand=True)
    assert code == 0 and [a["file"] for a in json.loads(out)["affected"]] == [
        "packages/p0/src/a.ts",
        "packages/p1/src/c.ts",
        "packages/p1/src/d.ts",
    ]
    assert (facts / graph_index.INDEX_NAME).is_file() and (facts / graph_index.RECORDS_NAME).is_file()


def _fact_file(facts: Path, source: str) -> Path:
    manifest = json.loads((facts / "manifest.json").read_text())
    return facts / manifest["files"][source]["facts"]


def test_a_fact_file_edited_by_hand_is_never_answered_from_the_index(tmp_path: Path) -> None:
    _, facts = _scanned(tmp_path)
    _same_both_ways(facts, demand=True)  # the index is built and current
    path = _fact_file(facts, "packages/p1/src/d.ts")
    text = path.read_text()
    forged = text.replace('"./c", "packages/p1/src/c.ts"', '"./c", "packages/p1/src/d.ts"')
    assert forged != text and len(forged) == len(text)  # same size: only the mtime and the bytes tell
    path.write_text(forged)
    _, _, err = _same_both_ways(facts)
    assert "digest mismatch" in err


def test_a_forged_or_damaged_index_is_rebuilt_not_trusted(tmp_path: Path) -> None:
    _, facts = _scanned(tmp_path)
    before = _same_both_ways(facts, demand=True)
    index = facts / graph_index.INDEX_NAME
    data = bytearray(index.read_bytes())
    data[-5] ^= 0xFF  # the payload no longer matches its tag
    index.write_bytes(bytes(data))
    assert _same_both_ways(facts, demand=True) == before
    # an index tagged under another secret (another user's, or written by hand) is ignored
    other = b"\x01" * 32
    payload = b"marshal bytes that claim anything"
    index.write_bytes(graph_index.INDEX_MAGIC + cachemac.tag(other, payload) + b"\n" + payload)
    (facts / graph_index.RECORDS_NAME).write_bytes(b"not records")
    assert _same_both_ways(facts, demand=True) == before


def test_a_foreign_or_missing_fact_file_goes_to_the_kernel(tmp_path: Path) -> None:
    _, facts = _scanned(tmp_path)
    _same_both_ways(facts, demand=True)
    planted = facts / "extra.rofl"
    planted.write_text('src_resolves[code]("packages/p1/src/d.ts", "./x", "packages/p0/src/b.ts").\n')
    _, _, err = _same_both_ways(facts)
    assert "not written by the scanner" in err
    planted.unlink()
    _same_both_ways(facts, demand=True)
    os.unlink(_fact_file(facts, "packages/p1/src/c.ts"))
    _, out, _ = _same_both_ways(facts)
    assert json.loads(out)["incomplete"]


def test_a_one_file_rescan_reads_only_that_fact_file(tmp_path: Path) -> None:
    src, facts = _scanned(tmp_path)
    text = CODE_RULES.read_text(encoding="utf-8")
    first = graph_index.current(facts, text, cachemac.secret(), graph_index.manifest_bytes(facts))
    assert first is not None
    write_tree(src, {"packages/p1/src/d.ts": "export const d = 2;\n"})
    assert run("scan", src, "--out", facts)[0] == 0
    view = graph_index.current(facts, text, cachemac.secret(), graph_index.manifest_bytes(facts))
    assert view is not None and view.updated == 1  # d.ts's new fact file; every other record reused
    assert "packages/p1/src/d.ts" not in view.graph.importers.get("packages/p1/src/c.ts", ())
    again = graph_index.current(facts, text, cachemac.secret(), graph_index.manifest_bytes(facts))
    assert again is not None and again.updated == 0


def _settled(facts: Path) -> None:
    """The fact folders and the manifest as an hour-old scan leaves them (past their mtime's racy window)."""
    old = os.stat(facts / "manifest.json").st_mtime_ns - 3600 * 10**9
    for path in (facts / "code", facts / "manifest.json"):
        os.utime(path, ns=(old, old))


def _stamped(facts: Path) -> tuple:
    index = graph_index._read_index(facts, cachemac.secret())
    assert index is not None
    return index.get("folders", ())


def test_a_settled_fact_folder_is_not_listed_again_yet_a_planted_fact_file_still_goes_to_the_kernel(
    tmp_path: Path,
) -> None:
    _, facts = _scanned(tmp_path)
    _settled(facts)
    before = _same_both_ways(facts, demand=True)  # builds the index
    assert _same_both_ways(facts, demand=True) == before  # stamps the settled fact folder
    assert [row[0] for row in _stamped(facts)] == ["code"]
    listed: list[str] = []
    scandir = os.scandir

    def watched(path: str) -> object:
        listed.append(os.path.basename(path))
        return scandir(path)

    with pytest.MonkeyPatch.context() as patch:  # a stamped folder is trusted without listing it
        patch.setattr(os, "scandir", watched)
        assert _demand_answers(facts)
    assert "code" not in listed and listed
    planted = facts / "code" / "planted.rofl"  # its folder's stamp moves: listed again, the stranger found
    planted.write_text('src_resolves[code]("packages/p1/src/d.ts", "./x", "packages/p0/src/b.ts").\n')
    assert not _demand_answers(facts)
    _, _, err = _same_both_ways(facts)
    assert "not written by the scanner" in err
    planted.unlink()
    _settled(facts)
    assert _same_both_ways(facts, demand=True) == before
    path = _fact_file(facts, "packages/p1/src/d.ts")  # edited in place in a stamped folder: its own stat tells
    _same_both_ways(facts, demand=True)
    assert _stamped(facts)
    path.write_text(path.read_text().replace('"./c"', '"./C"'))
    _, _, err = _same_both_ways(facts)
    assert "digest mismatch" in err


def test_a_settled_manifest_is_not_read_yet_a_rescan_that_rewrites_it_answers_as_the_kernel(tmp_path: Path) -> None:
    src, facts = _scanned(tmp_path)
    _settled(facts)
    _same_both_ways(facts, demand=True)
    _same_both_ways(facts, demand=True)  # the index now vouches for the manifest by its stamp
    index = graph_index._read_index(facts, cachemac.secret())
    assert index is not None and index.get("manifest_stamp") == graph_index.ManifestFile(facts).stamp
    with pytest.MonkeyPatch.context() as patch:  # its bytes are not read
        patch.setattr(graph_index.ManifestFile, "read", _index_asked)
        assert _demand_answers(facts)
    (src / "packages/p0/src/b.ts").write_text("import { d } from '@w/p1/src/d';\nexport const b = 1;\n")
    argv = ["impact", "--facts", facts, "--changed", "packages/p0/src/b.ts", "--json"]
    demand = run(*argv)  # rescans first: the manifest opened is replaced, its bytes read from the file opened
    assert demand[:2] == run(*argv, *KERNEL)[:2]  # (the kernel's run finds nothing to rescan: no note)
    assert demand[0] == 0 and "rescanned 1 changed" in demand[2]
    affected = [a["file"] for a in json.loads(demand[1])["affected"]]
    assert affected == ["packages/p0/src/a.ts", "packages/p1/src/c.ts", "packages/p1/src/d.ts"]

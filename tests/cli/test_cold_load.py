"""A cold load (no compiled cache) reads, checks and loads one fact file at a time: the store it builds
equals the one every text loaded at once gives (the eager oracle below: ``open_folder`` and
``Kernel.load_sources``), with and without the relations `rofl report` leaves out; `rofl report` and
`rofl cycles` answer byte-identically cold and warm; and each file's digest is checked on the bytes
read when it is loaded, not when the folder is listed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rofl.engine.kernel import Kernel

from tests.cli.impact_fixtures import run, scan_tree
from tests.cli.report_fixtures import RULES, workspace

CACHES = ".rofl-store*.cache"


@pytest.fixture(scope="module")
def scanned(tmp_path_factory) -> tuple[Path, Path]:
    """``(facts, rules.rofl)``: the report workspace scanned once, with the report's rule file."""
    root = tmp_path_factory.mktemp("cold-load")
    _, facts = scan_tree(root, workspace())
    rules = root / "rules.rofl"
    rules.write_text(RULES)
    return facts, rules


def _without_caches(facts: Path, dest: Path) -> Path:
    shutil.copytree(facts, dest, ignore=shutil.ignore_patterns(CACHES))
    return dest


def _eager(facts: Path, rules: tuple, keeps) -> Kernel:
    """The oracle: every fact file read first (``open_folder``), then each loaded whole, then the
    relations not kept deleted, as the loader did before it read them one at a time."""
    from rofl.scanner.layout import MANIFEST_NAME

    from rofl.loading.factdir import SCANNER, open_folder
    from rofl.loading.kernel import BOOT, CODE_BUDGET, CODE_RULES, loader_facts

    folder = open_folder(facts)
    kernel = Kernel(BOOT, budget=CODE_BUDGET)
    kernel.load_sources([(CODE_RULES, None)], evaluate_now=False)
    for path, who, text in folder.sources:
        kernel.load_sources([(path, SCANNER if who is None else who, text)], evaluate_now=False)
    loader = (facts / MANIFEST_NAME, None, loader_facts(list(folder.missing)))
    kernel.load_sources([loader, *[(Path(r), "user") for r in rules]], evaluate_now=False)
    for rel in [r for r in kernel.store.base if keeps is not None and not keeps(r)]:
        del kernel.store.base[rel]
    return kernel


def _rows(kernel: Kernel) -> dict[str, dict[tuple, tuple]]:
    return {
        rel: {row: (m.who, m.tick) for row, m in facts.items()} for rel, facts in kernel.store.base.items() if facts
    }


@pytest.mark.parametrize("trimmed", [False, True], ids=["whole", "report-subset"])
def test_the_cold_store_equals_every_text_loaded_at_once(scanned, trimmed, tmp_path):
    from rofl.loading.kernel import CODE_BUDGET, loaded_code_kernel
    from rofl.loading.report_kernel import kept_relations

    facts, rules = scanned
    keep = kept_relations((str(rules),)) if trimmed else None
    assert not trimmed or keep is not None and {"src_call", "src_decl"} <= keep.dropped
    kernel, _ = loaded_code_kernel(str(facts), (str(rules),), CODE_BUDGET, use_cache=False, keep=keep)
    oracle = _eager(facts, (str(rules),), keep.keeps if keep is not None else None)
    assert _rows(kernel) == _rows(oracle)
    assert kernel.store.counters == oracle.store.counters and kernel.store.tick == oracle.store.tick


@pytest.mark.slow
def test_report_and_cycles_answer_the_same_cold_and_warm(scanned, tmp_path):
    facts = _without_caches(scanned[0], tmp_path / "facts")
    rules = scanned[1]
    pages, cycles = [], []
    for _ in ("cold", "warm"):
        out = tmp_path / f"report{len(pages)}.html"
        code, _, err = run("report", "--facts", facts, "--out", out, "--rules", rules)
        assert code == 0, err
        pages.append(out.read_bytes())
        code, said, err = run("cycles", "--facts", facts, "--json")
        assert code in (0, 1), err
        cycles.append(said)
    assert list(facts.glob(CACHES)), "the cold runs wrote their caches"
    assert pages[0] == pages[1] and cycles[0] == cycles[1]
    assert "cycle_a.ts" in cycles[0]


def test_a_fact_file_is_judged_on_the_bytes_read_when_it_loads(scanned, tmp_path):
    """Listing the folder reads no fact file: one edited after the listing (before its turn) loads as
    unverified, with the digest warning, and one removed by then counts as missing."""
    from rofl.loading.factdir import Reading, list_folder

    facts = _without_caches(scanned[0], tmp_path / "facts")
    folder = list_folder(facts)
    scanned_files = [item for item in folder.listed if item.want is not None and item.want[2]]
    edited, removed = scanned_files[0], scanned_files[1]
    with edited.path.open("a", encoding="utf-8") as f:
        f.write('src_file[code]("forged.ts", "000000000000").\n')
    removed.path.unlink()
    report = Reading([], set(), [])
    who = {path: w for path, w, _ in folder.sources(report)}
    assert who[edited.path] == "unverified"
    assert removed.path not in who
    assert {w for p, w in who.items() if p != edited.path} <= {"scanner", None}
    missing, warnings = folder.closing(report)
    assert missing == (removed.rel,)
    assert any(str(edited.path) in line and "digest mismatch" in line for line in warnings)
    assert any(str(removed.path) in line and "missing" in line for line in warnings)


def test_an_edited_fact_file_still_loads_as_forged_cold(scanned, tmp_path):
    """The tamper guarantee over the one-at-a-time load: audit finds the forged fact and names the file."""
    facts = _without_caches(scanned[0], tmp_path / "facts")
    target = next((facts / "code").glob("*.rofl"))
    with target.open("a", encoding="utf-8") as f:
        f.write('src_import[code]("packages/ui/src/lonely.ts", "left-pad").\n')
    code, said, err = run("audit", "--facts", facts, "--json")
    assert code == 1, err
    assert "digest mismatch" in err and target.name in err
    assert "forged" in said and "left-pad" in said


def _walked(root: Path) -> list[str]:
    """The oracle: ``os.walk``'s top-down order, each folder's names sorted, dot folders skipped."""
    import os

    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        out += [(Path(dirpath) / n).relative_to(root).as_posix() for n in sorted(filenames) if n.endswith(".rofl")]
    return out


def test_the_fact_folder_walk_lists_what_os_walk_lists_in_its_order(tmp_path):
    from rofl.loading.factdir import _fact_file_names

    root = tmp_path / "facts"
    for rel in (
        "b.rofl",
        "a.rofl",
        "code/z.rofl",
        "code/x.rofl",
        "code/sub/y.rofl",
        ".hidden/h.rofl",
        "dir.rofl/in.rofl",
    ):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("f(1).\n")
    (root / "notes.txt").write_text("not a fact file\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "e.rofl").write_text("f(2).\n")
    (root / "linked").symlink_to(tmp_path / "elsewhere")  # a linked folder is not entered
    (root / "dangling.rofl").symlink_to(tmp_path / "nothing")  # a dangling link is a file
    names = _fact_file_names(root)
    assert [rel for _, rel in names] == _walked(root)
    assert "linked/e.rofl" not in [rel for _, rel in names] and "dangling.rofl" in [rel for _, rel in names]
    assert all(Path(full) == root / rel for full, rel in names)

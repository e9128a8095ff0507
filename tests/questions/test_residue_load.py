"""A scan's kernel built from its residue and the pure files' rows (rofl.loading.kernel._residue_load) is the
kernel a read of every fact file builds: the same facts with the same asserters, the same answers, the same
relations left out for a command that keeps only some; a folder the residue cannot vouch for is read whole."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

from rofl.loading import audit_store
from rofl.loading import kernel as loading_kernel
from rofl.loading.cache import Subset
from rofl.loading.kernel import CODE_BUDGET, loaded_code_kernel
from tests.conftest import write_tree

TREE = {
    "package.json": '{"name": "root", "workspaces": ["packages/*"]}',
    "packages/a/package.json": '{"name": "@w/a", "main": "src/index.ts"}',
    "packages/a/src/index.ts": "import { b } from '@w/b';\nexport const a = () => b;\n",
    "packages/b/package.json": '{"name": "@w/b", "main": "src/index.ts"}',
    "packages/b/src/index.ts": "import { a } from '@w/a';\nimport './util';\nexport const b = 1;\n",
    "packages/b/src/util.ts": "export function util(x: number) { return x + 1; }\nutil(2);\n",
}
QUESTIONS = ("in_cycle[code](F)", "depends_on[code](A, B)", "src_call[code](F, C, L)", "forged[audit](F)")


def both(facts: Path, keep: Subset | None = None):
    """(the kernel through the residue, the kernel through every fact file), no compiled cache used."""
    with mock.patch("rofl.loading.cache.read", return_value=None), mock.patch("rofl.loading.cache.write"):
        fast, fast_warnings = loaded_code_kernel(str(facts), (), CODE_BUDGET, keep=keep)
        with mock.patch.object(audit_store, "residue", return_value=None):
            whole, whole_warnings = loaded_code_kernel(str(facts), (), CODE_BUDGET, keep=keep)
    return (fast, fast_warnings), (whole, whole_warnings)


def test_the_residue_load_is_the_load_of_every_fact_file(rofl, tmp_path):
    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    assert rofl("scan", src, "--out", facts)[0] == 0
    used: list[Path] = []
    original = loading_kernel._residue_load

    def recording(root, *args):
        made = original(root, *args)
        used.append(made is not None)
        return made

    with mock.patch.object(loading_kernel, "_residue_load", recording):
        (fast, fast_warnings), (whole, whole_warnings) = both(facts)
    assert used == [True, False]  # the first through the residue, the second read every file
    assert fast.store.base == whole.store.base and fast_warnings == whole_warnings == ()
    for question in QUESTIONS:
        assert fast.query(question).rows == whole.query(question).rows, question
    (src / "packages/b/src/util.ts").write_text("export const util = 3;\n")
    assert rofl("scan", src, "--out", facts)[0] == 0
    (fast, _), (whole, _) = both(facts)
    assert fast.store.base == whole.store.base


def test_a_command_that_keeps_some_relations_gets_the_same_subset(rofl, tmp_path):
    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    assert rofl("scan", src, "--out", facts)[0] == 0
    keep = Subset(frozenset({"src_call", "src_decl", "src_decl_uses"}))
    (fast, _), (whole, _) = both(facts, keep)
    assert fast.store.base == whole.store.base
    assert not fast.rows("src_call") and fast.rows("src_resolves")
    assert fast.query("in_cycle[code](F)").rows == whole.query("in_cycle[code](F)").rows


def test_a_folder_with_a_hand_written_fact_file_is_read_whole(rofl, tmp_path):
    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    assert rofl("scan", src, "--out", facts)[0] == 0
    (facts / "code" / "hand.rofl").write_text('src_file[code]("hand.ts", "0").\n')
    (fast, fast_warnings), (whole, whole_warnings) = both(facts)
    assert fast.store.base == whole.store.base and fast_warnings == whole_warnings
    assert any("hand.rofl" in w for w in fast_warnings)

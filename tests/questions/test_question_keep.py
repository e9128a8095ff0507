"""A question over a scan alone loads, from the compiled cache, only the scanner relations its relations depend
on (rofl.loading.kernel.question_keep): the same answers, proofs and warnings as with the whole store."""

from __future__ import annotations

import json
from unittest import mock

import pytest

from rofl.loading import kernel as loading_kernel
from rofl.loading.kernel import question_keep
from tests.conftest import write_tree
from tests.questions.test_residue_load import TREE

QUESTIONS = [
    "in_cycle[code](F)",
    "depends_on[code](A, B)",
    'dependency[code]("packages/a/src/index.ts", X)',
    "src_call[code](F, C, L)",
    "src_file[code](F, H), not in_cycle[code](F)",
    "orphan(F)",
    "forged[audit](F)",
    "package_wide_dependency[code](A, B, D)",
]


@pytest.fixture(scope="module")
def scan(tmp_path_factory):
    from click.testing import CliRunner

    from rofl.cli import main

    root = tmp_path_factory.mktemp("keep")
    src, facts = root / "repo", root / "facts"
    write_tree(src, TREE)
    assert CliRunner().invoke(main, ["scan", str(src), "--out", str(facts)]).exit_code == 0
    return facts


def ask(facts, *args):
    from click.testing import CliRunner

    from rofl.cli import main

    result = CliRunner().invoke(main, ["ask", *args, "--facts", str(facts), "--json"], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_question_answers_the_same_from_the_relations_it_reads(scan, question):
    ask(scan, question)  # the compiled cache is written
    from rofl.loading import cache

    adopted: list = []
    original = cache.read

    def recording(root, key, secret=None, keep=None, name=cache.CACHE_NAME):
        adopted.append(keep)
        return original(root, key, secret, keep, name)

    with mock.patch.object(cache, "read", recording):
        kept = ask(scan, question)
    with mock.patch.object(loading_kernel, "question_keep", return_value=None):
        whole = ask(scan, question)
    assert kept == whole
    assert json.loads(kept[1]) is not None
    assert adopted and (adopted[-1] is None) == (
        question_keep(frozenset({"audit$forged"})) is None and "forged" in question
    )


def test_the_relations_a_question_keeps():
    keep = question_keep(frozenset({"in_cycle"}))
    assert keep is not None and keep("src_resolves") and not keep("src_call") and keep("rule")
    only = question_keep(frozenset({"src_call"}))
    assert only is not None and only("src_call") and not only("src_resolves")
    assert question_keep(frozenset({"audit$forged"})) is None  # fact metadata: every fact


CYCLIC = {
    **TREE,
    "packages/b/src/util.ts": "import { b } from './index';\nexport const u = b;\n",
    "packages/b/src/index.ts": "import { a } from '@w/a';\nimport { u } from './util';\nexport const b = u;\n",
    "packages/a/src/types.ts": "import type { b } from '@w/b';\nexport type T = typeof b;\n",
}


def kept_and_whole(tmp_path, *args: str) -> tuple[tuple, tuple]:
    """The command ``args`` (``{facts}`` standing for the scan of CYCLIC) run over the compiled cache as it
    runs (only the relations it reads), then with every relation: each (exit code, stdout, stderr)."""
    from click.testing import CliRunner

    from rofl.cli import main

    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, CYCLIC)
    runner = CliRunner()
    assert runner.invoke(main, ["scan", str(src), "--out", str(facts)]).exit_code == 0
    argv = [str(facts) if a == "{facts}" else a for a in args]
    runner.invoke(main, ["ask", "src_file[code](F, H)", "--facts", str(facts)])  # the compiled cache is written
    kept = runner.invoke(main, argv)
    with mock.patch.object(loading_kernel, "question_keep", return_value=None):
        whole = runner.invoke(main, argv)
    return (kept.exit_code, kept.stdout, kept.stderr), (whole.exit_code, whole.stdout, whole.stderr)


@pytest.mark.parametrize("runtime", [False, True])
def test_cycles_answer_the_same_from_the_relations_the_import_graph_reads(tmp_path, runtime):
    kept, whole = kept_and_whole(
        tmp_path, "cycles", "--facts", "{facts}", "--json", *(["--runtime"] if runtime else [])
    )
    assert kept == whole and json.loads(kept[1])["components"]


@pytest.mark.parametrize("relation", ["dependency", "depends_on[code]", "runtime_dependency", "cycle_edge[code]"])
def test_export_writes_the_same_graph_from_the_relations_it_reads(tmp_path, relation):
    kept, whole = kept_and_whole(tmp_path, "export", relation, "--facts", "{facts}", "--format", "json")
    assert kept == whole and kept[0] == 0


@pytest.mark.parametrize(
    "command, fact",
    [
        ("why", 'depends_on[code]("packages/b/src/util.ts", "packages/a/src/index.ts")'),
        ("why", 'in_cycle[code]("packages/b/src/util.ts")'),
        ("whynot", 'dependency[code]("packages/a/src/index.ts", "packages/b/src/util.ts")'),
        ("whynot", 'in_cycle[code]("packages/a/src/types.ts")'),
    ],
)
def test_why_and_whynot_explain_the_same_from_the_relations_they_read(tmp_path, command, fact):
    kept, whole = kept_and_whole(tmp_path, command, fact, "--facts", "{facts}", "--json")
    assert kept == whole and kept[0] in (0, 1) and json.loads(kept[1])


def test_the_summary_is_the_same_from_the_relations_its_rules_read(tmp_path):
    kept, whole = kept_and_whole(tmp_path, "summary", "--facts", "{facts}", "--json", "--leaves")
    assert kept == whole and json.loads(kept[1])["totals"]


def test_only_rofls_own_rule_files_count_as_shipped(tmp_path):
    from rofl.rules import path as shipped

    from rofl.loading.kernel import is_shipped

    assert is_shipped(shipped("summary.rofl")) and is_shipped(str(shipped("presets.rofl")))
    mine = tmp_path / "summary.rofl"
    mine.write_text("x(1).\n")
    assert not is_shipped(mine)
    keep = question_keep(frozenset({"summary_imports"}), (str(shipped("summary.rofl")),))
    assert keep is not None and keep("src_resolves") and not keep("src_call")

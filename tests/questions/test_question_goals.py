"""A question evaluates what it asks and what that depends on, never every audit: the summary's relations and
the forgery check of --public-key each ask the kernel for their own goals."""

from __future__ import annotations

from pathlib import Path

from rofl.engine.namespace import stored_name
from rofl.rules import path as shipped

from rofl.loading.kernel import build_kernel, refuse_if_forged
from rofl.loading.source import KernelInputs
from rofl.questions.summary import summarize
from tests.conftest import write_tree

TREE = {
    "src/a.ts": "import { b } from './b';\nexport const a = b;\n",
    "src/b.ts": "import { a } from './a';\nexport const b = 1;\n",
    "src/c.ts": "export const c = 2;\n",
}


def scanned(rofl, tmp_path: Path) -> Path:
    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, TREE)
    assert rofl("scan", src, "--out", facts)[0] == 0
    return facts


def test_the_summary_evaluates_its_relations_not_the_audits(rofl, tmp_path):
    facts = scanned(rofl, tmp_path)
    kernel = build_kernel(KernelInputs(facts=str(facts), rules=(str(shipped("summary.rofl")),)))
    summary = summarize(kernel)
    assert summary.edges == 2 and [f.file for f in summary.files] == ["src/a.ts", "src/b.ts", "src/c.ts"]
    evaluated = kernel.current
    assert evaluated is not None and evaluated.goals is not None
    assert stored_name("forged", "audit") not in evaluated.goals


def test_the_forgery_check_evaluates_only_the_audits(rofl, tmp_path):
    facts = scanned(rofl, tmp_path)
    kernel = build_kernel(KernelInputs(facts=str(facts)))
    refuse_if_forged(kernel)  # a clean scan: nothing to refuse
    evaluated = kernel.current
    assert evaluated is not None and evaluated.goals is not None
    assert stored_name("depends_on", "code") not in evaluated.goals

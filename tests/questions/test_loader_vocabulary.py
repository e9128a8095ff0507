"""What the loader asserts over a scan is known even when it asserted none of it: asking for it answers
no rows at once, never through the unknown-relation path (whose did-you-mean walks every base row)."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

from rofl.engine import catalog
from rofl.engine.kernel import Kernel

from rofl.loading.kernel import build_kernel, incomplete_fact_files
from rofl.loading.source import KernelInputs
from tests.conftest import BOOT, write_tree


def test_a_clean_scan_has_no_missing_fact_file_without_listing_every_signature(rofl, tmp_path: Path):
    src, facts = tmp_path / "repo", tmp_path / "facts"
    write_tree(src, {"a.ts": "import { b } from './b';\n", "b.ts": "export const b = 1;\n"})
    assert rofl("scan", src, "--out", facts)[0] == 0
    kernel = build_kernel(KernelInputs(facts=str(facts)))
    with mock.patch.object(catalog, "signatures", side_effect=AssertionError("walked every base row")):
        assert incomplete_fact_files(kernel) == []
        assert kernel.query("missing_fact_file[audit](F)").rows == ()


def test_a_declared_relation_of_a_namespaced_perspective_answers_no_rows():
    k = Kernel(BOOT)
    k.declare([("nothing_yet", "audit", 2), ("plain", "code", 1)])
    assert k.query("nothing_yet[audit](A, B)").rows == ()
    assert k.query("plain[code](A)").rows == ()

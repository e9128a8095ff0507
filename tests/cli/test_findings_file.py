"""facts/findings.rofl, the hand-written findings kept beside the generated facts, answers over a scan."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from rofl.cli import main

ROOT = Path(__file__).resolve().parents[2]
FINDINGS = ROOT / "facts" / "findings.rofl"


def _ask(facts: Path, question: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["ask", "--facts", str(facts), "--rules", str(FINDINGS), question])
    return result.exit_code, result.output


def test_open_findings_name_files_of_the_scan_and_a_deleted_file_makes_its_finding_stale(tmp_path):
    shop = tmp_path / "shop"
    shutil.copytree(ROOT / "examples" / "shop", shop)
    facts = tmp_path / "facts"
    assert CliRunner().invoke(main, ["scan", str(shop), "--out", str(facts)]).exit_code == 0
    code, out = _ask(facts, "open_finding(Id, File, _)")
    assert code == 0
    assert 'Id = legacy_unused, File = "src/util/legacy.ts"' in out
    assert "old_polyfill" not in out  # settled
    assert _ask(facts, "stale_finding(Id)") == (1, "no\n")
    (shop / "src" / "util" / "legacy.ts").unlink()
    assert CliRunner().invoke(main, ["scan", str(shop), "--out", str(facts)]).exit_code == 0
    assert _ask(facts, "stale_finding(Id)") == (0, "Id = legacy_unused\n")
    code, out = _ask(facts, "open_finding(legacy_unused, F, N)")
    assert code == 1

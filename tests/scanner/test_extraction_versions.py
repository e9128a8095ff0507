"""The grammar versions a scan depends on: recorded in the manifest and printed by `rofl --version`, the same."""

from __future__ import annotations

from click.testing import CliRunner
from rofl.scanner.versions import EXTRACTOR_VERSION, grammar_versions

from rofl.cli import main
from tests.scanner.conftest import load_manifest, scan_json


def test_version_prints_the_manifest_grammar_versions(repo, out):
    scan_json(repo({"a.ts": "export const a = 1;\n"}), out)
    recorded = load_manifest(out)["grammar_versions"]
    assert recorded == grammar_versions()
    assert all(v != "missing" and v[0].isdigit() for v in recorded.values()), recorded
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].startswith("rofl, version ")
    assert dict(line.split(" ", 1) for line in lines[1:]) == recorded


def test_extractor_version_is_the_one_files_are_stamped_with(repo, out):
    scan_json(repo({"a.ts": "export const a = 1;\n"}), out)
    manifest = load_manifest(out)
    assert manifest["extractor_version"] == EXTRACTOR_VERSION == "rofl-extract-8"
    assert {e["extractor"] for e in manifest["files"].values()} == {EXTRACTOR_VERSION}

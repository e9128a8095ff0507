"""Issue 10 item 3: `rofl audit --facts DIR --src SRC --reextract` finds tampering that left the
manifest consistent, names the file and first differing line, and never writes DIR."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.cli.forgery import redigest
from tests.cli.test_forged_ownership import EDGE, SHOP


@pytest.fixture
def scan(tmp_path, rofl):
    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    return src, facts


def snapshot(folder):
    return {
        p.relative_to(folder): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in (".rofl-store.cache", ".rofl-audit.records")  # the caches beside the facts
    }


def reextract(rofl, src, facts):
    code, out, _ = rofl("audit", "--facts", facts, "--src", src, "--reextract", "--json")
    return code, json.loads(out)


def test_a_clean_scan_reextracts_clean_and_the_folder_is_untouched(rofl, scan):
    src, facts = scan
    before = snapshot(facts)
    assert reextract(rofl, src, facts) == (
        0,
        {"version": 1, "audits": {}, "clean": True, "findings": [], "partial": False},
    )
    assert snapshot(facts) == before


def test_a_redigested_edit_is_found_with_its_line(rofl, scan):
    src, facts = scan
    victim = sorted((facts / "code").glob("src_domain_money*.rofl"))[0]
    victim.write_text(victim.read_text() + EDGE + ".\n")
    lines = len(victim.read_text().splitlines())
    rel = redigest(facts, f"code/{victim.name}", rename=True)  # renamed after its new digest too
    assert rofl("audit", "--facts", facts)[0] == 0  # the digests cannot see it
    code, out = reextract(rofl, src, facts)
    assert code == 1
    (finding,) = out["findings"]
    assert finding["file"] == rel and finding["line"] == lines and "cart.ts" in finding["message"]


def test_a_listed_new_file_and_a_source_missing_from_the_scan(rofl, scan):
    src, facts = scan
    (facts / "code" / "evil.rofl").write_text(EDGE + ".\n")
    manifest = json.loads((facts / "manifest.json").read_text())
    manifest["files"]["src/evil.ts"] = {**manifest["files"]["src/domain/money.ts"], "facts": "code/evil.rofl"}
    del manifest["files"]["src/domain/cart.ts"]
    (facts / "manifest.json").write_text(json.dumps(manifest))
    redigest(facts, "code/evil.rofl")
    code, out = reextract(rofl, src, facts)
    messages = {f["file"]: f["message"] for f in out["findings"] if f["audit"] == "reextract"}
    assert code == 1
    assert "not among the sources" in messages["code/evil.rofl"]
    assert messages["src/domain/cart.ts"] == "a source missing from the scan"


def test_reextract_needs_src(rofl, scan):
    code, _, err = rofl("audit", "--facts", scan[1], "--reextract")
    assert code == 2 and "--src" in err


def test_a_scan_by_other_versions_says_so_beside_its_differences(rofl, scan):
    """Differences found in a scan another extractor made may be that extractor's: the finding says which."""
    src, facts = scan
    victim = sorted((facts / "code").glob("src_domain_money*.rofl"))[0]
    victim.write_text(victim.read_text() + EDGE + ".\n")
    manifest = json.loads((facts / "manifest.json").read_text())
    manifest["extractor_version"] = "rofl-extract-0"
    (facts / "manifest.json").write_text(json.dumps(manifest))
    redigest(facts, f"code/{victim.name}")
    code, out = reextract(rofl, src, facts)
    messages = {f["file"]: f["message"] for f in out["findings"] if f["audit"] == "reextract"}
    assert code == 1 and "rofl-extract-0" in messages["manifest.json"]
    assert "cart.ts" in messages[f"code/{victim.name}"]

"""A command reads the scan's manifest once: every reader takes the typed ``Manifest`` the command read."""

from __future__ import annotations

import pytest


@pytest.fixture
def reads(monkeypatch):
    """How many times a manifest is parsed into a ``Manifest`` (``read`` and the index's fallback both parse
    through ``from_bytes``)."""
    from rofl.scanner import manifest

    count = [0]
    real = manifest.from_bytes

    def counting(raw, path):
        count[0] += 1
        return real(raw, path)

    monkeypatch.setattr(manifest, "from_bytes", counting)
    return count


@pytest.mark.parametrize("rescan", [(), ("--no-rescan",)], ids=["rescan", "no-rescan"])
def test_impact_reads_the_manifest_at_most_once(rofl, facts_copy, reads, rescan):
    code, out, err = rofl("impact", "--facts", facts_copy, "--changed", "b.ts", "--json", *rescan)
    assert code == 0, err
    assert '"a.ts"' in out
    assert reads[0] <= 1


def test_impact_reads_the_manifest_at_most_once_without_the_index(rofl, facts_copy, reads, monkeypatch):
    from rofl.loading import cachemac

    monkeypatch.setattr(cachemac, "secret", lambda: None)  # no cache and no graph index: a cold load
    code, out, err = rofl("impact", "--facts", facts_copy, "--changed", "b.ts", "--json", "--no-rescan")
    assert code == 0, err
    assert '"a.ts"' in out
    assert reads[0] == 1


@pytest.mark.parametrize("cached", [True, False], ids=["cache", "cold"])
def test_audit_reads_the_manifest_at_most_once(rofl, facts_copy, reads, monkeypatch, cached):
    from rofl.loading import cachemac

    if not cached:
        monkeypatch.setattr(cachemac, "secret", lambda: None)
    code, _, err = rofl("audit", "--facts", facts_copy)
    assert code == 0, err
    assert reads[0] <= 1


def test_audit_with_src_reads_the_manifest_at_most_once(rofl, tiny, facts_copy, reads, monkeypatch):
    from rofl.loading import cachemac

    monkeypatch.setattr(cachemac, "secret", lambda: None)
    code, _, err = rofl("audit", "--facts", facts_copy, "--src", tiny[0])
    assert code == 0, err
    assert reads[0] <= 1

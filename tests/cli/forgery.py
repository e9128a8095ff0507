"""Helpers for the forgery tests: what an attacker who can write the fact folder can do."""

from __future__ import annotations

import json
from pathlib import Path

import xxhash


def redigest(facts: Path, rel: str) -> None:
    """Recompute the manifest's (public, unkeyed) digest of fact file ``rel``, as an attacker can."""
    manifest = json.loads((facts / "manifest.json").read_text())
    digest = xxhash.xxh3_64_hexdigest((facts / rel).read_bytes())
    for record in [manifest.get("preamble"), manifest.get("package_entries"), *manifest["files"].values()]:
        if isinstance(record, dict) and record.get("facts") == rel:
            record["digest"] = digest
    (facts / "manifest.json").write_text(json.dumps(manifest))

"""Helpers for the forgery tests: what an attacker who can write the fact folder can do."""

from __future__ import annotations

import json
import re
from pathlib import Path

import xxhash

NAMED = re.compile(r"(.*\.[0-9a-f]{12}-)([0-9a-f]{16})(\.rofl)\Z")


def redigest(facts: Path, rel: str, rename: bool = False) -> str:
    """Recompute the manifest's (public, unkeyed) digest of fact file ``rel``, as an attacker can; with
    ``rename``, also rename the file to carry its new digest as the scanner names fact files (the whole
    attack, which only a signature or re-extraction sees).  Returns the file's path, renamed or not."""
    manifest = json.loads((facts / "manifest.json").read_text())
    digest = xxhash.xxh3_64_hexdigest((facts / rel).read_bytes())
    new = rel
    if rename and (named := NAMED.match(rel)) is not None:
        new = named.group(1) + digest + named.group(3)
        (facts / rel).rename(facts / new)
    for record in [manifest.get("preamble"), manifest.get("package_entries"), *manifest["files"].values()]:
        if isinstance(record, dict) and record.get("facts") == rel:
            record["digest"] = digest
            record["facts"] = new
    (facts / "manifest.json").write_text(json.dumps(manifest))
    return new


def fact_name(source: str, digest: str) -> str:
    """A name of the scanner's form for a hand-written fact file of ``source`` with ``digest``."""
    return f"code/{source.replace('/', '_')}.{'0' * 12}-{digest}.rofl"

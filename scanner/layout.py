"""Names inside an output folder: where fact files, the preamble, the manifest and the lock live."""

from __future__ import annotations

FACTS_FOLDER = "code"
FACTS_PERSPECTIVE = "code"
PREAMBLE_NAME = "preamble.rofl"
PREAMBLE_TEXT = f"authority({FACTS_PERSPECTIVE}, scanner).\n"
MANIFEST_NAME = "manifest.json"
ENTRIES_NAME = "entries.rofl"  # entry points and findings that belong to no source's fact file
LOCK_NAME = ".lock"

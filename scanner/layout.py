"""Names inside an output folder: where fact files, the preamble, the manifest and the lock live."""

from __future__ import annotations

FACTS_FOLDER = "code"
PREAMBLE_NAME = "preamble.rofl"
PREAMBLE_TEXT = "-- rofl scan: the scanner may assert into [code]\nauthority(code, scanner).\n"
MANIFEST_NAME = "manifest.json"
LOCK_NAME = ".lock"

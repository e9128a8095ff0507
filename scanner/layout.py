"""Names inside an output folder: where fact files, the preamble, the manifest and the lock live."""

from __future__ import annotations

import re

FACTS_FOLDER = "code"
FACTS_PERSPECTIVE = "code"
PREAMBLE_NAME = "preamble.rofl"
PREAMBLE_TEXT = f"authority({FACTS_PERSPECTIVE}, scanner).\n"
MANIFEST_NAME = "manifest.json"
ENTRIES_NAME = "entries.rofl"  # entry points and findings that belong to no source's fact file
LOCK_NAME = ".lock"
# a name inside FACTS_FOLDER as scanner.factfile.fact_name gives it: <slug>.<content hash 12>-<digest 16>.rofl
FACT_FILE_NAME = re.compile(r"[A-Za-z0-9._-]*\.[0-9a-f]{12}-[0-9a-f]{16}\.rofl\Z")

"""The kernel `rofl report` answers from: the scan with only the scanner relations that some rule it
loads (code.rofl, the presets, the --rules files) or the report itself reads, so a 10,000-file
repository fits in a few hundred megabytes (calls, declarations and spans are most of a scan's facts
and nothing the report shows reads them)."""

from __future__ import annotations

import re
from pathlib import Path

from .cache import Subset

# what the report reads itself: the graph and its import statements, packages, exports for the search box
REPORT_READS = frozenset(
    {
        "src_file",
        "src_import_line",
        "src_import_kind",
        "src_resolves",
        "src_workspace_import",
        "src_external",
        "src_export",
        "src_package",
        "src_parse_error",
    }
)
MENTION = re.compile(r"\bsrc_[A-Za-z0-9_]+")


def kept_relations(rule_files: tuple) -> Subset | None:
    """Which base relations to load: every relation that is no scanner relation, and each scanner relation
    named in a rule file the report loads or read by the report.  None (load all) when a rule file
    cannot be read here (the loader then says why)."""
    from rofl.engine.base.safe_write import MAX_PROGRAM_BYTES, read_regular
    from rofl.scanner.schema import RELATIONS

    from .kernel import CODE_RULES
    from .presets import presets_file

    texts = []
    for path in (CODE_RULES, presets_file(), *rule_files):
        try:  # a FIFO or device is refused unread, as the loader refuses it
            texts.append(read_regular(Path(path), MAX_PROGRAM_BYTES).decode("utf-8", errors="replace"))
        except OSError:
            return None
    named = REPORT_READS | set(MENTION.findall("\n".join(texts)))
    return Subset(frozenset(r.name for r in RELATIONS) - named)

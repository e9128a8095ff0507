"""What a `rofl scan` output folder says about imports: every answer per (file, specifier), edges, errors.

Reads the fact files listed in manifest.json with the engine's parser.  A specifier may have several
answers (``./x.js`` resolving to both ``x.js`` and ``x.d.ts``), so answers are sets.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

Answer = tuple[str, ...]  # ("file", target) | ("external", package) | ("workspace", dir) | ("unresolved",)


@dataclass(slots=True)
class RoflFacts:
    """The import facts of one scan, keyed by repo-relative paths."""

    files: set[str] = field(default_factory=set)
    edges: set[tuple[str, str]] = field(default_factory=set)
    answers: dict[tuple[str, str], set[Answer]] = field(default_factory=lambda: defaultdict(set))
    kinds: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    lines: dict[tuple[str, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    by_edge: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    imports: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    assets: set[str] = field(default_factory=set)
    declarations: set[str] = field(default_factory=set)
    errors: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))


def read(out: Path) -> RoflFacts:
    from rofl.engine.parse import parse_program

    manifest = json.loads((out / "manifest.json").read_text())
    facts = RoflFacts(files=set(manifest["files"]))
    for entry in manifest["files"].values():
        for clause in parse_program((out / entry["facts"]).read_text(encoding="utf-8")):
            rel, args = clause.head.rel, clause.head.args
            if rel == "src_import":
                facts.imports[args[0]].append(args[1])
            elif rel == "src_resolves":
                facts.edges.add((args[0], args[2]))
                facts.answers[(args[0], args[1])].add(("file", args[2]))
                facts.by_edge[(args[0], args[2])].add(args[1])
            elif rel == "src_external":
                facts.answers[(args[0], args[1])].add(("external", args[2]))
            elif rel == "src_workspace_import":
                facts.answers[(args[0], args[1])].add(("workspace", args[2]))
            elif rel == "src_unresolved":
                facts.answers[(args[0], args[1])].add(("unresolved",))
            elif rel == "src_import_kind":
                facts.kinds[(args[0], args[1])].add(args[2][0])
            elif rel == "src_import_line":
                facts.lines[(args[0], args[1])].append(args[2])
            elif rel == "src_asset":
                facts.assets.add(args[0])
            elif rel == "src_declaration":
                facts.declarations.add(args[0])
            elif rel == "src_parse_error":
                facts.errors[args[0]].append(args[1])
    return facts

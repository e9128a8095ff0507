"""What impact does not follow is said, and the report's file count is the scan's (issue 21, items 10 and 14).

Virtual modules (astro:content, cloudflare:workers, virtual:x, ~icons/..., a Rollup plugin's
NUL-prefixed id) are served by a bundler plugin or the runtime, with no file behind them: impact names
them in the note it gives for unfollowed bundler aliases.  The report counts the scanned files, as
`rofl scan` does, and the assets the imports resolve to apart from them.
"""

from __future__ import annotations

import json
import re

from tests.conftest import write_tree

VIRTUAL = (
    'import { getCollection } from "astro:content";\n'
    'import { env } from "cloudflare:workers";\n'
    'import pwa from "virtual:pwa-register";\n'
    'import Home from "~icons/mdi/home";\n'
    'import Gear from "~icons/mdi/gear";\n'
    'import plugin from "\\0plugin-id";\n'
    'import fs from "node:fs";\n'
    'import { test } from "bun:test";\n'
    'import * as path from "deno:path";\n'
    'import remote from "https://esm.sh/react";\n'
    'import React from "react";\n'
    'import { b } from "./b";\n'
    "export const a = b;\n"
)


def _impact_json(rofl, facts, changed: str) -> dict:
    code, out, err = rofl("impact", "--facts", facts, "--changed", changed, "--json")
    assert code == 0, err
    return json.loads(out)


def test_virtual_modules_are_said_in_the_note_and_the_json(rofl, tmp_path):
    src = tmp_path / "src"
    write_tree(
        src,
        {
            "a.ts": VIRTUAL,
            "b.ts": "export const b = 1;\n",
            "c.ts": 'import { getCollection } from "astro:content";\nimport { a } from "./a";\nexport const c = a;\n',
        },
    )
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    data = _impact_json(rofl, facts, "b.ts")
    assert {a["file"] for a in data["affected"]} == {"a.ts", "c.ts"}
    # node:, bun:, deno: are the platform's, https: a URL, react a package: none is a virtual module
    assert data["virtual_modules"] == [
        {"name": "\0plugin-id", "imports": 1, "files": 1},
        {"name": "astro:content", "imports": 2, "files": 2},
        {"name": "cloudflare:workers", "imports": 1, "files": 1},
        {"name": "virtual:pwa-register", "imports": 1, "files": 1},
        {"name": "~icons", "imports": 2, "files": 1},
    ]
    assert data["unfollowed_aliases"] == []  # ~icons is a virtual module, not also an alias
    for fmt in ("text", "names"):
        code, _, err = rofl("impact", "--facts", facts, "--changed", "b.ts", "--format", fmt)
        notes = [line for line in err.splitlines() if "does not follow" in line]
        assert code == 0 and len(notes) == 1, err
        assert "7 import(s) in 2 file(s) name virtual modules rofl does not follow" in notes[0]
        assert "astro:content x2" in notes[0] and "bundler aliases" not in notes[0]


def test_aliases_and_virtual_modules_share_one_note(rofl, tmp_path):
    src = tmp_path / "src"
    write_tree(
        src,
        {
            "lib/util.ts": "export const u = 1;\n",
            "a.ts": 'import { u } from "$lib/util";\nimport { env } from "cloudflare:workers";\nexport const a = u;\n',
        },
    )
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    data = _impact_json(rofl, facts, "lib/util.ts")
    assert data["unfollowed_aliases"] == [{"file": "a.ts", "source": "$lib/util", "name": "$lib"}]
    assert data["virtual_modules"] == [{"name": "cloudflare:workers", "imports": 1, "files": 1}]
    code, _, err = rofl("impact", "--facts", facts, "--changed", "lib/util.ts")
    notes = [line for line in err.splitlines() if "does not follow" in line]
    assert code == 0 and len(notes) == 1
    assert "name bundler aliases rofl does not follow ($lib)" in notes[0]
    assert "name virtual modules rofl does not follow (cloudflare:workers x1)" in notes[0]


def test_the_rule_is_the_one_home_of_virtual_modules(rofl, tmp_path):
    src = tmp_path / "src"
    write_tree(src, {"a.ts": VIRTUAL, "b.ts": "export const b = 1;\n"})
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    code, out, err = rofl("ask", "virtual_module[code](F, S, N)", "--facts", facts, "--json")
    assert code == 0, err
    assert "astro:content" in out and "node:fs" not in out and "bun:test" not in out and "esm.sh" not in out


COUNTED = {
    "main.ts": (
        'import "./style.css";\nimport logo from "./logo.svg";\nimport data from "./data.json";\n'
        'import type { T } from "./types";\nimport { b } from "./broken";\nexport const m: T = logo + data + b;\n'
    ),
    "style.css": "body {}\n",
    "logo.svg": "<svg/>\n",
    "data.json": '{"a": 1}\n',
    "types.d.ts": "export type T = number;\n",
    "broken.ts": "export const b = (;\n",
    "index.html": '<html><body><script type="module" src="./main.ts"></script></body></html>\n',
    "package.json": '{"name": "counted"}\n',
}


def test_the_report_counts_the_files_the_scan_saw_and_the_assets_apart(rofl, tmp_path):
    src = tmp_path / "src"
    write_tree(src, COUNTED)
    facts = tmp_path / "facts"
    code, out, err = rofl("scan", src, "--out", facts, "--json")
    assert code == 0, err
    seen = json.loads(out)["files"]
    assert seen == 3  # main.ts, types.d.ts, broken.ts
    page = tmp_path / "report.html"
    code, out, err = rofl("report", "--facts", facts, "--out", page)
    assert code == 0, err
    said = f"{seen} files (and 3 imported asset(s))"  # style.css, logo.svg, data.json
    assert f": {said}," in out
    summary = re.findall(r"[0-9]+ files[^,<]*", page.read_text(encoding="utf-8"))
    assert summary and summary[0] == said

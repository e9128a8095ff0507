"""runtime_in_cycle over a scan with a declaration file (issue 21: it was empty in any repository
with a .d.ts file, so a CI rule over it passed while `rofl cycles --runtime` found the cycle)."""

from __future__ import annotations

import json

from tests.cli.impact_fixtures import run, scan_tree


def test_runtime_cycles_are_found_beside_a_declaration_file(tmp_path):
    files = {
        "a.ts": 'import { b } from "./b";\nexport const a = () => b;\n',
        "b.ts": 'import { a } from "./a";\nexport const b = () => a;\n',
        "env.d.ts": "declare const VERSION: string;\n",
    }
    _, facts = scan_tree(tmp_path, files)
    code, out, err = run("ask", "runtime_in_cycle[code](F)", "--facts", facts, "--json")
    assert code == 0, err
    assert {a["F"] for a in json.loads(out)["answers"]} == {"a.ts", "b.ts"}
    rules = tmp_path / "ci.rofl"
    rules.write_text("use(no_runtime_circular).\n")
    code, out, _ = run("audit", "--facts", facts, "--rules", rules)
    assert code == 1 and "no_runtime_circular" in out

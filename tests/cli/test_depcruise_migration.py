"""Migrating from dependency-cruiser: `rofl audit` reads a `.dependency-cruiser.{json,js}` config without
running it, translates its rules, and reports the violations `depcruise` reports, under its rule names;
a JS config that is more than an object literal is refused unless --allow-config-js; a
`known-violations.json` is a baseline."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rofl.loading.depcruise_config import ConfigError, JSRegex, parse_literal, read_module_literal
from tests.conftest import ROOT, write_tree

# a small app modelled on a layered TS project: ui -> db (forbidden), feature folders that must not
# import each other ($1), a cycle, an orphan, an unresolvable import, a dynamic import, a type-only
# import, a devDependency and a core module used from production code; every imported value is used
# (TypeScript drops an import whose names are unused or only types: depcruise calls it type-only, which
# rofl cannot see; see docs/migrating-from-dependency-cruiser.md)
TREE = {
    "package.json": '{"name": "app", "dependencies": {"lodash": "1"}, "devDependencies": {"vitest": "1"}}\n',
    "node_modules/lodash/package.json": '{"name": "lodash", "main": "index.js"}\n',
    "node_modules/lodash/index.js": "module.exports = {};\n",
    "node_modules/vitest/package.json": '{"name": "vitest", "main": "index.js"}\n',
    "node_modules/vitest/index.js": "module.exports = {};\n",
    "src/ui/view.ts": 'import { q } from "../db/q";\nimport _ from "lodash";\nimport "vitest";\nimport fs from "fs";\nexport const v = q + _ + fs;\n',
    "src/db/q.ts": 'import { v } from "../ui/view";\nexport const q = () => v;\n',
    "src/feat/a/y.ts": 'import { x } from "../b/x";\nimport "./missing";\nexport const y = () => x;\n',
    "src/feat/b/x.ts": 'import { y } from "../a/y";\nexport const x = () => y;\nconst z = import("../../ui/view");\n',
    "src/feat/b/w.ts": 'import { x } from "./x";\nexport const w = x;\n',
    "src/orphan.ts": "export const lonely = 1;\n",
    "src/main.ts": 'import type { v } from "./ui/view";\nimport { q } from "./db/q";\nimport { w } from "./feat/b/w";\nexport const m = [q, w];\n',
    "src/types.d.ts": "declare const t: number;\n",
}

RULES = [
    {"name": "no-circular", "severity": "error", "from": {}, "to": {"circular": True}},
    {
        "name": "no-orphans",
        "severity": "warn",
        "from": {"orphan": True, "pathNot": ["(^|/)\\.[^/]+\\.(js|cjs|mjs|ts|json)$", "\\.d\\.ts$"]},
        "to": {},
    },
    {
        "name": "ui-not-to-db",
        "comment": "layers",
        "severity": "error",
        "from": {"path": "^src/ui"},
        "to": {"path": "^src/db"},
    },
    {"name": "not-to-unresolvable", "severity": "error", "from": {}, "to": {"couldNotResolve": True}},
    {"name": "no-dev-deps", "severity": "error", "from": {"path": "^src"}, "to": {"dependencyTypes": ["npm-dev"]}},
    {"name": "no-core", "severity": "info", "from": {}, "to": {"dependencyTypes": ["core"]}},
    {
        "name": "feature-isolation",
        "severity": "error",
        "from": {"path": "^src/feat/([^/]+)/"},
        "to": {"path": "^src/feat/", "pathNot": "^src/feat/$1/"},
    },
    {"name": "no-dynamic", "severity": "warn", "from": {}, "to": {"dynamic": True}},
    {"name": "no-type-only", "severity": "info", "from": {}, "to": {"preCompilationOnly": True}},
    {
        "name": "few-dependents",
        "severity": "warn",
        "from": {},
        "module": {"path": "^src/db", "numberOfDependentsLessThan": 3},
    },
    {
        "name": "unreachable",
        "severity": "error",
        "from": {"path": "^src/main"},
        "to": {"path": "^src/feat", "reachable": False},
    },
    {"name": "ignored", "severity": "ignore", "from": {}, "to": {"path": "."}},
]
REQUIRED = [
    {"name": "ui-uses-lodash", "severity": "warn", "module": {"path": "^src/ui"}, "to": {"path": "node_modules/lodash"}}
]
CONFIG = {
    "forbidden": RULES,
    "required": REQUIRED,
    "options": {"tsPreCompilationDeps": "specify", "doNotFollow": {"path": "node_modules"}},
}

# what `depcruise --validate` reports on TREE with CONFIG (dependency-cruiser 17.4.3), per dependency:
# a cycle's every edge (its summary names each cycle once, by one edge; see the docs page)
EXPECTED = {
    ("feature-isolation", "src/feat/a/y.ts", "src/feat/b/x.ts"),
    ("feature-isolation", "src/feat/b/x.ts", "src/feat/a/y.ts"),
    ("no-circular", "src/db/q.ts", "src/ui/view.ts"),
    ("no-circular", "src/ui/view.ts", "src/db/q.ts"),
    ("no-circular", "src/feat/a/y.ts", "src/feat/b/x.ts"),
    ("no-circular", "src/feat/b/x.ts", "src/feat/a/y.ts"),
    ("no-core", "src/ui/view.ts", "fs"),
    ("no-dev-deps", "src/ui/view.ts", "vitest"),
    ("no-dynamic", "src/feat/b/x.ts", "src/ui/view.ts"),
    ("no-orphans", "src/orphan.ts", "src/orphan.ts"),
    ("not-to-unresolvable", "src/feat/a/y.ts", "./missing"),
    ("ui-not-to-db", "src/ui/view.ts", "src/db/q.ts"),
    ("few-dependents", "src/db/q.ts", "src/db/q.ts"),
    ("no-type-only", "src/main.ts", "src/ui/view.ts"),
}

JS_CONFIG = """/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: %s,
  // the rule dependency-cruiser's --init writes with a comment made of parts
  required: [
    {
      name: 'ui-uses-lodash',
      comment: 'ui ' + "uses lodash",
      severity: 'warn',
      module: { path: /^src\\/ui/ },
      to: { path: "node_modules/lodash", },
    },
  ],
  options: { tsPreCompilationDeps: 'specify', doNotFollow: { path: 'node_modules' } },
};
""".replace("%s", json.dumps(RULES, indent=2))


def project(rofl, tmp_path: Path, name: str, text: str) -> tuple[Path, Path]:
    src, facts = tmp_path / "src", tmp_path / "facts"
    write_tree(src, {**TREE, name: text})
    code, _, err = rofl("scan", src, "--out", facts)
    assert code == 0, err
    return src, facts


def findings(rofl, facts: Path, *extra) -> tuple[int, set[tuple[str, str, str]], dict, str]:
    code, out, err = rofl("audit", "--facts", facts, "--json", *extra)
    doc = json.loads(out)
    got = {(f["rule"], f["from"], f["to"]) for f in doc.get("findings", []) if f.get("rule")}
    severities = {f["rule"]: f["severity"] for f in doc.get("findings", []) if f.get("rule")}
    return code, got, severities, err


@pytest.mark.parametrize(
    "name,text",
    [(".dependency-cruiser.json", json.dumps(CONFIG)), (".dependency-cruiser.js", JS_CONFIG)],
    ids=["json", "js-literal"],
)
def test_config_found_and_translated_with_depcruise_names(rofl, tmp_path, name, text):
    _, facts = project(rofl, tmp_path, name, text)
    code, got, severities, err = findings(rofl, facts)
    assert got == EXPECTED
    assert code == 1  # error findings
    assert (
        severities["no-orphans"] == "warn" and severities["no-core"] == "info" and severities["no-circular"] == "error"
    )
    assert "ignored" in err and "severity ignore" in err  # named, not silently dropped


def test_untranslatable_rule_named_in_one_line(rofl, tmp_path):
    config = {
        "forbidden": [
            {"name": "look", "severity": "error", "from": {"path": "(?<=x)y"}, "to": {}},
            {"name": "lic", "severity": "error", "from": {}, "to": {"license": "GPL"}},
            {"name": "ui-not-to-db", "severity": "error", "from": {"path": "^src/ui"}, "to": {"path": "^src/db"}},
        ]
    }
    _, facts = project(rofl, tmp_path, ".dependency-cruiser.json", json.dumps(config))
    code, got, _, err = findings(rofl, facts)
    assert got == {("ui-not-to-db", "src/ui/view.ts", "src/db/q.ts")}
    lines = [ln for ln in err.splitlines() if "not translated" in ln]
    assert len(lines) == 2 and '"look"' in lines[0] and "look-around" in lines[0] and "to.license" in lines[1]


def test_depcruise_config_option_and_exclude(rofl, tmp_path):
    config = {
        "forbidden": [{"name": "no-circular", "severity": "warn", "from": {}, "to": {"circular": True}}],
        "options": {"exclude": {"path": "^src/db"}},
    }
    src, facts = project(rofl, tmp_path, "elsewhere.json", json.dumps(config))
    code, got, severities, _ = findings(rofl, facts)
    assert got == set()  # no config at the root: nothing translated
    code, got, severities, _ = findings(rofl, facts, "--depcruise-config", src / "elsewhere.json")
    # the ui <-> db cycle is gone with db excluded; the feature cycle stays
    assert got == {
        ("no-circular", "src/feat/a/y.ts", "src/feat/b/x.ts"),
        ("no-circular", "src/feat/b/x.ts", "src/feat/a/y.ts"),
    }
    assert code == 0 and severities == {"no-circular": "warn"}


def test_js_config_with_code_is_refused_without_running_it(rofl, tmp_path):
    marker = tmp_path / "ran"
    text = (
        f"require('fs').writeFileSync({json.dumps(str(marker))}, 'x');\n"
        "module.exports = { forbidden: [ { name: 'no-circular', severity: 'error', from: {},\n"
        "  to: { circular: require('./flag') } } ] };\n"
    )
    _, facts = project(rofl, tmp_path, ".dependency-cruiser.js", text)
    code, out, err = rofl("audit", "--facts", facts)
    assert code == 2 and "--allow-config-js" in err
    assert not marker.exists()
    literal = "module.exports = { forbidden: [ { name: 'no-circular', severity: 'error', from: {},\n  to: { circular: require('./flag') } } ] };\n"
    with pytest.raises(Exception) as info:
        read_module_literal(literal, "c.js")
    assert 'c.js:2: cannot read forbidden[0] ("no-circular").to.circular' in str(info.value)


NODE = shutil.which("node")
DEPCRUISE = ROOT / "bench" / ".cache" / "node_modules" / ".bin" / "depcruise"


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_allow_config_js_lets_node_evaluate(rofl, tmp_path):
    text = (
        f"const rules = {json.dumps(RULES)};\n"
        + "module.exports = { forbidden: rules.filter((r) => r.name === 'ui-not-to-db') };\n"
    )
    _, facts = project(rofl, tmp_path, ".dependency-cruiser.cjs", text)
    code, _, err = rofl("audit", "--facts", facts)
    assert code == 2 and "--allow-config-js" in err
    code, got, _, _ = findings(rofl, facts, "--allow-config-js")
    assert got == {("ui-not-to-db", "src/ui/view.ts", "src/db/q.ts")}


ALLOWED = {
    "allowed": [
        {"from": {"path": "^src/(ui|db)"}, "to": {"path": "^src/(ui|db)"}},
        {"from": {}, "to": {"dependencyTypes": ["core", "npm"]}},
        {"from": {"path": "^src/feat/([^/]+)/"}, "to": {"path": "^src/feat/$1/"}},
    ],
    "allowedSeverity": "error",
    "forbidden": [
        {
            "name": "main-reaches-feat",
            "severity": "info",
            "from": {"path": "^src/main"},
            "to": {"path": "^src/feat/a", "reachable": True},
        }
    ],
    "options": {"tsPreCompilationDeps": True, "includeOnly": "^(src|node_modules)"},
}
ALLOWED_EXPECTED = {  # what depcruise reports on TREE with ALLOWED
    ("not-in-allowed", "src/feat/a/y.ts", "src/feat/b/x.ts"),
    ("not-in-allowed", "src/feat/b/x.ts", "src/feat/a/y.ts"),
    ("not-in-allowed", "src/feat/b/x.ts", "src/ui/view.ts"),
    ("not-in-allowed", "src/main.ts", "src/db/q.ts"),
    ("not-in-allowed", "src/main.ts", "src/feat/b/w.ts"),
    ("not-in-allowed", "src/main.ts", "src/ui/view.ts"),
    ("not-in-allowed", "src/ui/view.ts", "vitest"),
    ("main-reaches-feat", "src/main.ts", "src/feat/a/y.ts"),
}


def test_allowed_rules_and_reachable(rofl, tmp_path):
    _, facts = project(rofl, tmp_path, ".dependency-cruiser.json", json.dumps(ALLOWED))
    code, got, severities, _ = findings(rofl, facts)
    assert got == ALLOWED_EXPECTED
    assert severities == {"not-in-allowed": "error", "main-reaches-feat": "info"} and code == 1


@pytest.mark.slow
@pytest.mark.skipif(NODE is None or not DEPCRUISE.exists(), reason="node or bench/.cache dependency-cruiser missing")
@pytest.mark.parametrize("config", [CONFIG, ALLOWED], ids=["forbidden", "allowed"])
def test_same_violations_as_depcruise(rofl, tmp_path, config):
    from rofl.loading.depcruise_config import depcruise_violations

    src, facts = project(rofl, tmp_path, ".dependency-cruiser.json", json.dumps(config))
    done = subprocess.run(
        [str(DEPCRUISE), "--config", ".dependency-cruiser.json", "--output-type", "json", "src"],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    _, got, _, _ = findings(rofl, facts)
    assert got == depcruise_violations(json.loads(done.stdout))


def test_known_violations_json_is_a_baseline(rofl, tmp_path):
    _, facts = project(rofl, tmp_path, ".dependency-cruiser.json", json.dumps(CONFIG))
    known = [  # as `depcruise --output-type baseline` writes them: a cycle once, by one edge
        {
            "type": "cycle",
            "from": "src/db/q.ts",
            "to": "src/ui/view.ts",
            "rule": {"name": "no-circular", "severity": "error"},
            "cycle": [{"name": "src/ui/view.ts"}, {"name": "src/db/q.ts"}],
        },
        {
            "type": "dependency",
            "from": "src/ui/view.ts",
            "to": "node_modules/vitest/index.js",
            "rule": {"name": "no-dev-deps", "severity": "error"},
        },
        {"type": "module", "from": "src/orphan.ts", "to": "", "rule": {"name": "no-orphans", "severity": "warn"}},
    ]
    baseline = tmp_path / "known-violations.json"
    baseline.write_text(json.dumps(known))
    code, got, _, _ = findings(rofl, facts, "--baseline", baseline)
    assert got == EXPECTED - {
        ("no-circular", "src/db/q.ts", "src/ui/view.ts"),
        ("no-circular", "src/ui/view.ts", "src/db/q.ts"),
        ("no-dev-deps", "src/ui/view.ts", "vitest"),
        ("no-orphans", "src/orphan.ts", "src/orphan.ts"),
    }


# -- the literal parser: a generated value, written as a JS literal, reads back as json.loads of its JSON

KEYS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12),
)
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4), max_leaves=20
)


def js_string(s: str, quote: str) -> str:
    out = []
    for ch in s:
        if ch in (quote, "\\"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch in "\u2028\u2029" or ord(ch) < 32:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return quote + "".join(out) + quote


def js_literal(value, draw) -> str:
    """``value`` as a JS literal: single or double quotes, bare keys where they are identifiers,
    comments between tokens, trailing commas."""
    gap = draw(st.sampled_from(["", " ", "\n", " /* c */ ", " // c\n"]))
    if isinstance(value, str):
        return js_string(value, draw(st.sampled_from(["'", '"'])))
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, int) else json.dumps(value)
    trail = draw(st.sampled_from(["", ","]))
    if isinstance(value, list):
        return "[" + gap + ("," + gap).join(js_literal(v, draw) for v in value) + (trail if value else "") + "]"
    items = []
    for k, v in value.items():
        bare = k.isidentifier() and k.isascii() and draw(st.booleans())
        items.append((k if bare else js_string(k, "'")) + gap + ":" + js_literal(v, draw))
    return "{" + gap + ("," + gap).join(items) + (trail if items else "") + "}"


@settings(max_examples=200, deadline=None)
@given(VALUES, st.data())
def test_literal_round_trips_to_json(value, data):
    text = js_literal(value, data.draw)
    assert parse_literal(text) == json.loads(json.dumps(value))
    assert read_module_literal(f"module.exports = {{ v: {text} }};\n")["v"] == json.loads(json.dumps(value))


@settings(max_examples=100, deadline=None)
@given(VALUES, st.data())
def test_a_js_config_cut_short_is_refused_as_a_config_error(value, data):
    """A config saved half-written is a user error naming the file, never a crash (it read past the end)."""
    text = f"module.exports = {{ v: {js_literal(value, data.draw)} }};\n"
    cut = data.draw(st.integers(0, len(text) - 1))
    try:
        read_module_literal(text[:cut], "c.js")
    except ConfigError as exc:
        assert str(exc).startswith("c.js")


def test_literal_regex_and_string_concatenation():
    assert parse_literal("{ path: /^src\\/[a-z]+$/i, c: 'a' + \"b\" }") == {
        "path": JSRegex("^src\\/[a-z]+$", "i"),
        "c": "ab",
    }
    assert read_module_literal("export default { a: [1, 2,], };")["a"] == [1, 2]


def test_ci_formats_name_the_depcruise_rules(rofl, tmp_path):
    _, facts = project(rofl, tmp_path, ".dependency-cruiser.json", json.dumps(CONFIG))
    code, out, _ = rofl("audit", "--facts", facts, "--format", "sarif")
    run = json.loads(out)["runs"][0]
    ids = {r["id"] for r in run["tool"]["driver"]["rules"]}
    assert {"no-circular", "feature-isolation", "ui-uses-lodash"} <= ids and not any(i.startswith("dc_") for i in ids)
    assert {r["ruleId"] for r in run["results"]} == {rule for rule, _, _ in EXPECTED}


@pytest.mark.parametrize("escape", ["\\u", "\\u12", "\\u{", "\\u{}", "\\u{110000}", "\\x", "\\x4", "\\u{zz}"])
def test_a_malformed_escape_in_a_js_config_is_a_config_error(escape):
    with pytest.raises(ConfigError, match="^c.js"):
        read_module_literal(f'module.exports = {{ v: "a{escape}" }};\n', "c.js")

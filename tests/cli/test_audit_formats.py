"""CI formats of `rofl audit --format` and `rofl cycles --format`: SARIF 2.1.0 (valid against the vendored
OASIS schema, fingerprints stable across runs and line moves, baseline states), JUnit XML, a Markdown
pull-request comment (read back by a CommonMark parser), TeamCity and Azure Pipelines service messages
(escaping round-trips), with the exit codes of the text output."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rofl.formats import NAMES, Report, render
from rofl.formats.markdown import code, prose
from rofl.questions.findings import Finding, RuleInfo
from tests.cli.test_rules_presets import ALL_PRESETS, MONOREPO, ORPHAN_ALLOWS
from tests.conftest import write_tree

jsonschema = pytest.importorskip("jsonschema")
markdown_it = pytest.importorskip("markdown_it")

SCHEMA = json.loads((Path(__file__).parent.parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
RULES = "".join(f"use({p}).\n" for p in ALL_PRESETS) + ORPHAN_ALLOWS


def valid_sarif(text: str) -> dict:
    doc = json.loads(text)
    jsonschema.Draft4Validator(SCHEMA).validate(doc)  # the schema is draft-04
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json") and len(doc["runs"]) == 1
    return doc


@pytest.fixture(scope="module")
def scanned(tmp_path_factory):
    """``(src, facts, rules)``: the monorepo of test_rules_presets with every preset on, scanned once."""
    from click.testing import CliRunner

    from rofl.cli import main

    root = tmp_path_factory.mktemp("formats")
    src, facts, rules = root / "src", root / "facts", root / "rules.rofl"
    write_tree(src, MONOREPO)
    rules.write_text(RULES)
    result = CliRunner().invoke(main, ["scan", str(src), "--out", str(facts)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return src, facts, rules


@pytest.fixture
def project(scanned, tmp_path):
    """A private copy of the scanned monorepo, to change and scan again."""
    src, facts, rules = tmp_path / "src", tmp_path / "facts", tmp_path / "rules.rofl"
    shutil.copytree(scanned[0], src)
    rules.write_text(RULES)
    return src, facts, rules


def scan(rofl, src, facts):
    code, _, err = rofl("scan", src, "--out", facts)
    assert code == 0, err


def audit(rofl, facts, rules, *extra):
    return rofl("audit", "--facts", facts, "--rules", rules, *extra)


def results(doc: dict) -> list[dict]:
    return doc["runs"][0]["results"]


def fingerprints(doc: dict) -> dict[str, tuple[str, str, int | None]]:
    """fingerprint -> (rule, uri, line) of every result."""
    out = {}
    for r in results(doc):
        loc = r["locations"][0]["physicalLocation"]
        out[r["partialFingerprints"]["roflFindingKey/v1"]] = (
            r["ruleId"],
            loc["artifactLocation"]["uri"],
            loc.get("region", {}).get("startLine"),
        )
    return out


# -- SARIF ---------------------------------------------------------------------------------------------


def test_sarif_is_valid_and_carries_rules_locations_and_lines(rofl, scanned):
    src, facts, rules = scanned
    code, out, _ = audit(rofl, facts, rules, "--format", "sarif")
    assert code == 1  # as the text output: errors found
    doc = valid_sarif(out)
    run = doc["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "rofl" and driver["version"]
    ids = [r["id"] for r in driver["rules"]]
    assert set(ALL_PRESETS) <= set(ids) and "forged" in ids  # the turned-on presets and boot's audits
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in driver["rules"]}
    assert levels["no_circular"] == "error" and levels["no_orphans"] == "warning"
    descriptions = {r["id"]: r["shortDescription"]["text"] for r in driver["rules"]}
    assert descriptions["no_orphans"].startswith("no orphan files")
    _, listed, _ = audit(rofl, facts, rules, "--json")
    expected = {
        (f["rule"], f["file"], f["line"], {"error": "error", "warn": "warning", "info": "note"}[f["severity"]])
        for f in json.loads(listed)["findings"]
    }
    got = set()
    for r in run["results"]:
        assert ids[r["ruleIndex"]] == r["ruleId"] and r["message"]["text"]
        (loc,) = r["locations"]
        artifact = loc["physicalLocation"]["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%" and not artifact["uri"].startswith(("/", "file:", ".."))
        assert (src / artifact["uri"]).is_file()  # relative to the scanned root (no git here)
        got.add((r["ruleId"], artifact["uri"], loc["physicalLocation"].get("region", {}).get("startLine"), r["level"]))
        assert "baselineState" not in r  # no baseline given
    assert got == expected
    assert ("no_undeclared_packages", "packages/element/src/render.ts", 2, "error") in got


def test_sarif_fingerprints_are_stable_across_runs_and_line_moves(rofl, project):
    src, facts, rules = project
    scan(rofl, src, facts)
    first = fingerprints(valid_sarif(audit(rofl, facts, rules, "--format", "sarif")[1]))
    again = fingerprints(valid_sarif(audit(rofl, facts, rules, "--format", "sarif")[1]))
    assert again == first and len(first) == len(results(valid_sarif(audit(rofl, facts, rules, "--format", "sarif")[1])))
    for name in ("packages/element/src/render.ts", "packages/element/src/bounds.ts"):
        path = src / name
        path.write_text("// moved\n\n\n" + path.read_text())  # every import of the file moves down 3 lines
    scan(rofl, src, facts)
    moved = fingerprints(valid_sarif(audit(rofl, facts, rules, "--format", "sarif")[1]))
    assert set(moved) == set(first)  # the same alerts: nothing re-opened, nothing closed
    shifted = [fp for fp, (_, uri, line) in first.items() if uri.endswith(("render.ts", "bounds.ts")) and line]
    assert shifted
    for fp in shifted:
        assert moved[fp][2] == first[fp][2] + 3
    for fp in set(first) - set(shifted):
        assert moved[fp] == first[fp]


def test_sarif_with_a_baseline_marks_new_and_unchanged(rofl, project, tmp_path):
    src, facts, rules = project
    scan(rofl, src, facts)
    baseline = tmp_path / "baseline.json"
    assert audit(rofl, facts, rules, "--write-baseline", baseline)[0] == 0
    before = fingerprints(valid_sarif(audit(rofl, facts, rules, "--format", "sarif")[1]))
    colors = src / "packages/common/src/colors.ts"
    colors.write_text('import chroma from "chroma-js";\n' + colors.read_text())
    scan(rofl, src, facts)
    code, out, _ = audit(rofl, facts, rules, "--baseline", baseline, "--format", "sarif")
    assert code == 1  # the new finding is an error
    doc = valid_sarif(out)
    states = {r["partialFingerprints"]["roflFindingKey/v1"]: r["baselineState"] for r in results(doc)}
    new = [fp for fp, s in states.items() if s == "new"]
    assert len(new) == 1 and fingerprints(doc)[new[0]] == (
        "no_undeclared_packages",
        "packages/common/src/colors.ts",
        1,
    )
    assert {fp for fp, s in states.items() if s == "unchanged"} == set(before)
    code, out, _ = audit(rofl, facts, rules, "--baseline", baseline, "--format", "junit")
    root = ET.fromstring(out.encode("utf-8"))
    assert code == 1 and int(root.get("failures")) == 1  # only the new finding fails
    assert int(root.get("skipped")) == len(before) == len(root.findall(".//testcase/skipped"))


def test_paths_are_relative_to_the_git_work_tree(rofl, tmp_path):
    """A scan of a subfolder of a repository, and a rule file in another folder of it: SARIF and the
    GitHub annotations name both from the repository's root, wherever rofl runs."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    src, facts, rules = repo / "web", tmp_path / "facts", repo / "ci" / "rules.rofl"
    write_tree(src, MONOREPO)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    rules.parent.mkdir()
    rules.write_text('use(no_undeclared_packages).\n\nsrc_file[code]("fake.ts", "0").\n')  # line 3: forged
    scan(rofl, src, facts)
    doc = valid_sarif(audit(rofl, facts, rules, "--format", "sarif")[1])
    located = set(fingerprints(doc).values())
    assert ("forged", "ci/rules.rofl", 3) in located
    assert ("no_undeclared_packages", "web/packages/element/src/render.ts", 2) in located
    assert all(uri.startswith(("web/", "ci/")) for _, uri, _ in located)
    _, out, _ = audit(rofl, facts, rules, "--format", "github")
    assert "::error file=web/packages/element/src/render.ts,line=2," in out and "file=ci/rules.rofl,line=3," in out


paths = st.lists(st.sampled_from(["src", "a b", "%", "#", "?", "é", "\udcff", "x.ts", "..", "@scope"]), min_size=1)
findings = st.builds(
    Finding,
    audit=st.sampled_from(["violation", "forged", "stale"]),
    fact=st.one_of(st.none(), st.text(max_size=20)),
    file=st.one_of(st.none(), paths.map("/".join), paths.map(lambda p: "/" + "/".join(p))),
    line=st.one_of(st.none(), st.integers(1, 10**6)),
    message=st.one_of(st.none(), st.text(max_size=20)),
    rule=st.one_of(st.none(), st.sampled_from(["no_circular", "mine", "a b"])),
    severity=st.sampled_from(["error", "warn", "info"]),
    source=st.text(max_size=8),
    target=st.text(max_size=8),
)


@settings(max_examples=20, deadline=None)
@given(reported=st.lists(findings, max_size=6), known=st.lists(findings, max_size=3), baseline=st.booleans())
def test_any_findings_render_valid_sarif(reported, known, baseline):
    report = Report("audit", tuple(reported), tuple(known) if baseline else (), baseline=baseline)
    doc = valid_sarif(render("sarif", report))
    got = results(doc)
    assert len(got) == len(reported) + (len(known) if baseline else 0)
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert len({r["id"] for r in rules}) == len(rules)  # each rule once, results point at theirs
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in got)


# -- exit codes are the text output's, whatever the format ---------------------------------------------


@pytest.mark.slow
def test_every_format_keeps_the_exit_code(rofl, scanned, tmp_path):
    _, facts, rules = scanned
    warn_only = tmp_path / "warn.rofl"
    warn_only.write_text("use(no_orphans).\n" + ORPHAN_ALLOWS)  # one orphan: a warning
    for fmt in ("text", "json", *NAMES):
        assert audit(rofl, facts, warn_only, "--format", fmt)[0] == 0, fmt
        code, out, _ = audit(rofl, facts, warn_only, "--format", fmt, "--fail-on", "warn")
        assert code == 1, fmt
        assert "legacy.ts" in out, fmt  # the warning is reported in every format
    code, _, err = audit(rofl, facts, rules, "--json", "--format", "sarif")
    assert code == 2 and "disagree" in err
    code, out, _ = rofl("audit", "--help")
    assert all(name in out for name in NAMES)  # --help lists the table's formats


# -- JUnit ---------------------------------------------------------------------------------------------


def test_junit_has_a_suite_per_rule_and_a_case_per_finding(rofl, scanned):
    _, facts, rules = scanned
    sarif = valid_sarif(audit(rofl, facts, rules, "--format", "sarif")[1])
    rule_ids = [r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]]
    per_rule: dict[str, int] = {}
    for r in results(sarif):
        per_rule[r["ruleId"]] = per_rule.get(r["ruleId"], 0) + 1
    for fail_on, failing in (("error", {"error"}), ("warn", {"error", "warning"})):
        code, out, _ = audit(rofl, facts, rules, "--format", "junit", "--fail-on", fail_on)
        assert code == 1
        root = ET.fromstring(out.encode("utf-8"))
        assert root.tag == "testsuites"
        suites = root.findall("testsuite")
        assert [s.get("name") for s in suites] == [f"rofl.{r}" for r in rule_ids]
        total_failures = 0
        for suite in suites:
            rule = suite.get("name").removeprefix("rofl.")
            cases = suite.findall("testcase")
            failures = [c for c in cases if c.find("failure") is not None]
            assert int(suite.get("tests")) == len(cases) and int(suite.get("failures")) == len(failures)
            total_failures += len(failures)
            if rule not in per_rule:  # a rule that held: one passing case
                assert len(cases) == 1 and list(cases[0]) == []
                continue
            assert len(cases) == per_rule[rule]
            for c in cases:
                assert c.get("file") and c.get("classname") == f"rofl.{rule}"
        assert int(root.get("failures")) == total_failures
        assert total_failures == sum(1 for r in results(sarif) if r["level"] in failing)
        orphan = root.find("testsuite[@name='rofl.no_orphans']/testcase")
        assert orphan is not None and orphan.get("file") == "packages/math/src/legacy.ts"
        assert (orphan.find("failure") is not None) == (fail_on == "warn")  # below --fail-on: passing, in system-out


# -- Markdown ------------------------------------------------------------------------------------------

md = markdown_it.MarkdownIt("commonmark").enable("table")
BREAKS = re.compile(r"\r\n|\r|\n")
cell_text = st.lists(
    st.sampled_from(list("ab |`\\*_[]<>&#$:@!-\n\r\t") + ["<br>", "**", "``", " | ", "&amp;", "é"]), max_size=12
).map("".join)


def cells(markdown: str) -> list[list[list]]:
    """The rows of the first table in ``markdown``, each a list of its cells' inline tokens."""
    tokens = md.parse(markdown)
    rows, row, cell = [], None, None
    for t in tokens:
        if t.type == "tr_open":
            row = []
        elif t.type in ("td_open", "th_open"):
            cell = []
        elif t.type == "inline" and cell is not None:
            cell.extend(t.children or [])
        elif t.type in ("td_close", "th_close"):
            row.append(cell)
            cell = None
        elif t.type == "tr_close":
            rows.append(row)
        elif t.type == "table_close":
            break
    return rows


def inline_text(children: list) -> str:
    """The text a reader sees: text and code spans as written, ``<br>`` as a line break."""
    out = []
    for t in children:
        if t.type in ("text", "code_inline"):
            out.append(t.content)
        elif t.type == "html_inline" and t.content == "<br>":
            out.append("\n")
        elif t.type == "softbreak":
            out.append("\n")
        else:
            raise AssertionError(f"unexpected markup {t.type}: {t.content!r}")
    return "".join(out)


@settings(max_examples=100, deadline=None)
@given(text=cell_text)
def test_markdown_code_cells_keep_pipes_and_newlines_inside_the_cell(text):
    table = f"| a | b |\n|---|---|\n| {code(text)} | end |\n"
    rows = cells(table)
    assert len(rows) == 2 and [len(r) for r in rows] == [2, 2]  # no pipe split the row, no newline ended it
    body = rows[1][0]
    expected = BREAKS.sub(" ", text)
    if not expected:
        assert body == []
        return
    assert [t.type for t in body] == ["code_inline"] and body[0].content == expected
    assert inline_text(rows[1][1]) == "end"


@settings(max_examples=100, deadline=None)
@given(text=cell_text)
def test_markdown_prose_is_literal_in_a_cell_and_a_paragraph(text):
    table = f"| a | b |\n|---|---|\n| x{prose(text)}x | end |\n"  # x...x: a cell's edge spaces are trimmed
    rows = cells(table)
    assert [len(r) for r in rows] == [2, 2]
    assert inline_text(rows[1][0]) == "x" + BREAKS.sub("\n", text) + "x"
    (para,) = [t for t in md.parse("x" + prose(text) + "x") if t.type == "inline"]
    assert inline_text(para.children) == "x" + BREAKS.sub("\n", text) + "x"


def test_markdown_rows_hold_hostile_paths_and_messages():
    finding = Finding(
        audit="violation",
        fact="violation[audit](r, ...)",
        file="src/a|b.ts",
        line=3,
        message="never | import\n`this` <b>here</b>",
        rule="r|1",
        source="src/a|b.ts",
        target="x\ny",
    )
    report = Report("audit", (finding,), rules=(RuleInfo("r|1", "error", "never | import"),))
    text = render("markdown", report)
    first_table = text[text.index("| Rule |") :]
    rows = cells(first_table)
    assert [len(r) for r in rows] == [3, 3]
    rule, where, what = (inline_text(c) for c in rows[1])
    assert (rule, where) == ("r|1", "src/a|b.ts:3")
    assert what == "never | import\n`this` <b>here</b>: src/a|b.ts -> x y"


def test_markdown_comment_lists_new_findings_first(rofl, project, tmp_path):
    src, facts, rules = project
    scan(rofl, src, facts)
    baseline = tmp_path / "baseline.json"
    audit(rofl, facts, rules, "--write-baseline", baseline)
    colors = src / "packages/common/src/colors.ts"
    colors.write_text('import chroma from "chroma-js";\n' + colors.read_text())
    scan(rofl, src, facts)
    code, out, _ = audit(rofl, facts, rules, "--baseline", baseline, "--format", "markdown")
    assert code == 1
    summary = out.splitlines()[0]
    assert summary.startswith("### rofl audit: 1 new finding (1 error)") and "known in the baseline" in summary
    new_at, known_at = out.index("New findings"), out.index("known (in the baseline)")
    assert new_at < out.index("chroma-js") < known_at  # the new finding comes before the known ones
    assert out.index("packages/element/src/render.ts") > known_at
    assert "<details><summary>" in out and "#### Impact" in out
    tokens = md.parse(out)
    assert any(t.type == "table_open" for t in tokens)


# -- TeamCity and Azure Pipelines: escaping round-trips -------------------------------------------------

nasty = st.lists(
    st.sampled_from(list("ab|'[]%;:=\n\r ]\x85\u2028\u2029é") + ["|n", "%AZP25", "%0A", "%3B", "##vso[", "'"]),
    max_size=12,
).map("".join)
hostile = st.builds(
    Finding,
    audit=st.just("violation"),
    fact=st.just("f"),
    file=nasty,
    line=st.one_of(st.none(), st.integers(1, 10**5)),
    message=nasty,
    rule=nasty.filter(bool),
    severity=st.sampled_from(["error", "warn", "info"]),
    source=nasty,
    target=nasty,
)
TEAMCITY_UNESCAPE = {
    "|": "|",
    "'": "'",
    "[": "[",
    "]": "]",
    "n": "\n",
    "r": "\r",
    "x": "\x85",
    "l": "\u2028",
    "p": "\u2029",
}


def parse_teamcity(line: str) -> tuple[str, dict[str, str]]:
    """A service message read back as TeamCity reads it; values may hold no raw ' [ ] or line break."""
    match = re.fullmatch(r"##teamcity\[(\w+)((?: \w+='(?:[^'|\[\]\n\r\x85\u2028\u2029]|\|.)*')*)\]", line)
    assert match, line
    attrs = {}
    for key, raw in re.findall(r" (\w+)='((?:[^'|]|\|.)*)'", match.group(2)):
        attrs[key] = re.sub(r"\|(.)", lambda m: TEAMCITY_UNESCAPE[m.group(1)], raw)
    return match.group(1), attrs


@settings(max_examples=120, deadline=None)
@given(finding=hostile)
def test_teamcity_messages_round_trip(finding):
    from rofl.formats import message

    lines = render("teamcity", Report("audit", (finding,))).splitlines()
    assert all(len(line.splitlines()) == 1 for line in lines)
    parsed = [parse_teamcity(line) for line in lines]
    kinds = [k for k, _ in parsed]
    assert kinds == ["inspectionType", "inspection"]
    (_, rule), (_, found) = parsed
    assert rule["id"] == finding.rule and rule["description"] == (finding.message or finding.rule)
    expected = {"typeId": finding.rule, "message": message(finding), "file": finding.file}
    expected["SEVERITY"] = {"error": "ERROR", "warn": "WARNING", "info": "INFO"}[finding.severity]
    if finding.line is not None:
        expected["line"] = str(finding.line)
    assert found == expected


def parse_azure(line: str) -> tuple[str, dict[str, str], str]:
    """A logging command read back as the agent reads it (azure-pipelines-task-lib's escaping undone)."""

    def unescape(text: str, prop: bool) -> str:
        pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3B", ";"), ("%5D", "]")] if prop else [])
        for escaped, ch in pairs:
            text = text.replace(escaped, ch)
        return text.replace("%AZP25", "%")

    match = re.fullmatch(r"##vso\[([\w.]+) ((?:[^;\]\r\n]*;)*)\]([^\r\n]*)", line)
    assert match, line
    props = {}
    for part in match.group(2).split(";")[:-1]:
        key, _, value = part.partition("=")
        props[key] = unescape(value, True)
    return match.group(1), props, unescape(match.group(3), False)


@settings(max_examples=120, deadline=None)
@given(finding=hostile)
def test_azure_issues_round_trip(finding):
    from rofl.formats import message

    out = render("azure", Report("audit", (finding,)))
    (line,) = out.removesuffix("\n").split("\n")  # the agent reads lines at LF (and CR), nothing else
    command, props, body = parse_azure(line)
    assert command == "task.logissue"
    expected = {"type": "error" if finding.severity == "error" else "warning", "sourcepath": finding.file}
    if finding.line is not None:
        expected["linenumber"] = str(finding.line)
    expected["code"] = finding.rule
    assert props == expected and body == message(finding)


def test_teamcity_and_azure_name_each_finding_of_a_scan(rofl, scanned):
    _, facts, rules = scanned
    _, listed, _ = audit(rofl, facts, rules, "--json")
    count = len(json.loads(listed)["findings"])
    code, out, _ = audit(rofl, facts, rules, "--format", "teamcity")
    parsed = [parse_teamcity(line) for line in out.splitlines()]
    inspections = [a for k, a in parsed if k == "inspection"]
    assert code == 1 and len(inspections) == count
    types = {a["id"] for k, a in parsed if k == "inspectionType"}
    assert {a["typeId"] for a in inspections} <= types
    assert {"typeId": "no_undeclared_packages", "file": "packages/element/src/render.ts", "line": "2"}.items() <= next(
        a for a in inspections if a["file"].endswith("render.ts")
    ).items()
    code, out, _ = audit(rofl, facts, rules, "--format", "azure")
    issues = [parse_azure(line) for line in out.removesuffix("\n").split("\n")]
    assert code == 1 and len(issues) == count
    assert ("error", "packages/element/src/render.ts", "2") in {
        (p["type"], p["sourcepath"], p.get("linenumber")) for _, p, _ in issues
    }


# -- rofl cycles --format ------------------------------------------------------------------------------


def test_cycles_formats_report_each_import_to_remove(rofl, scanned):
    _, facts, _ = scanned
    code, listed, _ = rofl("cycles", "--facts", facts, "--json")
    assert code == 1
    cuts = {(p["cut"][0], p["imports"][0]["line"]) for c in json.loads(listed)["components"] for p in c["proofs"]}
    code, out, _ = rofl("cycles", "--facts", facts, "--format", "sarif")
    assert code == 1
    doc = valid_sarif(out)
    assert [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]] == ["import_cycle"]
    assert {(uri, line) for _, uri, line in fingerprints(doc).values()} == cuts
    code, out, _ = rofl("cycles", "--facts", facts, "--format", "junit")
    suite = ET.fromstring(out.encode("utf-8")).find("testsuite")
    assert code == 1 and suite.get("name") == "rofl.import_cycle" and int(suite.get("failures")) == len(cuts)
    code, out, _ = rofl("cycles", "--facts", facts, "--format", "markdown")
    assert code == 1 and out.startswith(f"### rofl cycles: {len(cuts)} finding")
    code, _, err = rofl("cycles", "--facts", facts, "--json", "--format", "sarif")
    assert code == 2 and "disagree" in err

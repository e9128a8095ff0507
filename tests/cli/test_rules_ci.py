"""CI integrations: the GitHub Actions example (it parses, names only commands and options that exist, and
its steps run), `rofl audit --format github` (GitHub's escaping round-trips), and the pre-commit hook."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rofl.annotations import annotation
from rofl.questions.findings import Finding
from tests.cli.test_rules_presets import MONOREPO
from tests.conftest import ROOT, write_tree

yaml = pytest.importorskip("yaml")

WORKFLOW = ROOT / "examples" / "ci" / "github-actions.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"
ROFL_BIN = Path(sys.executable).parent


def run_blocks() -> list[dict]:
    doc = yaml.safe_load(WORKFLOW.read_text())
    assert doc["name"] == "rofl" and set(doc[True]) == {"push", "pull_request"}  # `on:` parses as True
    steps = doc["jobs"]["audit"]["steps"]
    return [s for s in steps if "run" in s]


def rofl_invocations(script: str) -> dict[str, set[str]]:
    """``{subcommand: options}`` a run block gives rofl: every ``--x`` on a line that calls rofl or
    builds its arguments (``set -- ...``), attributed to the block's rofl subcommand."""
    subs = set(re.findall(r"\brofl ([a-z]+)", script))
    options = {
        opt
        for line in script.splitlines()
        if re.search(r"\brofl [a-z]+|^\s*(if .*then )?set --", line)
        for opt in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", line)
    }
    assert len(subs) <= 1, subs
    return {sub: options for sub in subs}


def help_options(rofl, sub: str) -> str:
    code, out, _ = rofl(sub, "--help")
    assert code == 0, sub
    return out


def test_the_workflow_names_only_commands_and_options_that_exist(rofl):
    from rofl.cli import COMMANDS

    seen: dict[str, set[str]] = {}
    for step in run_blocks():
        for sub, options in rofl_invocations(step["run"]).items():
            seen.setdefault(sub, set()).update(options)
    assert set(seen) == {"scan", "audit", "impact"}
    for sub, options in seen.items():
        assert sub in COMMANDS
        text = help_options(rofl, sub)
        for opt in options:
            assert re.search(rf"(^|\s){re.escape(opt)}\b", text), (sub, opt)
    assert "github" in help_options(rofl, "audit")  # --format github


def test_the_workflow_signs_with_the_secret_it_names():
    scan = next(s for s in run_blocks() if s["name"] == "Scan")
    assert scan["env"]["ROFL_SIGN_KEY"] == "${{ secrets.ROFL_SIGN_KEY }}"
    assert "--sign-key ROFL_SIGN_KEY" in scan["run"]


@pytest.mark.slow
def test_the_workflow_steps_run(tmp_path):
    """The scan, audit and impact steps, run by bash as the runner would, on a clone of the shop with
    a key, rules and a baseline in ci/: the audit passes, the summary names the affected files."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "shop", repo)
    (repo / "ci").mkdir()
    shutil.copy(ROOT / "examples" / "ci" / "rules.rofl", repo / "ci" / "rofl-rules.rofl")
    shutil.copy(ROOT / "examples" / "ci" / "baseline.json", repo / "ci" / "rofl-baseline.json")
    env = {**os.environ, "PATH": f"{ROFL_BIN}{os.pathsep}{os.environ['PATH']}", "FACTS": "facts/generated"}
    env["GITHUB_STEP_SUMMARY"] = str(tmp_path / "summary.md")
    git = ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci"]
    subprocess.run(["rofl", "keygen", "--out", "ci/rofl-scan"], cwd=repo, env=env, check=True, capture_output=True)
    env["ROFL_SIGN_KEY"] = (repo / "ci" / "rofl-scan.key").read_text()
    (repo / "ci" / "rofl-scan.key").unlink()
    (repo / ".gitignore").write_text("facts/\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=repo, check=True)
    subprocess.run(["git", "update-ref", "refs/remotes/origin/main", "HEAD"], cwd=repo, check=True)
    money = repo / "src" / "domain" / "money.ts"
    money.write_text(money.read_text() + "// changed\n")
    steps = {s["name"]: s["run"].replace("${{ github.base_ref }}", "main") for s in run_blocks()}
    for name in ("Scan", "Audit (signature, rules, baseline)", "Impact of the change (job summary)"):
        done = subprocess.run(["bash", "-e", "-c", steps[name]], cwd=repo, env=env, capture_output=True, text=True)
        assert done.returncode == 0, (name, done.stdout, done.stderr)
    assert (repo / "facts" / "generated" / "manifest.sig").is_file()  # signed with the secret
    summary = (tmp_path / "summary.md").read_text()
    assert "## What this pull request affects" in summary and "src/domain/cart.ts" in summary
    # a new violation fails the audit step, with an annotation on its line
    (repo / "src" / "domain" / "leak.ts").write_text(
        'import { formatPrice } from "../ui/format";\nexport const f = formatPrice;\n'
    )
    index = repo / "src" / "domain" / "index.ts"
    index.write_text(index.read_text() + 'export * from "./leak";\n')
    subprocess.run(["bash", "-e", "-c", steps["Scan"]], cwd=repo, env=env, check=True, capture_output=True)
    done = subprocess.run(
        ["bash", "-e", "-c", steps["Audit (signature, rules, baseline)"]],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "::error file=src/domain/leak.ts,line=1,title=domain_not_to_ui (error)::"
        "the domain layer must not import the UI: src/domain/leak.ts -> src/ui/format.ts"
    ]


# -- --format github: escaping ---------------------------------------------------------------------------


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """Read a workflow command back as the runner does (actions/toolkit's escaping, undone)."""

    def unescape(text: str, prop: bool) -> str:
        pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else [])
        for code, ch in pairs:
            text = text.replace(code, ch)
        return text.replace("%25", "%")

    match = re.fullmatch(r"::(\w+)(?: ([^:]*))?::(.*)", line, re.S)
    assert match, line
    props = {}
    for part in (match.group(2) or "").split(","):
        if part:
            key, _, value = part.partition("=")
            props[key] = unescape(value, True)
    return match.group(1), props, unescape(match.group(3), False)


nasty = st.lists(st.sampled_from(list("ab%:,=\r\n /.") + ["%25", "%0A", "%3A", "::"]), max_size=12).map("".join)


@settings(max_examples=200, deadline=None)
@given(
    file=nasty,
    message=nasty,
    rule=nasty,
    target=nasty,
    line=st.integers(1, 10_000),
    severity=st.sampled_from(["error", "warn", "info"]),
)
def test_annotations_round_trip_githubs_escaping(file, message, rule, target, line, severity):
    finding = Finding(
        audit="violation",
        fact=None,
        file=file,
        line=line,
        message=message,
        rule=rule,
        severity=severity,
        source=file,
        target=target,
    )
    text = annotation(finding)
    assert "\n" not in text and "\r" not in text  # one command per line
    level, props, body = parse_command(text)
    assert level == {"error": "error", "warn": "warning", "info": "notice"}[severity]
    assert props == {"file": file, "line": str(line), "title": f"{rule} ({severity})"}
    assert body == f"{message}: {finding.text()}"


def test_format_github_annotates_each_finding_at_its_import(rofl, tmp_path):
    src, facts = tmp_path / "src", tmp_path / "facts"
    write_tree(src, MONOREPO)
    assert rofl("scan", src, "--out", facts)[0] == 0
    rules = tmp_path / "rules.rofl"
    rules.write_text("use(no_undeclared_packages).\nuse(no_orphans).\n")
    code, out, _ = rofl("audit", "--facts", facts, "--rules", rules, "--format", "github")
    lines = sorted(out.splitlines())
    assert code == 1
    assert "::error file=packages/element/src/render.ts,line=2,title=no_undeclared_packages (error)::" in "\n".join(
        lines
    )
    assert all(line.startswith(("::error ", "::warning ")) for line in lines)
    orphan = [parse_command(line) for line in lines if line.startswith("::warning")]
    assert ("warning", {"file": "packages/math/src/legacy.ts", "title": "no_orphans (warn)"}) in [
        (level, props) for level, props, _ in orphan
    ]
    code, _, err = rofl("audit", "--facts", facts, "--json", "--format", "github")
    assert code == 2 and "disagree" in err


# -- the pre-commit hook ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_pre_commit_hook_entry_runs(tmp_path):
    hooks = yaml.safe_load(HOOKS.read_text())
    hook = next(h for h in hooks if h["id"] == "rofl-audit")
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    files = re.compile(hook["files"])
    assert files.search("src/a.tsx") and files.search("packages/x/package.json") and not files.search("README.md")
    entry = hook["entry"].split()
    assert entry[:2] == ["python", "-m"]
    repo = tmp_path / "repo"
    write_tree(repo, MONOREPO)
    (repo / "rules.rofl").write_text("use(no_undeclared_packages).\n")
    command = [sys.executable, *entry[1:], "--rules", "rules.rofl"]
    done = subprocess.run(command, cwd=repo, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert "error no_undeclared_packages" in done.stdout and (repo / ".rofl" / "facts" / "manifest.json").is_file()
    subprocess.run([*command, "--write-baseline", "baseline.json"], cwd=repo, check=True, capture_output=True)
    done = subprocess.run([*command, "--baseline", "baseline.json"], cwd=repo, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((repo / "baseline.json").read_text())["format"] == 1

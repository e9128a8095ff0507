"""A server answers every question exactly as the command line does: for each call, the execution's result
(exit code, JSON answer, the stderr lines as warnings) or its failure (the one line, the exit code) is what
`rofl <command> --json` gives over the same scan."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from rofl.servers.executions import Executions, result_of
from rofl.servers.session import Session

from rofl.questions.jsonout import dumps
from tests.conftest import write_tree

from .conftest import rofl

TREE = {
    "package.json": '{"name": "root", "workspaces": ["packages/*"]}\n',
    "packages/core/package.json": '{"name": "core"}\n',
    "packages/core/a.ts": 'import { b } from "./b";\nexport const a = () => b;\n',
    "packages/core/b.ts": 'import { a } from "./a";\nimport type { T } from "./t";\nexport const b = () => a;\n',
    "packages/core/t.ts": "export type T = number;\n",
    "packages/app/package.json": '{"name": "app"}\n',
    "packages/app/main.ts": 'import { a } from "../core/a";\nimport { leaf } from "./leaf";\nexport const m = a() ?? leaf;\n',
    "packages/app/leaf.ts": "export const leaf = 1;\n",
    "layers.rofl": 'forbid("packages/core", "packages/app").\nforbid("packages/app", "packages/core").\n',
}
A, B, MAIN = "packages/core/a.ts", "packages/core/b.ts", "packages/app/main.ts"
HOLDS = f'dependency[code]("{MAIN}", "{A}")'
NOT_HOLDS = f'dependency[code]("{A}", "{MAIN}")'

# (command, JSON arguments, the command line's argv before --facts and --json); {src} is the scanned folder
CALLS = [
    ("ask", {"query": "dependency[code](A, B)"}, ["ask", "dependency[code](A, B)"]),
    ("ask", {"query": "in_cycle[code](F)", "why": [HOLDS]}, ["ask", "in_cycle[code](F)", "--why", HOLDS]),
    ("ask", {"query": 'in_cycle[code]("nowhere.ts")'}, ["ask", 'in_cycle[code]("nowhere.ts")']),
    ("ask", {"query": "depends_on[code](A, B)", "budget": 3}, ["ask", "depends_on[code](A, B)", "--budget", "3"]),
    ("ask", {"query": "dependency[code](A, B"}, ["ask", "dependency[code](A, B"]),
    ("ask", {"query": "no_such_relation[code](A)"}, ["ask", "no_such_relation[code](A)"]),
    ("why", {"fact": HOLDS}, ["why", HOLDS]),
    ("why", {"fact": NOT_HOLDS}, ["why", NOT_HOLDS]),
    ("why", {"fact": "dependency[code](A, B)"}, ["why", "dependency[code](A, B)"]),
    ("whynot", {"fact": NOT_HOLDS}, ["whynot", NOT_HOLDS]),
    ("whynot", {"fact": HOLDS}, ["whynot", HOLDS]),
    (
        "excise",
        {"fact": f'src_import[code]("{MAIN}", "../core/a")'},
        ["excise", f'src_import[code]("{MAIN}", "../core/a")'],
    ),
    ("relations", {}, ["relations"]),
    ("relations", {"budget": 1}, ["relations", "--budget", "1"]),
    ("impact", {"changed": [B]}, ["impact", "--changed", B]),
    (
        "impact",
        {"changed": [B], "runtime": True, "no_rescan": True},
        ["impact", "--changed", B, "--runtime", "--no-rescan"],
    ),
    ("cycles", {}, ["cycles"]),
    ("cycles", {"runtime": True}, ["cycles", "--runtime"]),
    ("cycles", {"format": "sarif"}, ["cycles", "--format", "sarif"]),
    ("summary", {}, ["summary"]),
    ("summary", {"top": 1, "leaves": True}, ["summary", "--top", "1", "--leaves"]),
    ("audit", {}, ["audit"]),
    ("audit", {"fail_on": "info"}, ["audit", "--fail-on", "info"]),
    ("audit", {"rules": ["{src}/layers.rofl"]}, ["audit", "--rules", "{src}/layers.rofl"]),
    (
        "audit",
        {"rules": ["{src}/layers.rofl"], "budget": 1},
        ["audit", "--rules", "{src}/layers.rofl", "--budget", "1"],
    ),
    ("audit", {"src": "{src}"}, ["audit", "--src", "{src}"]),
    ("audit", {"src": "{src}", "reextract": True}, ["audit", "--src", "{src}", "--reextract"]),
    ("audit", {"reextract": True}, ["audit", "--reextract"]),
    ("audit", {"format": "sarif"}, ["audit", "--format", "sarif"]),
    # after the in_cycle questions: the served kernel has evaluated in_cycle, the command line's has not
    ("export", {"relation": "dependency"}, ["export", "dependency", "--format", "json"]),
    ("export", {"relation": "depends_on"}, ["export", "depends_on", "--format", "json"]),
    ("export", {"relation": "src_file"}, ["export", "src_file", "--format", "json"]),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[Executions, Path]]:
    root = tmp_path_factory.mktemp("agree")
    src, facts = root / "src", root / "facts"
    write_tree(src, TREE)
    done = rofl("scan", str(src), "--out", str(facts))
    assert done.returncode == 0, done.stderr
    executions = Executions(Session(facts, src, pool=1), workers=1)
    yield executions, facts
    executions.shutdown()


def placed(value, src: Path):
    """``value`` with ``{src}`` in each text the scanned folder."""
    if isinstance(value, str):
        return value.replace("{src}", str(src))
    if isinstance(value, list):
        return [placed(v, src) for v in value]
    if isinstance(value, dict):
        return {k: placed(v, src) for k, v in value.items()}
    return value


@pytest.mark.parametrize("command, args, argv", CALLS, ids=[" ".join(c[2]) for c in CALLS])
def test_a_served_question_answers_what_the_command_line_prints(served, command, args, argv):
    executions, facts = served
    src = executions.session.src
    args, argv = placed(args, src), placed(argv, src)
    cli = rofl(*argv, "--facts", str(facts), *([] if command == "export" else ["--json"]))
    view = result_of(executions.start(command, args))
    said = [line for line in cli.stderr.splitlines() if line.strip()]
    if cli.returncode in (0, 1, 3):
        assert view["state"] == "succeeded", view
        result = view["result"]
        assert result["exit_code"] == cli.returncode
        output = json.loads(dumps(result["output"]))
        if command == "export":  # the answer carries the document `rofl export` writes, with its counts
            assert output["format"] == "json" and output["relation"] == args["relation"]
            output = json.loads(output["document"])
        assert output == json.loads(cli.stdout)
        assert result["stderr"] == said
    else:
        assert view["state"] == "failed", view
        assert (view["error"], view["code"]) == (said[-1], cli.returncode)


def test_every_served_command_is_a_question_and_every_tool_schema_an_answer_type():
    from rofl.servers import mcp
    from rofl.servers.commands import served

    from rofl.questions.registry import QUESTIONS

    assert set(served()) <= set(QUESTIONS)
    assert set(mcp.OUTPUTS) == set(mcp.TOOLS)
    for name in mcp.TOOLS:  # the schema is the answer type's: its title says which
        assert mcp.OUTPUTS[name]["title"] == f"rofl {name} answer", name

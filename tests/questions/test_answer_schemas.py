"""Every question's --json is its answer type's JSON: it validates against the schema derived from that type,
carries the type's version, and every field of the schema says what it means (the MCP tools' output schemas
are the same schemas, so an agent reads what the command line prints)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from rofl.questions.answer import json_schema
from rofl.questions.ask import AskAnswer
from rofl.questions.audit import AuditAnswer
from rofl.questions.cycles import CyclesAnswer
from rofl.questions.explain import ExciseAnswer, WhyAnswer, WhynotAnswer
from rofl.questions.export import ExportAnswer
from rofl.questions.impact import ImpactAnswer
from rofl.questions.relations import RelationsAnswer
from rofl.questions.report import ReportAnswer
from rofl.questions.scan import ScanAnswer
from rofl.questions.summary import SummaryAnswer

TYPES = (
    AskAnswer,
    AuditAnswer,
    CyclesAnswer,
    WhyAnswer,
    WhynotAnswer,
    ExciseAnswer,
    ExportAnswer,
    RelationsAnswer,
    ReportAnswer,
    ScanAnswer,
    SummaryAnswer,
    ImpactAnswer,
)


@pytest.fixture(scope="module")
def cyclic(tmp_path_factory):
    """A scanned tree with a cycle (a -> b -> a), a type-only import and a file no one imports."""
    from click.testing import CliRunner

    from rofl.cli import main

    root = tmp_path_factory.mktemp("answers")
    src = root / "src"
    src.mkdir()
    (src / "a.ts").write_text('import { b } from "./b";\nexport const a = () => b;\n')
    (src / "b.ts").write_text('import { a } from "./a";\nimport type { T } from "./t";\nexport const b = a;\n')
    (src / "t.ts").write_text("export type T = number;\n")
    (src / "lone.ts").write_text("export const lone = 1;\n")
    facts = root / "facts"
    assert CliRunner().invoke(main, ["scan", str(src), "--out", str(facts)]).exit_code == 0
    return src, facts


def described(schema: dict) -> list[str]:
    """The properties of ``schema`` (at any depth) that have no description."""
    missing, stack = [], [("", schema)]
    while stack:
        where, node = stack.pop()
        for name, prop in (node.get("properties") or {}).items():
            if "description" not in prop:
                missing.append(f"{where}.{name}")
            stack.append((f"{where}.{name}", prop))
        for key in ("items",):
            if isinstance(node.get(key), dict):
                stack.append((where + "[]", node[key]))
        stack.extend((f"{where}/$defs/{k}", v) for k, v in (node.get("$defs") or {}).items())
    return missing


@pytest.mark.parametrize("answer", TYPES, ids=lambda t: t.QUESTION)
def test_every_schema_is_valid_and_every_field_is_described(answer):
    schema = json_schema(answer)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert described(schema) == []
    assert schema["properties"]["version"]["const"] == answer.VERSION


@pytest.mark.parametrize(
    "answer, args",
    [
        (CyclesAnswer, ["cycles"]),
        (CyclesAnswer, ["cycles", "--runtime"]),
        (AuditAnswer, ["audit"]),
        (AskAnswer, ["ask", "dependency[code](A, B)"]),
        (
            AskAnswer,
            ["ask", 'in_cycle[code]("a.ts")', "--why", 'in_cycle[code]("a.ts")', "--whynot", 'in_cycle[code]("t.ts")'],
        ),
        (WhyAnswer, ["why", 'depends_on[code]("a.ts", "b.ts")']),
        (WhyAnswer, ["why", 'depends_on[code]("lone.ts", "a.ts")']),
        (WhynotAnswer, ["whynot", 'depends_on[code]("lone.ts", "a.ts")']),
        (RelationsAnswer, ["relations"]),
        (SummaryAnswer, ["summary", "--leaves"]),
        (ImpactAnswer, ["impact", "--changed", "b.ts"]),
        (ImpactAnswer, ["impact", "--changed", "t.ts", "--no-rescan", "--packages", "--runtime"]),
        (ImpactAnswer, ["impact", "--changed", "b.ts:b", "--symbols", "--tests"]),
    ],
)
def test_the_json_of_each_command_is_its_answer_type(rofl, cyclic, answer, args):
    _, facts = cyclic
    code, out, err = rofl(*args, "--facts", facts, "--json")
    assert code in (0, 1), err
    data = json.loads(out)
    assert data["version"] == answer.VERSION
    jsonschema.validate(data, json_schema(answer))

"""Rule fixture files (tests/rules/fixtures/*.txt): cases of input facts and the rows a relation must hold.

The format, in the style of sqlglot's optimizer fixtures::

    -- what the file covers (comment lines, free text)
    # relation: dependency[code]        the relation under test (a case may name its own)
    # preset: no_circular               optional: load rules/presets.rofl and state use(no_circular).
    # rules: presets                    optional: load rules/presets.rofl with no use(...) fact

    # title: a relative import is a dependency
    src_resolves[code]("src/a.ts", "./b", "src/b.ts").
    # expect:
    dependency[code]("src/a.ts", "src/b.ts").

A case is its title line, the input clauses (the scanner's [code] facts as a fact file holds them, which
the runner loads as the scanner; anything else, such as changed/1, use/1 or the pkg_* package.json
facts, as a user's --rules file) and, after ``# expect:``, every row the relation holds, as facts of
that relation (none: the relation holds nothing).  Rows are compared as canonical fact text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rofl.engine.clauses import Literal
from rofl.engine.kernel import Kernel
from rofl.engine.namespace import stored_name
from rofl.engine.parse import parse_program
from rofl.engine.terms import format_fact

from tests.conftest import BOOT, ROOT

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CODE_RULES = ROOT / "rules" / "code.rofl"
PRESETS = ROOT / "rules" / "presets.rofl"
SCANNER = "scanner"  # the identity the loader gives a scan's fact files (rofl.loading.kernel.SCANNER)
LOADER = "authority(code, scanner).\n"  # what the loader itself grants (rofl.loading.kernel.loader_facts)
BUDGET = 10**7
_DIRECTIVE = re.compile(r"^# (title|relation|preset|rules|expect):\s*(.*?)\s*$")
_RELATION = re.compile(r"^([a-z][A-Za-z0-9_]*)(?:\[([a-z][A-Za-z0-9_]*)\])?$")


class FixtureError(Exception):
    """A fixture file that does not follow the format: its path, line and what is wrong."""


@dataclass(frozen=True, slots=True)
class Case:
    """One case of a fixture file: where it is, its title, what it loads and the rows it expects."""

    path: Path
    line: int
    title: str
    relation: str
    perspective: str
    presets: bool
    use: str | None
    facts: str
    expected: str

    @property
    def name(self) -> str:
        """How a failure names the case: the fixture file (from the repository root when inside it) and the title."""
        try:
            where = self.path.relative_to(ROOT).as_posix()
        except ValueError:
            where = str(self.path)
        return f"{where}:{self.line}: {self.title}"


def _relation(text: str, path: Path, line: int) -> tuple[str, str]:
    match = _RELATION.match(text)
    if match is None:
        raise FixtureError(f"{path}:{line}: '# relation: {text}' is no relation; write name or name[perspective]")
    return match.group(1), match.group(2) or "main"


def read_cases(path: Path) -> list[Case]:
    """Every case of one fixture file, in order; a file breaking the format raises FixtureError."""
    relation: tuple[str, str] | None = None
    presets = False
    use: str | None = None
    cases: list[Case] = []
    current: dict | None = None

    def close() -> None:
        if current is None:
            return
        if current["expected"] is None:
            raise FixtureError(f"{path}:{current['line']}: case '{current['title']}' has no '# expect:' line")
        if current["relation"] is None:
            raise FixtureError(f"{path}:{current['line']}: case '{current['title']}' names no '# relation:'")
        rel, persp = current["relation"]
        cases.append(
            Case(
                path,
                current["line"],
                current["title"],
                rel,
                persp,
                presets,
                use,
                "".join(current["facts"]),
                "".join(current["expected"]),
            )
        )

    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(keepends=True), 1):
        directive = _DIRECTIVE.match(text.rstrip("\n"))
        if directive is None:
            if text.startswith("#"):
                raise FixtureError(f"{path}:{number}: unknown directive {text.strip()!r}")
            if current is None:
                if text.strip() and not text.lstrip().startswith("--"):
                    raise FixtureError(f"{path}:{number}: a clause before the first '# title:' line")
                continue
            current["expected" if current["expected"] is not None else "facts"].append(text)
            continue
        key, value = directive.groups()
        if key == "title":
            close()
            if not value:
                raise FixtureError(f"{path}:{number}: a case needs a title")
            current = {"line": number, "title": value, "relation": relation, "facts": [], "expected": None}
        elif key == "relation":
            if current is None:
                relation = _relation(value, path, number)
            else:
                current["relation"] = _relation(value, path, number)
        elif key in ("preset", "rules"):
            if current is not None:
                raise FixtureError(f"{path}:{number}: '# {key}:' belongs in the file's header, before any case")
            if key == "rules" and value != "presets":
                raise FixtureError(f"{path}:{number}: '# rules: {value}': only 'presets' can be loaded")
            presets = True
            use = value if key == "preset" else use
        else:  # expect
            if current is None or current["expected"] is not None:
                raise FixtureError(f"{path}:{number}: '# expect:' must follow a case's facts, once")
            current["expected"] = []
    close()
    if not cases:
        raise FixtureError(f"{path}: no case (a case starts with '# title:')")
    return cases


def all_cases(folder: Path = FIXTURES) -> list[Case]:
    """The cases of every fixture file in ``folder``, file by file in name order."""
    return [case for path in sorted(folder.glob("*.txt")) for case in read_cases(path)]


def expected_rows(case: Case) -> set[str]:
    """The canonical text of the rows the case expects; a row of another relation is a FixtureError."""
    rows = set()
    for clause in parse_program(case.expected, f"{case.name} (expected)"):
        head = clause.head
        if clause.body or (head.rel, head.persp) != (case.relation, case.perspective):
            raise FixtureError(
                f"{case.name}: expected row {head.rel}[{head.persp}] is no fact of {case.relation}[{case.perspective}]"
            )
        rows.add(format_fact(head.rel, head.persp, head.args))
    return rows


def input_facts(case: Case) -> list[Literal]:
    """The case's input facts, in order (a rule among them is a FixtureError: fixtures are facts in, rows out)."""
    clauses = parse_program(case.facts, case.name)
    for clause in clauses:
        if clause.body or clause.want:
            raise FixtureError(f"{case.name}: line {clause.line} of the case is a rule; a fixture states facts only")
    heads = [clause.head for clause in clauses]
    if case.use is not None:
        heads.append(Literal("use", "main", ((case.use,),)))
    return heads


def who_asserts(fact: Literal) -> str:
    """The scanner asserts the facts of [code] (as the loader gives a scan's fact files); the user the rest."""
    return SCANNER if fact.persp == "code" else "user"


def rules_kernel(presets: bool) -> Kernel:
    """boot.rofl, rules/code.rofl (and rules/presets.rofl) and the loader's grant of [code] to the scanner."""
    kernel = Kernel(BOOT, budget=BUDGET)
    sources: list[tuple] = [(CODE_RULES, None)]
    if presets:
        sources.append((PRESETS, None))
    sources.append(("<loader>", None, LOADER))
    kernel.load_sources(sources, evaluate_now=False)
    return kernel


def rows_on(kernel: Kernel, case: Case) -> set[str]:
    """The canonical text of every row the relation under test holds once the case's facts are asserted
    into ``kernel``; the kernel's base facts are as they were when this returns."""
    kept = {rel: set(kernel.rows(rel)) for rel in ("edb", "authority")}  # what an assert adds beside its fact
    added = [f for f in input_facts(case) if kernel.assert_fact(f.rel, f.persp, f.args, who=who_asserts(f))]
    try:
        result = kernel.evaluate(goals={stored_name(case.relation, case.perspective)})
        return {format_fact(case.relation, row[0], row[1:]) for row in result.rows(case.relation, case.perspective)}
    finally:
        for fact in added:
            kernel.retract(fact.rel, fact.persp, fact.args)
        for rel, rows in kept.items():
            for row in set(kernel.rows(rel)) - rows:
                kernel.retract(rel, row[0], row[1:])


class Kernels:
    """One kernel per rule set (code.rofl alone, or with the presets), reused from case to case: a case
    asserts its facts, asks, and retracts them (a fresh kernel per case answers the same: the slow test)."""

    def __init__(self) -> None:
        self._kernels: dict[bool, Kernel] = {}

    def rows(self, case: Case) -> set[str]:
        if case.presets not in self._kernels:
            self._kernels[case.presets] = rules_kernel(case.presets)
        return rows_on(self._kernels[case.presets], case)


def fresh_rows(case: Case) -> set[str]:
    """The rows of the relation under test on a kernel of its own, evaluated whole (no goals)."""
    kernel = rules_kernel(case.presets)
    facts = input_facts(case)
    for fact in facts:
        kernel.assert_fact(fact.rel, fact.persp, fact.args, who=who_asserts(fact))
    result = kernel.evaluate()
    return {format_fact(case.relation, row[0], row[1:]) for row in result.rows(case.relation, case.perspective)}


def compare(case: Case, actual: set[str]) -> None:
    """Fail, naming the fixture file, line and title, when the relation's rows are not the expected ones."""
    expected = expected_rows(case)
    if expected != actual:
        missing = "".join(f"\n  missing:    {r}" for r in sorted(expected - actual))
        extra = "".join(f"\n  unexpected: {r}" for r in sorted(actual - expected))
        raise AssertionError(f"{case.name}: {case.relation}[{case.perspective}] differs{missing}{extra}")

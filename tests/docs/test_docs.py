"""The documentation stays true: the README is the short page a user reads, every command has its line
there and its section in docs/commands.md, every design decision its line and its section, every relative
link (and its #anchor) leads somewhere, and ARCHITECTURE.md names every module of the tree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

README = ROOT / "README.md"
COMMANDS_DOC = ROOT / "docs" / "commands.md"
DECISIONS_DOC = ROOT / "docs" / "design-decisions.md"
# every page a user is sent to; each must exist, and every relative link in it must resolve
PAGES = [
    "README.md",
    "LIMITS.md",
    "ARCHITECTURE.md",
    "bench/README.md",
    "docs/commands.md",
    "docs/facts.md",
    "docs/language.md",
    "docs/adapters.md",
    "docs/design-decisions.md",
]
LINK = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def prose(text: str) -> str:
    """The text outside fenced code blocks and inline code (where brackets are no links)."""
    return re.sub(r"`[^`\n]*`", "", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: markup dropped, lower case, punctuation removed, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").replace("*", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every #anchor of a Markdown file's headings, duplicates numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    found = set()
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"#{1,6} (.*)", line)
        if heading:
            base = slug(heading.group(1).strip())
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: str) -> list[tuple[str, str]]:
    """(text, target) of every relative link on a page."""
    text = prose((ROOT / page).read_text(encoding="utf-8"))
    return [(t, target) for t, target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


def section(path: Path, heading: str) -> list[str]:
    """The lines of a `## heading` section, up to the next heading of level 2."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def test_the_readme_is_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 400


def test_the_readme_keeps_the_two_install_commands():
    install = section(README, "## Install: two commands")
    assert any(line.startswith("make scan ") for line in install)
    assert any(line.startswith("make test ") for line in install)


@pytest.mark.parametrize("page", PAGES)
def test_every_relative_link_resolves(page):
    base = (ROOT / page).parent
    broken = []
    for text, target in links(page):
        path, _, anchor = target.partition("#")
        file = (base / path).resolve() if path else ROOT / page
        if not file.exists():
            broken.append(f"[{text}]({target}): no file {path}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"[{text}]({target}): no heading #{anchor} in {file.relative_to(ROOT)}")
    assert not broken, f"{page}:\n" + "\n".join(broken)


def listed_commands(rofl) -> set[str]:
    code, out, _ = rofl("--help")
    assert code == 0
    block = out.split("Commands:", 1)[1]
    return set(re.findall(r"^  ([a-z]+)  ", block, re.M))


def test_every_command_has_its_line_in_the_readme_and_its_section_in_the_docs(rofl):
    commands = listed_commands(rofl)
    assert {"scan", "impact", "ask", "audit", "cycles", "mcp"} <= commands
    rows = [line for line in section(README, "## Commands") if line.startswith("| [")]
    in_readme = {name for row in rows for name in re.findall(r"`(\w+)`", row.split("](", 1)[0])}
    assert in_readme == commands, "the README's command table and `rofl --help` disagree"
    headings = {m for m in re.findall(r"^## (.*)$", COMMANDS_DOC.read_text(encoding="utf-8"), re.M)}
    documented = {name for heading in headings for name in re.findall(r"`rofl (\w+)`", heading)}
    assert commands <= documented, f"docs/commands.md has no section for {sorted(commands - documented)}"
    for row in rows:  # each line links to its section and shows a command one can run
        assert "](docs/commands.md#" in row, row
        assert re.search(r"\| `(echo .*\\\| )?rofl [a-z]+ .*` \|$", row), row


def test_every_design_decision_has_its_line_in_the_readme():
    titles = re.findall(r"^## (.*)$", DECISIONS_DOC.read_text(encoding="utf-8"), re.M)
    listed = re.findall(
        r"^- \[(.*)\]\(docs/design-decisions\.md#([^)]*)\)$", "\n".join(section(README, "## Design decisions")), re.M
    )
    assert [title for title, _ in listed] == titles
    assert all(anchor == slug(title) for title, anchor in listed)


def test_the_fact_table_lives_in_the_docs_and_the_readme_sends_readers_there():
    assert "| `src_file(Path, Hash12)` |" in (ROOT / "docs" / "facts.md").read_text(encoding="utf-8")
    assert "| `src_file(" not in README.read_text(encoding="utf-8")
    assert "(docs/facts.md)" in README.read_text(encoding="utf-8")


def modules() -> list[str]:
    found = []
    for top in ("engine", "scanner", "rofl", "adapters", "servers"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if path.name != "__init__.py" and "__pycache__" not in path.parts:
                found.append(path.relative_to(ROOT).as_posix())
    return found


def test_architecture_names_every_module():
    doc = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:engine|scanner|rofl|adapters|servers)/[\w/]+\.py)", doc))
    missing = [m for m in modules() if m not in named]
    assert not missing, f"ARCHITECTURE.md does not name {missing}: add each to its part's table"


@pytest.mark.parametrize(
    "heading, expected",
    [
        ("`rofl scan`", "rofl-scan"),
        ("`rofl save` and `--store FILE`", "rofl-save-and---store-file"),
        ("`=` binds through patterns only", "-binds-through-patterns-only"),
        ("Where to add …", "where-to-add-"),
        (
            "Dead exports and entry points (`unused_export`, `orphan`, `entry_glob`)",
            "dead-exports-and-entry-points-unused_export-orphan-entry_glob",
        ),
    ],
)
def test_slugs_are_githubs(heading, expected):
    assert slug(heading) == expected

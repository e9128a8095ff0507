"""The examples in examples/adapters, end to end: each world run by the command line over real inputs,
checked against an independent answer (git itself, rofl impact, the scanner, a plain walk)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys

import pytest
from rofl.adapters.event_time import normalise

from tests.conftest import EXAMPLES

HERE = EXAMPLES / "adapters"
PY = shlex.quote(sys.executable)


def example(name: str, *subs: tuple[str, str]) -> str:
    text = (HERE / name).read_text(encoding="utf-8")
    for old, new in subs:
        assert old in text, old
        text = text.replace(old, new)
    return text


def answers(out: str, *names: str) -> list[tuple]:
    return [tuple(a[n] for n in names) for a in json.loads(out)["answers"]]


def scan(rofl, src, out) -> None:
    code, _, err = rofl("scan", src, "--out", out)
    assert code == 0, err


def git(repo, *args, when: str | None = None, who: str = "Alice Adams"):
    env = {**os.environ, "GIT_AUTHOR_NAME": who, "GIT_AUTHOR_EMAIL": "a@example.com"}
    env.update({"GIT_COMMITTER_NAME": who, "GIT_COMMITTER_EMAIL": "a@example.com"})
    if when:
        env.update({"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when})
    return subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True, text=True).stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_who_should_review_this_change(adapter_env, rofl):
    repo = adapter_env / "repo"
    shutil.copytree(HERE / "app", repo / "app")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start", when="2026-01-10T09:00:00+02:00")
    with open(repo / "app/src/cart.ts", "a") as f:
        f.write("// a later change\n")
    git(repo, "commit", "-q", "-am", "cart", when="2026-03-05T17:30:00-05:00", who="Bob Brown")
    scan(rofl, repo / "app", "facts")
    world = example(
        "reviewers.rofl",
        ('"python3 examples/adapters/git_last_change.py"', json.dumps(f"{PY} {HERE / 'git_last_change.py'}")),
        ('source_root("examples/adapters/app")', f"source_root({json.dumps(str(repo / 'app'))})"),
    )
    (adapter_env / "reviewers.rofl").write_text(world)
    (adapter_env / "changed.rofl").write_text('changed("src/price.ts").\n')
    code, out, err = rofl(
        "ask", "reviewer(P, F, At)", "--facts", "facts", "reviewers.rofl", "changed.rofl", "--json", "--allow", "exec"
    )
    assert code == 0, err
    got = {f: (p, at) for p, f, at in answers(out, "P", "F", "At")}
    code, impact_out, _ = rofl("impact", "--facts", "facts", "--changed", "src/price.ts", "--json", "--no-rescan")
    assert set(got) == set(json.loads(impact_out)["files"])  # exactly rofl impact's files, the change included
    for f, (person, at) in got.items():  # against git itself, file by file
        name, date = git(repo / "app", "log", "-1", "--format=%an%x09%aI", "--", f).strip().split("\t")
        assert (person, at) == (name, normalise(date).text)
    assert got["src/cart.ts"] == ("Bob Brown", "2026-03-05T22:30:00.000Z")
    assert got["src/price.ts"] == ("Alice Adams", "2026-01-10T07:00:00.000Z")
    code, out, _ = rofl(
        "ask", "first_reviewer(P, F)", "--facts", "facts", "reviewers.rofl", "changed.rofl", "--allow", "exec"
    )
    assert out.strip() == 'P = "Bob Brown", F = "src/cart.ts"'


def test_affected_test_files_slowest_first(adapter_env, rofl):
    with sqlite3.connect(adapter_env / "test_durations.db") as db:
        db.executescript((HERE / "durations.sql").read_text())
        durations = dict(db.execute("SELECT file, ms FROM durations"))
    scan(rofl, HERE / "app", "facts")
    (adapter_env / "slow_tests.rofl").write_text(example("slow_tests.rofl"))
    for change in ("src/cart.ts", "src/price.ts", "src/report.ts"):
        (adapter_env / "changed.rofl").write_text(f'changed("{change}").\n')
        code, out, err = rofl(
            "ask",
            "test_to_run(O, F, Ms)",
            "--facts",
            "facts",
            "slow_tests.rofl",
            "changed.rofl",
            "--json",
            "--allow",
            "exec",
        )
        got = [f for _o, f in answers(out, "O", "F")] if code == 0 else []
        _, impact_out, _ = rofl("impact", "--facts", "facts", "--changed", change, "--json", "--no-rescan")
        touched = json.loads(impact_out)["files"]
        expect = sorted((f for f in touched if f in durations), key=lambda f: -durations[f])
        assert got == expect, (change, err)
    assert expect == []  # report.ts reaches no test


@pytest.mark.slow
def test_impact_across_a_repository_boundary(adapter_env, rofl):
    scan(rofl, HERE / "lib", "facts/lib")
    scan(rofl, HERE / "app", "facts/app")
    serve = f"{PY} -m rofl.cli serve --facts facts/lib {shlex.quote(str(HERE / 'library.rofl'))}"
    for change, expect in (
        ("src/round.ts", ["src/checkout.test.ts", "src/checkout.ts", "src/index.ts"]),
        ("src/parse.ts", []),  # reaches no file the package's entry exports
    ):
        world = example(
            "cross_repo.rofl",
            ('"rofl serve --facts facts/lib examples/adapters/library.rofl"', json.dumps(serve)),
            ('lib_changed("src/round.ts")', f'lib_changed("{change}")'),
        )
        (adapter_env / "cross.rofl").write_text(world)
        code, out, err = rofl(
            "ask", "cross_affected(F)", "--facts", "facts/app", "cross.rofl", "--json", "--allow", "exec"
        )
        assert [f for (f,) in answers(out, "F")] == expect, err
    (adapter_env / "cross.rofl").write_text(
        example("cross_repo.rofl", ('"rofl serve --facts facts/lib examples/adapters/library.rofl"', json.dumps(serve)))
    )
    code, out, _ = rofl(
        "why", 'cross_affected("src/index.ts")', "--facts", "facts/app", "cross.rofl", "--allow", "exec"
    )
    assert code == 0
    boundary = [line for line in out.splitlines() if line.lstrip().startswith("lib_entry_hit[lib]")]
    assert boundary and "answered by the world" in boundary[0] and "library.rofl" in boundary[0]


def test_the_seeds_tree_in_a_database(adapter_env, rofl):
    (adapter_env / "examples/adapters").mkdir(parents=True)
    with sqlite3.connect(adapter_env / "examples/adapters/shop.db") as db:
        db.executescript((HERE / "tree.sql").read_text())
        edges = db.execute("SELECT parent, id FROM tenants").fetchall()
    reached, todo = {"acme"}, ["acme"]
    while todo:  # a plain walk
        node = todo.pop()
        for parent, child in edges:
            if parent == node and child not in reached:
                reached.add(child)
                todo.append(child)
    code, out, err = rofl("ask", "reaches(T)", str(HERE / "tree.rofl"), "--json")
    assert {t for (t,) in answers(out, "T")} == reached
    assert json.loads(out)["wants"]["rounds"] == 4  # acme, then eu/us, then de/fr/ny, then berlin


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_scenario_3_gives_the_scanners_edges(adapter_env, rofl):
    scan(rofl, HERE / "app", "facts")
    code, out, _ = rofl("ask", "dependency[code](A, B)", "--facts", "facts", "--json")
    scanner = set(answers(out, "A", "B"))
    reachable, todo = {"src/index.ts"}, ["src/index.ts"]
    while todo:
        a = todo.pop()
        for x, b in scanner:
            if x == a and b not in reachable:
                reachable.add(b)
                todo.append(b)
    world = example(
        "scenario3.rofl",
        (
            '"node examples/adapters/deps.cjs examples/adapters/app"',
            json.dumps(f"node {HERE / 'deps.cjs'} {HERE / 'app'}"),
        ),
    )
    (adapter_env / "s3.rofl").write_text(world)
    code, out, err = rofl("ask", "edge(A, B)", "s3.rofl", "--json", "--allow", "exec")
    assert code == 0, err
    assert set(answers(out, "A", "B")) == {(a, b) for a, b in scanner if a in reachable}
    assert json.loads(out)["wants"]["rounds"] == 4  # a file a round: index, checkout/report, cart, price


ZOD = EXAMPLES.parent.parent / "corpora" / "zod" / "packages" / "zod" / "src"


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("node") is None or not (ZOD / "v4" / "index.ts").is_file(), reason="needs node and zod"
)
def test_scenario_3_on_real_code_gives_the_scanners_edges(adapter_env, rofl):
    scan(rofl, ZOD, "facts")
    code, out, _ = rofl("ask", "dependency[code](A, B)", "--facts", "facts", "--json")
    scanner = set(answers(out, "A", "B"))
    reachable, todo = {"v4/index.ts"}, ["v4/index.ts"]
    while todo:
        a = todo.pop()
        for x, b in scanner:
            if x == a and b not in reachable:
                reachable.add(b)
                todo.append(b)
    world = example(
        "scenario3.rofl",
        ('"node examples/adapters/deps.cjs examples/adapters/app"', json.dumps(f"node {HERE / 'deps.cjs'} {ZOD}")),
        ('needed("src/index.ts")', 'needed("v4/index.ts")'),
    )
    (adapter_env / "s3.rofl").write_text(world)
    code, out, err = rofl("ask", "edge(A, B)", "s3.rofl", "--json", "--allow", "exec")
    assert code == 0, err
    assert set(answers(out, "A", "B")) == {(a, b) for a, b in scanner if a in reachable}

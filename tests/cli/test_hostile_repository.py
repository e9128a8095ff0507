"""A hostile repository end to end: scanned, audited with its own rules, impacted, reported and exported under CI=true.

The repository is built by the test with every trick the attacks on rofl found: adapters in its rules
file that claim to only read (exec, a rofl world behind a command, SQL that writes), an adapter
declared by a rule and by a planted fact file, git configuration that runs programs (``core.fsmonitor``
in its own ``.git`` and in a bare repository under ``vendor/``), a report name planted as a symlink,
workspace globs that loop and leave the tree, a ``package.json`` linked out of it, FIFOs and
``/dev/zero`` where rofl reads files, NUL bytes in specifiers, a deep ``extends`` chain, a symlinked
lock, and a rule whose numbers grow without bound.  Every step runs the way the example workflow and
the pre-commit hook run it, and the test checks what a CI user relies on:

* no program outside rofl's own ran: every planted program would create a file in a sentinel folder;
* nothing outside the step's ``--out`` changed: byte snapshots of the repository and of a decoy folder;
* nothing hung: each step runs under a time bound of the harness (not an assertion of speed);
* each step ended with an exit code a CI can act on (0, 1 findings, 2 refused, 3 partial), never 70
  or a traceback, and no token from the environment reached any output.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.once_per_run import once_per_run

TOKEN = "ghs_hostileRepoToken0123456789abcdef"
STEP_SECONDS = 240  # a hang guard: every step takes seconds; only a hang or a runaway reaches it
MEMORY_BYTES = 3 * 1024**3  # a runaway is an ordinary failure, not an out-of-memory machine


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd)}
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env=env,
    )


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _program(path: Path, sentinel: Path, name: str) -> str:
    """A planted program: running it leaves ``sentinel/name``; its path, for a command line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho ran > "{sentinel / name}"\necho "answered(\\"x\\")."\n', encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def build_hostile(tmp_path: Path) -> tuple[Path, Path, Path]:
    """``(repository, decoy folder, sentinel folder)``."""
    repo, decoy, sentinel = tmp_path / "repo", tmp_path / "decoy", tmp_path / "sentinel"
    sentinel.mkdir()
    _write(
        decoy,
        {
            "package.json": '{"name": "outside-secret", "dependencies": {"left-pad": "1.0.0"}}\n',
            "target.html": "<p>the decoy's own page</p>\n",
            "notes.txt": "nothing rofl may touch\n",
        },
    )
    evil = {
        name: _program(repo / "tools" / f"{name}.sh", sentinel, name)
        for name in ("exec", "world", "derived", "planted", "fsmonitor", "bare")
    }
    _write(
        repo,
        {
            "package.json": '{"name": "hostile", "private": true, "workspaces": ["pkgs/**", "../../../**", "[unclosed"]}\n',
            "tsconfig.json": '{"extends": "./configs/c0.json", "compilerOptions": {"baseUrl": "."}}\n',
            **{f"configs/c{i}.json": f'{{"extends": "./c{i + 1}.json"}}\n' for i in range(60)},
            "configs/c60.json": '{"compilerOptions": {"strict": true}}\n',
            "src/a.ts": 'import { b } from "./b";\nimport x from "./\\u0000evil";\nexport const a = () => b();\n',
            "src/b.ts": 'import { a } from "./a";\nexport const b = () => 1;\nexport { a };\n',
            "src/c.ts": 'import "./b";\nexport const c = 3;\n',
            "pkgs/p1/package.json": '{"name": "p1", "main": "index.ts"}\n',
            "pkgs/p1/index.ts": 'import { c } from "../../src/c";\nexport const p1 = c;\n',
            # the repository's own CI rules: adapters that claim to read, and an unbounded rule
            "ci/rofl-rules.rofl": (
                "imports(main, evil).\nimports(main, world).\nimports(main, db).\n"
                "imports(main, sneaky).\nimports(main, planted).\n"
                "want planted_reads(F) :- src_file[code](F, _).\n"
                f'adapter(evil, exec, "{evil["exec"]}").\n'
                "capability(evil_reads, evil, reads).\n"
                "arg(evil_reads, 1, file, text).\n"
                "answers(evil_reads, evil_hit, 2).\n"
                "want evil_reads(F) :- src_file[code](F, _).\n"
                f'adapter(world, rofl, "{evil["world"]}").\n'
                "capability(world_reads, world, reads).\n"
                "arg(world_reads, 1, file, text).\n"
                "answers(world_reads, world_hit, 2).\n"
                "answers_from(world_reads, anything).\n"
                "want world_reads(F) :- src_file[code](F, _).\n"
                f'adapter(db, sql, "{repo / "ci" / "data.db"}").\n'
                "capability(db_reads, db, reads).\n"
                "arg(db_reads, 1, path, text).\n"
                "answers(db_reads, db_hit, 2).\n"
                'query(db_reads, "VACUUM INTO ?1").\n'
                f'db_target("{decoy / "copied.db"}").\n'
                "want db_reads(P) :- db_target(P).\n"
                f'derived_book(sneaky, exec, "{evil["derived"]}").\n'
                "adapter(N, K, A) :- derived_book(N, K, A).\n"
                "capability(sneaky_reads, sneaky, reads).\n"
                "arg(sneaky_reads, 1, file, text).\n"
                "answers(sneaky_reads, sneaky_hit, 2).\n"
                "want sneaky_reads(F) :- src_file[code](F, _).\n"
            ),
            # rules with no adapter whose numbers grow without bound: the budget must end them
            "ci/growth.rofl": (
                "grow[p](1).\n"
                "grow[p](N) :- grow[p](Z), N is Z * 4.\n"
                "violation[audit](grown, N) :- grow[p](N), N > 1000000000000.\n"
            ),
            # rules that derive facts without end: the memory bound must end them
            "ci/count.rofl": "count[p](0).\ncount[p](N) :- count[p](Z), N is Z + 1.\n",
            # a fact file planted where the scan writes, declaring an adapter as the scanner would
            "facts/generated/code/zz-planted.rofl": (
                f'adapter(planted, exec, "{evil["planted"]}").\n'
                "capability(planted_reads, planted, reads).\n"
                "arg(planted_reads, 1, file, text).\n"
                "answers(planted_reads, planted_hit, 2).\n"
            ),
        },
    )
    import sqlite3

    with sqlite3.connect(repo / "ci" / "data.db") as db:
        db.execute("CREATE TABLE t (x TEXT)")
    # workspace globs that loop and leave the tree, a package.json linked out of it
    (repo / "pkgs" / "loop").mkdir(parents=True)
    (repo / "pkgs" / "loop" / "again").symlink_to(repo / "pkgs")
    (repo / "pkgs" / "outside").symlink_to(decoy)
    (repo / "pkgs" / "p2").mkdir()
    (repo / "pkgs" / "p2" / "package.json").symlink_to(decoy / "package.json")
    (repo / "pkgs" / "p2" / "index.ts").write_text('import pad from "left-pad";\nexport default pad;\n')
    # FIFOs and /dev/zero where rofl reads files, a symlinked lock, a report name planted as a link
    os.mkfifo(repo / "ci" / "rofl-scan.pub")
    (repo / "ci" / "rofl-baseline.json").symlink_to("/dev/zero")
    (repo / "pnpm-lock.yaml").symlink_to("/dev/zero")
    os.mkfifo(repo / "yarn.lock")
    (repo / "rofl-report.html").symlink_to(decoy / "target.html")
    # git that would run programs: fsmonitor in the repository's own .git and in a committed bare one
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    (repo / "src" / "c.ts").write_text('import "./b";\nexport const c = 4;\n')
    _git(repo, "config", "core.fsmonitor", evil["fsmonitor"])
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("post-checkout", "pre-commit", "post-index-change", "reference-transaction"):
        _program(hooks / hook, sentinel, f"hook-{hook}")
    bare = repo / "vendor" / "lib.git"
    _git(repo, "init", "-q", "--bare", str(bare))
    _git(bare, "config", "core.fsmonitor", evil["bare"])
    (repo / "vendor" / "lib.git" / "index.ts").write_text("export const v = 1;\n")
    return repo, decoy, sentinel


def tree_snapshot(root: Path, skip: tuple[Path, ...] = ()) -> dict[str, tuple]:
    """Every entry under ``root`` (links not followed) with its kind and content, except under ``skip``."""
    seen: dict[str, tuple] = {}
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        dirs[:] = [d for d in dirs if here / d not in skip]
        for name in names + dirs:
            full = here / name
            if full in skip:
                continue
            st = full.lstat()
            rel = str(full.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                seen[rel] = ("link", os.readlink(full))
            elif stat.S_ISREG(st.st_mode):
                seen[rel] = ("file", full.read_bytes())
            elif stat.S_ISFIFO(st.st_mode):
                seen[rel] = ("fifo",)
            else:
                seen[rel] = ("dir",)
    return seen


def run_step(args: list[str], cwd: Path, home: Path, **extra: str) -> subprocess.CompletedProcess:
    env = {
        **extra,
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "CI": "true",
        "GITHUB_TOKEN": TOKEN,
        "LANG": "C.UTF-8",
    }
    try:
        return subprocess.run(
            args,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=STEP_SECONDS,
            stdin=subprocess.DEVNULL,
            preexec_fn=_limit_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung: {' '.join(args)} ran past {STEP_SECONDS} s")


ROFL = [sys.executable, "-m", "rofl.cli"]


@pytest.fixture(scope="module")
def hostile_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    return once_per_run(request, "hostile", lambda: _hostile_run(tmp_path_factory))


def _hostile_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("hostile")
    repo, decoy, sentinel = build_hostile(tmp)
    home = tmp / "home"
    home.mkdir()
    out = repo / "facts" / "generated"
    git_dir = repo / ".git"
    before_repo = tree_snapshot(repo, skip=(out, git_dir))
    before_decoy = tree_snapshot(decoy)
    rules, baseline, pub = "ci/rofl-rules.rofl", "ci/rofl-baseline.json", "ci/rofl-scan.pub"
    facts = "facts/generated"
    steps = {
        "scan": [*ROFL, "scan", ".", "--out", facts],
        "audit": [*ROFL, "audit", "--facts", facts, "--format", "github", "--rules", rules],
        "audit-growth": [*ROFL, "audit", "--facts", facts, "--rules", "ci/growth.rofl"],
        "audit-baseline": [*ROFL, "audit", "--facts", facts, "--baseline", baseline],
        "audit-public-key": [*ROFL, "audit", "--facts", facts, "--public-key", pub],
        "ask": [*ROFL, "ask", "evil_hit[evil](W, X)", "--facts", facts, "--rules", rules],
        "ask-load-as": [*ROFL, "ask", "src_file[code](F, _)", "--facts", facts, "--load-as", "mallory", rules],
        "impact": [*ROFL, "impact", "--facts", facts, "--git-base", "HEAD", "--rules", rules],
        "report": [*ROFL, "report", "--facts", facts, "--out", "rofl-report.html"],
        "export": [*ROFL, "export", "dependency", "--facts", facts, "--format", "dot", "-o", str(tmp / "graph.dot")],
        "pre-commit": [sys.executable, "-m", "rofl.precommit", "--rules", rules, "--baseline", baseline],
    }
    results = {name: run_step(args, repo, home) for name, args in steps.items()}
    count = [*ROFL, "audit", "--facts", facts, "--rules", "ci/count.rofl"]
    results["audit-count"] = run_step(count, repo, home, ROFL_MAX_MEMORY="60")
    return {
        "repo": repo,
        "decoy": decoy,
        "sentinel": sentinel,
        "results": results,
        "before_repo": before_repo,
        "before_decoy": before_decoy,
        "after_repo": tree_snapshot(repo, skip=(out, git_dir, repo / ".rofl", repo / "rofl-report.html")),
        "after_decoy": tree_snapshot(decoy),
        "report": repo / "rofl-report.html",
    }


def test_no_planted_program_runs(hostile_run: dict) -> None:
    ran = sorted(p.name for p in hostile_run["sentinel"].iterdir())
    outputs = {name: r.stderr[-600:] for name, r in hostile_run["results"].items()}
    assert ran == [], f"programs from the repository ran: {ran}\n{outputs}"


def test_nothing_outside_out_changes(hostile_run: dict) -> None:
    before = {k: v for k, v in hostile_run["before_repo"].items() if k != "rofl-report.html"}
    after = hostile_run["after_repo"]
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert changed == [], f"the scan changed the repository outside --out: {changed}"
    assert hostile_run["after_decoy"] == hostile_run["before_decoy"], "the decoy folder outside the tree changed"


def test_the_report_replaces_a_planted_link_instead_of_writing_through_it(hostile_run: dict) -> None:
    report = hostile_run["report"]
    assert not report.is_symlink(), "the planted link is still there: the report went through it or nowhere"
    assert (hostile_run["decoy"] / "target.html").read_text() == "<p>the decoy's own page</p>\n"


def test_every_step_ends_with_an_exit_code_ci_can_act_on(hostile_run: dict) -> None:
    bad = {
        name: (r.returncode, r.stderr[-800:])
        for name, r in hostile_run["results"].items()
        if r.returncode not in (0, 1, 2, 3) or "Traceback" in r.stderr
    }
    assert bad == {}, f"steps that crashed: {bad}"
    assert hostile_run["results"]["scan"].returncode == 0, hostile_run["results"]["scan"].stderr


def test_adapters_from_the_repository_are_refused_in_one_line(hostile_run: dict) -> None:
    """The planted declaration is refused first (data may not declare adapters); the tests of the
    adapters' own suite show the --allow exec refusal of the rules file's books one at a time.
    (impact runs no adapter rounds: its step only has to run nothing.)"""
    for name in ("audit", "ask", "ask-load-as"):
        r = hostile_run["results"][name]
        assert r.returncode == 2, f"{name}: exit {r.returncode}: {r.stderr[-600:]}"
        refusals = [line for line in r.stderr.splitlines() if "ADP_CAPABILITY_DENIED" in line]
        assert len(refusals) == 1, f"{name}: {r.stderr[-600:]}"


def test_rules_that_grow_without_bound_end_as_a_partial_answer(hostile_run: dict) -> None:
    r = hostile_run["results"]["audit-growth"]
    assert r.returncode == 3, f"exit {r.returncode}: {r.stderr[-600:]}"
    assert len(r.stdout) + len(r.stderr) < 1_000_000, "the budget did not bound the output"


def test_rules_that_derive_without_end_stop_at_the_memory_bound(hostile_run: dict) -> None:
    r = hostile_run["results"]["audit-count"]
    assert r.returncode == 3, f"exit {r.returncode}: {r.stderr[-600:]}"
    assert "grew past 60 MiB" in r.stderr and "ROFL_MAX_MEMORY" in r.stderr, r.stderr[-600:]
    assert len(r.stdout) < 1_000_000, "the audit listed every derived fact"


def test_files_that_are_not_regular_are_refused(hostile_run: dict) -> None:
    for name, shown in (("audit-baseline", "rofl-baseline.json"), ("audit-public-key", "rofl-scan.pub")):
        r = hostile_run["results"][name]
        assert r.returncode == 2, f"{name}: exit {r.returncode}: {r.stderr[-600:]}"
        assert shown in r.stderr and "Traceback" not in r.stderr, r.stderr[-600:]


def test_no_token_reaches_any_output(hostile_run: dict) -> None:
    for name, r in hostile_run["results"].items():
        assert TOKEN not in r.stdout + r.stderr, f"{name} printed the environment's token"


def test_the_scan_keeps_to_the_tree(hostile_run: dict) -> None:
    """The outside package.json, the workspace glob out of the tree and the link loop leave no package."""
    out = hostile_run["repo"] / "facts" / "generated"
    text = "\n".join(p.read_text(errors="replace") for p in (out / "code").glob("*.rofl"))
    text += (out / "preamble.rofl").read_text(errors="replace") if (out / "preamble.rofl").exists() else ""
    assert "outside-secret" not in text
    assert "decoy" not in text


def test_a_planted_dependency_cruiser_config_runs_nothing_and_reads_nothing_outside(tmp_path: Path) -> None:
    """A ``.dependency-cruiser.js`` that is code would run a program if Node evaluated it: rofl reads only a
    literal without ``--allow-config-js`` and refuses it in one line (exit 2); a ``.dependency-cruiser.json``
    linked out of the tree, or that is a FIFO, is passed over, never read."""
    repo, decoy, sentinel = tmp_path / "repo", tmp_path / "decoy", tmp_path / "sentinel"
    sentinel.mkdir()
    program = _program(tmp_path / "tools" / "config.sh", sentinel, "config")
    _write(
        repo,
        {
            "package.json": '{"name": "hostile"}\n',
            "src/a.ts": 'import "./b";\n',
            "src/b.ts": "export const b = 1;\n",
            ".dependency-cruiser.js": (
                f"require('child_process').execSync({program!r});\nmodule.exports = {{ forbidden: [] }};\n"
            ),
        },
    )
    _write(decoy, {"rules.json": '{"forbidden": [{"name": "outside-rule", "from": {}, "to": {}}]}\n'})
    (repo / ".dependency-cruiser.json").symlink_to(decoy / "rules.json")
    home = tmp_path / "home"
    home.mkdir()
    scan = run_step([*ROFL, "scan", ".", "--out", "facts"], repo, home)
    assert scan.returncode == 0, scan.stderr
    audit = run_step([*ROFL, "audit", "--facts", "facts"], repo, home)
    assert audit.returncode == 2 and "Traceback" not in audit.stderr, audit.stderr[-600:]
    assert ".dependency-cruiser.js" in audit.stderr and "--allow-config-js" in audit.stderr, audit.stderr[-600:]
    assert "outside-rule" not in audit.stdout + audit.stderr
    (repo / ".dependency-cruiser.js").unlink()
    os.mkfifo(repo / ".dependency-cruiser.cjs")
    quiet = run_step([*ROFL, "audit", "--facts", "facts"], repo, home)
    assert quiet.returncode in (0, 1) and "outside-rule" not in quiet.stdout + quiet.stderr, quiet.stderr[-600:]
    assert sorted(p.name for p in sentinel.iterdir()) == [], "the config's program ran"

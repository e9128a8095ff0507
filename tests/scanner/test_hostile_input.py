"""Hostile input (issue 9): specifiers, file names, config files, deep syntax and special files never abort a scan.

Each case: exit 0 (no traceback), every fact file parses, the other files keep their facts, and the
bad input has a clear finding (``src_unresolved_reason``, ``src_config_error``, ``src_parse_error``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from rofl.scanner import configs

from tests.scanner.conftest import rel, run_scan, scan_json
from tests.scanner.hostile import CLEAN, facts_by_file, files_outside, make_tree, no_hang

NEEDS_LINUX = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="FIFOs, /dev/zero and O_NOFOLLOW as on Linux"
)


def all_facts(out: Path) -> set[tuple]:
    found: set[tuple] = set()
    for facts in facts_by_file(out).values():
        found |= {(f[0], *f[2:]) for f in facts}
    return found


def clean_facts_intact(out: Path, clean_out: Path) -> None:
    """The clean files' facts in ``out`` equal those of a scan of the clean corpus alone."""
    mine, clean = facts_by_file(out), facts_by_file(clean_out)
    for path in ("src/a.ts", "src/b.ts", "src/c.ts"):
        assert mine[path] == clean[path], path


@pytest.fixture
def clean_out(tmp_path: Path) -> Path:
    src = make_tree(tmp_path / "clean", CLEAN)
    scan_json(src, tmp_path / "clean-out")
    return tmp_path / "clean-out"


# -- specifiers -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("literal", "reason"),
    [
        (r'"./x\0y"', "NUL"),
        (r'"./j\u{D800}x"', "lone surrogate (U+D800)"),
        (r'"./j\uDFFFx"', "lone surrogate (U+DFFF)"),
        ('"./' + "a" * 5000 + '"', "over the 4096"),
    ],
)
def test_specifier_that_names_no_file_is_unresolved_with_its_reason(tmp_path, clean_out, literal, reason):
    src = make_tree(tmp_path / "src", {**CLEAN, "src/bad.js": f"import q from {literal};\nexport const z = 1;\n"})
    out = tmp_path / "out"
    first = scan_json(src, out)
    assert first["errors"] == 0
    facts = all_facts(out)
    (spec,) = [s for f, s in rel(facts, "src_unresolved") if f == "src/bad.js"]
    reasons = {r for f, s, r in rel(facts, "src_unresolved_reason") if (f, s) == ("src/bad.js", spec)}
    assert len(reasons) == 1 and reason in reasons.pop()
    assert ("src/bad.js", "z") in rel(facts, "src_export")
    clean_facts_intact(out, clean_out)
    again = scan_json(src, out)  # and every later rescan works too
    assert again["parsed"] == 0


def test_control_characters_in_specifiers_reach_facts_escaped(tmp_path):
    src = make_tree(tmp_path / "src", {"a.js": 'import "./k\\x01z\\n\\u001b[2J";\nimport "./\\u202Eevil";\n'})
    out = tmp_path / "out"
    scan_json(src, out)
    specs = {s for _, s in rel(all_facts(out), "src_unresolved")}
    assert specs == {"./k\x01z\n\x1b[2J", "./\u202eevil"}
    for entry in json.loads((out / "manifest.json").read_text())["files"].values():
        assert b"\x1b" not in (out / entry["facts"]).read_bytes()  # escaped in the fact text


def test_config_values_with_nul_and_surrogates_resolve_nothing_and_break_nothing(tmp_path, clean_out):
    tsconfig = {
        "extends": "./base\u0000.json",
        "compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"], "x/*": ["lib\u0000/*"], "y": ["\ud800"]}},
    }
    files = {
        **CLEAN,
        "tsconfig.json": json.dumps(tsconfig),
        "src/p.ts": 'import "x/q";\nimport "y";\nimport "#i";\n',
        "package.json": json.dumps({"name": "clean", "imports": {"#i": "./\u0000.js"}, "exports": "./\ud800"}),
    }
    src = make_tree(tmp_path / "src", files)
    out = tmp_path / "out"
    scan_json(src, out)
    facts = all_facts(out)
    assert not {s for f, s, _ in rel(facts, "src_resolves") if f == "src/p.ts"}
    assert "#i" in {s for f, s in rel(facts, "src_unresolved") if f == "src/p.ts"}
    clean_facts_intact(out, clean_out)
    assert scan_json(src, out)["parsed"] == 0


# -- file names -------------------------------------------------------------------------------------


NAMES = [
    "new\nline.ts",
    "tab\tand\rcr.ts",
    'quote"back\\slash.ts',
    "-leading-dash.ts",
    "esc\x1b[31mred.ts",
    "affected: forged.ts",
    "\u202eright-to-left.ts",
]


@pytest.mark.parametrize("name", NAMES)
def test_hostile_file_names_scan_and_load(tmp_path, clean_out, name):
    src = make_tree(tmp_path / "src", {**CLEAN, f"src/{name}": 'import { b } from "./b";\nexport const n = b;\n'})
    out = tmp_path / "out"
    summary = scan_json(src, out)
    assert summary["errors"] == 0
    facts = all_facts(out)
    assert (f"src/{name}", "./b", "src/b.ts") in rel(facts, "src_resolves")
    clean_facts_intact(out, clean_out)


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses file names that are not UTF-8")
def test_file_name_that_is_not_utf8(tmp_path, clean_out):
    src = make_tree(tmp_path / "src", CLEAN)
    raw = os.fsencode(str(src / "src")) + b"/bad\xff\xfename.ts"
    with open(raw, "wb") as handle:
        handle.write(b'import { c } from "./c";\nexport const bad = c;\n')
    out = tmp_path / "out"
    summary = scan_json(src, out)
    assert summary["errors"] == 0
    name = "src/" + os.fsdecode(b"bad\xff\xfename.ts")
    assert (name, "./c", "src/c.ts") in rel(all_facts(out), "src_resolves")
    clean_facts_intact(out, clean_out)
    assert scan_json(src, out)["parsed"] == 0


def test_impact_text_cannot_be_spoofed_by_a_file_name(tmp_path):
    from click.testing import CliRunner

    from rofl.commands.impact import command

    name = "src/x.ts\naffected: src/forged.ts\n  via src/forged.ts"
    src = make_tree(tmp_path / "src", {**CLEAN, name: 'import { b } from "./b";\n'})
    out = tmp_path / "out"
    scan_json(src, out)
    result = CliRunner().invoke(command, ["--facts", str(out), "--changed", "src/b.ts"])
    assert result.exit_code == 0, result.output
    assert "forged" not in "".join(line for line in result.output.splitlines() if not line.count("\\n"))
    assert not any(line.startswith("affected: src/forged.ts") for line in result.output.splitlines())


# -- config files -----------------------------------------------------------------------------------


@pytest.mark.parametrize("config", ["package.json", "tsconfig.json", "src/tsconfig.json"])
def test_config_nested_100000_deep_is_a_config_error(tmp_path, clean_out, config):
    deep = "[" * 100_000 + "]" * 100_000
    files = {**CLEAN, config: '{"name": "x", "compilerOptions": ' + deep + "}"}
    if config == "src/tsconfig.json":
        files["src/tsconfig.json"] = '{"extends": "./deep.json"}'
        files["src/deep.json"] = '{"compilerOptions": ' + deep + "}"
    src = make_tree(tmp_path / "src", files)
    out = tmp_path / "out"
    with no_hang():
        scan_json(src, out)
    text = "".join(
        (out / e["facts"]).read_text() for e in json.loads((out / "manifest.json").read_text())["files"].values()
    )
    text += (out / "entries.rofl").read_text()
    assert "src_config_error[code](" in text and "nested 100001 levels deep" in text
    if config == "package.json":  # a broken tsconfig governing src/ changes what src/a.ts resolves
        clean_facts_intact(out, clean_out)


def test_config_error_messages(tmp_path):
    store = configs.ConfigStore(str(tmp_path))
    (tmp_path / "bad.json").write_text("{nope")
    (tmp_path / "big.json").write_bytes(b" " * (configs.MAX_CONFIG_BYTES + 1))
    (tmp_path / "latin.json").write_bytes(b'{"a": "\xff"}')
    assert store.read(str(tmp_path / "bad.json")) is None
    assert store.read(str(tmp_path / "big.json")) is None
    assert store.read(str(tmp_path / "latin.json")) is None
    assert store.read(str(tmp_path / "missing.json")) is None
    assert set(store.errors) == {"bad.json", "big.json", "latin.json"}
    assert "not valid JSON" in store.errors["bad.json"]
    assert "over the" in store.errors["big.json"]
    assert "UTF-8" in store.errors["latin.json"]


@NEEDS_LINUX
@pytest.mark.parametrize("where", ["tsconfig.json", "src/tsconfig.json", "package.json", "src/base.json"])
def test_config_that_is_a_fifo_or_dev_zero_does_not_hang_or_grow(tmp_path, clean_out, where):
    files = {**CLEAN, "src/tsconfig.json": '{"extends": "./base.json"}', "src/base.json": "{}"}
    if where == "tsconfig.json":  # the one that governs src/
        del files["src/tsconfig.json"], files["src/base.json"]
    src = make_tree(tmp_path / "src", files)
    for kind in ("fifo", "zero"):
        target = src / where
        target.unlink()
        if kind == "fifo":
            os.mkfifo(target)
        else:
            target.symlink_to("/dev/zero")
        out = tmp_path / f"out-{kind}"
        with no_hang():
            scan_json(src, out)
        facts = all_facts(out)
        errors = rel(facts, "src_config_error") | rel(_entries_facts(out), "src_config_error")
        assert (where, "not a regular file (FIFO, device or socket), not read") in errors
        assert scan_json(src, out)["parsed"] == 0  # the rescan does not open it either


def _entries_facts(out: Path) -> set[tuple]:
    from tests.scanner.conftest import parse_fact_file

    return {(f[0], *f[2:]) for f in parse_fact_file(out / "entries.rofl")}


# -- deep syntax ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("f" + "()" * 65_536 + ";\n", "nested more than"),
        ("f" + "()" * 70_000 + ";\n", "nested more than"),
        ("f" + "()" * 100_000 + ";\n", "nested more than"),
        ("x = " + "[" * 100_000 + "]" * 100_000 + ";\n", "nested more than"),
        ("x = " + "[" * 100_000 + ";\n", "a syntax error spanning"),
        ("a.b(" * 30_000 + ")" * 30_000 + ";\n", "nested more than"),
    ],
    ids=[
        "call-chain-65536",
        "call-chain-70000",
        "call-chain-100000",
        "brackets-100000",
        "unclosed-100000",
        "member-calls-30000",
    ],
)
def test_deep_syntax_is_fast_and_reported_never_silently_dropped(tmp_path, clean_out, text, why):
    src = make_tree(tmp_path / "src", {**CLEAN, "src/deep.js": text})
    out = tmp_path / "out"
    with no_hang():
        summary = scan_json(src, out, "--jobs", "1")
    assert summary["errors"] == 1
    deep = facts_by_file(out)["src/deep.js"]
    errors = [f[3] for f in deep if f[0] == "src_parse_error"]
    assert len(errors) == 1 and why in errors[0] and errors[0].endswith("not extracted")
    assert {f[0] for f in deep} <= {"src_file", "src_in_dir", "src_parse_error"}  # no partial facts
    clean_facts_intact(out, clean_out)


def test_call_chain_below_the_bound_keeps_every_call(tmp_path):
    src = make_tree(tmp_path / "src", {"a.js": "function g() { " + "f()" + "()" * 3000 + "; h(); }\n"})
    out = tmp_path / "out"
    scan_json(src, out)
    assert {("a.js", "g", "f"), ("a.js", "g", "h")} <= rel(all_facts(out), "src_call")


# -- special files in the source tree ----------------------------------------------------------------


@NEEDS_LINUX
def test_special_files_and_links_in_the_tree(tmp_path, clean_out):
    src = make_tree(tmp_path / "src", CLEAN)
    outside = make_tree(tmp_path / "outside", {"secret.ts": "export const secret = 1;\n"})
    os.mkfifo(src / "src" / "pipe.ts")
    (src / "src" / "zero.ts").symlink_to("/dev/zero")
    (src / "src" / "null.js").symlink_to("/dev/null")
    (src / "src" / "loop").symlink_to(src / "src")
    (src / "src" / "self.ts").symlink_to(src / "src" / "self.ts")
    (src / "src" / "out.ts").symlink_to(outside / "secret.ts")
    (src / "src" / "outdir").symlink_to(outside)
    (src / "src" / "imports.ts").write_text(
        'import "./pipe";\nimport "./zero";\nimport "./out";\nimport "./outdir/secret";\n'
    )
    out = tmp_path / "out"
    before = files_outside(tmp_path, out)
    with no_hang():
        summary = scan_json(src, out)
    assert files_outside(tmp_path, out) == before  # nothing written through a link
    paths = set(json.loads((out / "manifest.json").read_text())["files"])
    assert paths == {"src/a.ts", "src/b.ts", "src/c.ts", "src/imports.ts"}
    # each special file named like a source is a clear finding, never opened or followed
    assert rel(_entries_facts(out), "src_parse_error") == {
        ("src/pipe.ts", "line 1: cannot read: a FIFO, not a regular file, not read"),
        ("src/zero.ts", "line 1: cannot read: a symlink to a file outside SRC, not followed"),
        ("src/null.js", "line 1: cannot read: a symlink to a file outside SRC, not followed"),
        ("src/self.ts", "line 1: cannot read: a symlink loop, not followed"),
        ("src/out.ts", "line 1: cannot read: a symlink to a file outside SRC, not followed"),
    }
    assert summary["errors"] == 5 and len(summary["unreadable"]) == 5
    facts = all_facts(out)
    assert not any("secret" in str(t) for t in rel(facts, "src_resolves"))
    clean_facts_intact(out, clean_out)
    assert scan_json(src, out)["parsed"] == 0
    (src / "src" / "pipe.ts").unlink()  # gone: so is its finding
    (src / "src" / "self.ts").unlink()
    scan_json(src, out)
    assert {f[0] for f in rel(_entries_facts(out), "src_parse_error")} == {"src/zero.ts", "src/null.js", "src/out.ts"}


@NEEDS_LINUX
def test_a_device_named_like_a_source_inside_the_tree(tmp_path, clean_out):
    """A link to a device is refused as a link out of SRC; a device node itself (here a socket, which
    anyone may create) is refused as what it is."""
    import socket

    src = make_tree(tmp_path / "src", CLEAN)
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(src / "src" / "sock.ts"))
        with no_hang():
            summary = scan_json(src, tmp_path / "out")
    assert ("src/sock.ts", "line 1: cannot read: a socket, not a regular file, not read") in rel(
        _entries_facts(tmp_path / "out"), "src_parse_error"
    )
    assert summary["errors"] == 1
    clean_facts_intact(tmp_path / "out", clean_out)


def test_oversized_file_is_hashed_not_held(tmp_path, clean_out):
    src = make_tree(tmp_path / "src", {**CLEAN, "src/huge.js": "x;" * 600_000})
    out = tmp_path / "out"
    summary = scan_json(src, out, "--max-bytes", "100000")
    assert summary["skipped"] == 1
    (error,) = [f[3] for f in facts_by_file(out)["src/huge.js"] if f[0] == "src_parse_error"]
    assert "over the 100000-byte limit" in error
    clean_facts_intact(out, clean_out)


def test_nothing_is_written_outside_out(tmp_path):
    src = make_tree(tmp_path / "src", {**CLEAN, "src/x.js": 'import "./\\0";\n'})
    before = files_outside(tmp_path, tmp_path / "out")
    scan_json(src, tmp_path / "out")
    assert files_outside(tmp_path, tmp_path / "out") == before


def test_scan_summary_paths_are_escaped(tmp_path, monkeypatch):
    from rofl.scanner import materialize

    src = make_tree(tmp_path / "src", {"a\x1b[2Jb.ts": "export const a = 1;\n"})
    real = materialize.read_source

    def refuse(full: str, *rest):
        if "\x1b" in full:
            raise PermissionError(13, "Permission denied", full)
        return real(full, *rest)

    monkeypatch.setattr(materialize, "read_source", refuse)
    run = run_scan(src, tmp_path / "out")
    assert run.exit_code == 0
    assert "\x1b" not in run.stderr and "\\u001b" in run.stderr
    # the unreadable file is a src_parse_error in entries.rofl (it has no fact file of its own)
    assert ("src_parse_error", "a\x1b[2Jb.ts", "line 1: cannot read: Permission denied") in _entries_facts(
        tmp_path / "out"
    )
    monkeypatch.undo()
    scan_json(src, tmp_path / "out")  # readable again: the finding goes
    assert not rel(_entries_facts(tmp_path / "out"), "src_parse_error")


@NEEDS_LINUX
def test_folder_package_json_linked_to_dev_zero(tmp_path, clean_out):
    src = make_tree(
        tmp_path / "src", {**CLEAN, "src/dir/index.ts": "export const i = 1;\n", "src/u.ts": 'import "./dir";\n'}
    )
    (src / "src" / "dir" / "package.json").symlink_to("/dev/zero")
    out = tmp_path / "out"
    with no_hang():
        scan_json(src, out)
    facts = all_facts(out)
    assert ("src/u.ts", "./dir", "src/dir/index.ts") in rel(facts, "src_resolves")  # the folder's index still answers
    assert ("src/dir/package.json", "not a regular file (FIFO, device or socket), not read") in rel(
        facts, "src_config_error"
    )
    clean_facts_intact(out, clean_out)


# -- memory ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_file_that_could_exhaust_memory_is_refused_and_retried(tmp_path, clean_out, monkeypatch):
    """Peak memory is bounded by PEAK_FACTOR times the largest file parsed: a file whose bound exceeds
    the memory free is not parsed (a clear finding, no facts lost elsewhere) and is tried again next
    scan, even when nothing changed."""
    from rofl.scanner import materialize

    big = "export function f() { return g(); }\n" * ((materialize.GUARDED_FROM // 36) + 1)
    src = make_tree(tmp_path / "src", {**CLEAN, "src/big.js": big})
    out = tmp_path / "out"
    free = len(big) * materialize.PEAK_FACTOR - 1
    monkeypatch.setattr(materialize, "memory_available", lambda: free)
    summary = scan_json(src, out, "--jobs", "1")
    assert (summary["skipped"], summary["errors"]) == (1, 1)
    (error,) = [f[3] for f in facts_by_file(out)["src/big.js"] if f[0] == "src_parse_error"]
    assert error == materialize.memory_refusal(len(big), free)
    assert f"more than the {free >> 20} MiB of memory free" in error and "retried on the next scan" in error
    clean_facts_intact(out, clean_out)
    assert scan_json(src, out, "--jobs", "1")["parsed"] == 0  # still short of memory: refused again
    monkeypatch.setattr(materialize, "memory_available", lambda: free + 1)
    summary = scan_json(src, out, "--jobs", "1")  # nothing changed in the tree, yet it is retried
    assert (summary["parsed"], summary["errors"]) == (1, 0)
    assert ("src/big.js", "f", "g") in rel(all_facts(out), "src_call")
    assert scan_json(src, out, "--jobs", "1")["parsed"] == 0  # and then reused like any other


def test_small_files_are_never_refused_for_memory():
    from rofl.scanner.materialize import GUARDED_FROM, memory_refusal

    assert memory_refusal(GUARDED_FROM - 1, 0) is None
    assert memory_refusal(GUARDED_FROM, None) is None  # the system says nothing: parsed
    assert memory_refusal(GUARDED_FROM, 0) is not None


@NEEDS_LINUX
def test_memory_available_sees_an_address_space_limit():
    import subprocess

    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.RLIM_INFINITY)); "
        "from scanner.materialize import memory_available; print(memory_available())"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True)
    assert 0 < int(done.stdout) < 3 << 30

"""Bad input never stops a scan: syntax errors, bad bytes, big or unreadable files, odd paths and specifiers."""

from __future__ import annotations

import os

from rofl.scanner import materialize

from tests.scanner.conftest import load_manifest, parse_fact_file, read_facts, rel, run_scan, scan_json


def facts_of(facts, path):
    return {f for f in facts if f[1] == path}


def test_syntax_errors_keep_recovered_facts_and_name_the_line(repo, out):
    src = repo(
        {"bad.ts": "export function ok() {}\nlet x = (1;\nexport const y = 2;\n", "good.ts": "export const g = 1;\n"}
    )
    summary = scan_json(src, out)
    assert (summary["parsed"], summary["errors"]) == (2, 1)
    facts = read_facts(out)
    assert ("bad.ts", "ok", 1) in rel(facts, "src_func")
    assert ("bad.ts", "ok") in rel(facts, "src_export")
    errors = rel(facts, "src_parse_error")
    assert errors and all(p == "bad.ts" for p, _ in errors)
    assert any(m.startswith("line 2: ") for _, m in errors), errors
    assert ("good.ts", "g") in rel(facts, "src_export")


def refused_only(facts, path):
    kinds = {f[0] for f in facts_of(facts, path)}
    return kinds == {"src_file", "src_in_dir", "src_parse_error"}


def test_invalid_utf8_binary_and_oversized_files_get_only_an_error(repo, out):
    src = repo(
        {
            "latin1.js": b"const a = 1;\nconst s = '\xe9t\xe9';\n",
            "blob.js": b"\x7fELF\x00\x01\x02import './x';",
            "big.js": "export const big = 1;\n" + "// padding\n" * 20,
            "fine.js": "export const fine = 1;\n",
        }
    )
    summary = scan_json(src, out, "--max-bytes", "200")
    assert (summary["files"], summary["parsed"], summary["skipped"], summary["errors"]) == (4, 1, 3, 3)
    facts = read_facts(out)
    for path in ("latin1.js", "blob.js", "big.js"):
        assert refused_only(facts, path), facts_of(facts, path)
    messages = dict(rel(facts, "src_parse_error"))
    assert messages["latin1.js"].startswith("line 2: not valid UTF-8")
    assert messages["blob.js"].startswith("line 1: binary content")
    assert messages["big.js"].startswith("line 1: file is") and "200" in messages["big.js"]
    assert ("fine.js", "fine") in rel(facts, "src_export")


def test_unreadable_file_is_reported_and_skipped(repo, out, monkeypatch):
    src = repo({"locked.ts": "export const secret = 1;\n", "open.ts": "export const visible = 1;\n"})
    if os.geteuid() != 0:  # a real unreadable file; root reads anything, so it gets the seam below
        (src / "locked.ts").chmod(0)
        restore = lambda: (src / "locked.ts").chmod(0o644)  # noqa: E731
    else:
        real_read = materialize.read_source

        def guarded_read(full: str, *rest):
            if full.endswith("locked.ts"):
                raise PermissionError(13, "Permission denied", full)
            return real_read(full, *rest)

        monkeypatch.setattr(materialize, "read_source", guarded_read)
        restore = lambda: None  # noqa: E731
    run = run_scan(src, out, "--json")
    assert run.exit_code == 0
    summary = run.summary
    assert summary["errors"] == 1 and summary["unreadable"] == ["locked.ts"]
    assert 'cannot read "locked.ts"' in run.stderr
    assert "locked.ts" not in load_manifest(out)["files"]
    assert ("open.ts", "visible") in rel(read_facts(out), "src_export")
    monkeypatch.undo()
    restore()
    summary = scan_json(src, out)  # readable again: picked up
    assert (summary["parsed"], summary["errors"]) == (1, 0)


def test_symlink_loops_and_links_out_of_src(tmp_path, out):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.ts").write_text("export const secret = 1;\n")
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.ts").write_text('import "./sub/b";\n')
    (src / "sub" / "b.ts").write_text("export {};\n")
    os.symlink(".", src / "loop")
    os.symlink("..", src / "sub" / "up")
    os.symlink(outside, src / "escape")
    os.symlink(outside / "secret.ts", src / "secret.ts")
    os.symlink(src / "sub", src / "alias")
    summary = scan_json(src, out)
    files = set(load_manifest(out)["files"])
    assert "a.ts" in files and "sub/b.ts" in files
    assert not any("secret" in f or f.startswith(("loop/", "escape/")) or "/up/" in f for f in files)
    # the link out of SRC is reported (not read, not followed); folder loops and links end quietly
    assert summary["errors"] == 1 and summary["unreadable"] == ["secret.ts"]
    entries = {(f[0], *f[2:]) for f in parse_fact_file(out / "entries.rofl")}
    assert ("secret.ts", "line 1: cannot read: a symlink to a file outside SRC, not followed") in rel(
        entries, "src_parse_error"
    )


def test_odd_paths_work_and_stay_exact(repo, out):
    names = ['we"ird name.ts', "new\nline.ts", "ünïcode/файл.ts", "tab\there.ts", "back\\slash.ts", "-- dash.ts"]
    files = {name: "export const v = 1;\n" for name in names}
    files["main.ts"] = "".join(f"import {repr('./' + n.removesuffix('.ts'))};\n" for n in names if "\n" not in n)
    src = repo(files)
    summary = scan_json(src, out)
    assert summary["files"] == len(names) + 1 and summary["errors"] == 0
    facts = read_facts(out)
    assert {p for (p, _) in rel(facts, "src_file")} == set(names) | {"main.ts"}
    targets = {t for (p, _, t) in rel(facts, "src_resolves") if p == "main.ts"}
    assert targets == {n for n in names if "\n" not in n}
    assert ("ünïcode/файл.ts", "ünïcode") in rel(facts, "src_in_dir")


def test_rofl_looking_specifiers_stay_one_string(repo, out):
    evil = './a"). x(1). --'
    src = repo(
        {
            "evil.ts": f"import x from '{evil}';\nimport '\\u0041\\x42\\n';\nexport const s = \"{'-- resolution'}\";\n",
            "fn.ts": 'export function f() {}\nconst r = require("x\\"). forged[code](1");\n',
        }
    )
    scan_json(src, out)
    facts = read_facts(out)
    assert {f[0] for f in facts} <= {
        "src_file",
        "src_in_dir",
        "src_import",
        "src_import_kind",
        "src_import_name",
        "src_export",
        "src_func",
        "src_call",
        "src_unresolved",
        "src_external",
        "src_resolves",
        "src_parse_error",
        "src_import_line",
        "src_declaration",
        "src_asset",
        "src_workspace_import",
        "src_decl",
        "src_export_span",
        "src_export_local",
        "src_decl_uses",
    }
    assert ("evil.ts", evil) in rel(facts, "src_import")
    assert ("evil.ts", evil) in rel(facts, "src_unresolved")
    assert ("evil.ts", "AB\n") in rel(facts, "src_import")
    assert ("fn.ts", 'x"). forged[code](1') in rel(facts, "src_import")
    text = (out / load_manifest(out)["files"]["evil.ts"]["facts"]).read_text()
    assert sum(1 for line in text.splitlines() if line.startswith("src_import[code]")) == 2


def test_file_name_that_is_not_utf8(tmp_path, out):
    src = tmp_path / "src"
    src.mkdir()
    raw = os.path.join(os.fsencode(src), b"caf\xe9.ts")
    with open(raw, "wb") as handle:
        handle.write(b"export const latin = 1;\n")
    (src / "main.ts").write_text("import './caf\\u00e9';\n")
    summary = scan_json(src, out)
    assert summary["files"] == 2 and summary["errors"] == 0
    facts = read_facts(out)
    name = os.fsdecode(b"caf\xe9.ts")  # a lone surrogate stands for the undecodable byte
    assert (name, "latin") in rel(facts, "src_export")
    assert scan_json(src, out)["parsed"] == 0

"""The exec answer cache: an answer that names `-- reads: PATH` is reused across runs until PATH changes."""

from __future__ import annotations

from tests.adapters.conftest import python_adapter, quote, rows, session

LINES = """
    import json, os, sys
    b = json.load(sys.stdin)
    with open("runs.log", "a") as log:
        log.write(" ".join(w["args"]["file"] for w in b["wants"]) + "\\n")
    for w in b["wants"]:
        path = w["args"]["file"]
        print(f"-- reads: {path}")
        n = len(open(path).read().splitlines())
        print(f'line_count({w["key"]}, {n}).')
"""


def world(cmd: str) -> str:
    return f"""
imports(main, wc).
adapter(wc, exec, {quote(cmd)}).
capability(count_lines, wc, reads).
arg(count_lines, 1, file, text).
answers(count_lines, line_count, 2).
file("a.txt"). file("b.txt").
want count_lines(F) :- file(F).
"""


def runs(tmp) -> list[str]:
    log = tmp / "runs.log"
    return log.read_text().splitlines() if log.exists() else []


def counts(kernel) -> dict:
    return {f: n for _w, n, f in rows(kernel, "line_count[wc](W, N), want_arg(W, 1, F)")}


def test_cached_answers_are_reused_until_a_read_file_changes(adapter_env):
    (adapter_env / "a.txt").write_text("1\n2\n")
    (adapter_env / "b.txt").write_text("1\n")
    text = world(python_adapter(adapter_env / "wc.py", LINES))

    first = session(text)
    first.run()
    assert counts(first.kernel) == {"a.txt": 2, "b.txt": 1}
    assert runs(adapter_env) == ["a.txt b.txt"]

    second = session(text)  # a new run, a new kernel: both answers come from the cache, no process
    report = second.run()
    assert counts(second.kernel) == {"a.txt": 2, "b.txt": 1}
    assert runs(adapter_env) == ["a.txt b.txt"] and second.processes == 0 and len(report.answered) == 2

    (adapter_env / "b.txt").write_text("1\n2\n3\n")  # only b's answer is stale
    third = session(text)
    third.run()
    assert counts(third.kernel) == {"a.txt": 2, "b.txt": 3}
    assert runs(adapter_env) == ["a.txt b.txt", "b.txt"]


def test_a_changed_book_is_a_new_version_and_misses_the_cache(adapter_env):
    (adapter_env / "a.txt").write_text("x\n")
    (adapter_env / "b.txt").write_text("y\n")
    text = world(python_adapter(adapter_env / "wc.py", LINES))
    session(text).run()
    session(text + "max_wants(count_lines, 50).\n").run()
    assert len(runs(adapter_env)) == 2


def test_answers_without_reads_are_not_cached(adapter_env):
    body = LINES.replace('print(f"-- reads: {path}")', "pass")
    (adapter_env / "a.txt").write_text("x\n")
    (adapter_env / "b.txt").write_text("y\n")
    text = world(python_adapter(adapter_env / "wc.py", body))
    session(text).run()
    session(text).run()
    assert len(runs(adapter_env)) == 2


def test_the_cache_lives_under_the_users_cache_folder(adapter_env):
    (adapter_env / "a.txt").write_text("x\n")
    (adapter_env / "b.txt").write_text("y\n")
    session(world(python_adapter(adapter_env / "wc.py", LINES))).run()
    entries = list((adapter_env / "cache" / "rofl" / "adapters").rglob("*.json"))
    assert len(entries) == 2


def test_a_cache_folder_that_cannot_be_written_only_costs_calls(adapter_env, monkeypatch):
    (adapter_env / "a.txt").write_text("x\n")
    (adapter_env / "b.txt").write_text("y\n")
    (adapter_env / "not-a-folder").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(adapter_env / "not-a-folder"))
    text = world(python_adapter(adapter_env / "wc.py", LINES))
    for _ in range(2):
        s = session(text)
        report = s.run()
        assert len(report.answered) == 2 and counts(s.kernel) == {"a.txt": 1, "b.txt": 1}
    assert len(runs(adapter_env)) == 2

"""--facts DIR: damaged manifests, fact files and caches are one line or rebuilt; unstratifiable rules are refused.

The contract and the shared helpers: tests/cli/user_errors.py.
"""

from __future__ import annotations

import os

import pytest

from tests.cli.user_errors import (
    assert_user_error,
    edit_manifest,
    first_fact_file,
    write,
)

FACT_COMMANDS = [
    ("ask", "dependency[code](A, B)"),
    ("impact", "--changed", "b.ts"),
    ("audit",),
    ("export", "dependency"),
    ("why", 'dependency[code]("a.ts", "b.ts")'),
]


def test_facts_folder_works(rofl, tiny):
    assert rofl("ask", "dependency[code](A, B)", "--facts", tiny[1]) == (0, 'A = "a.ts", B = "b.ts"\n', "")


@pytest.mark.parametrize(
    "name, content, needle",
    [
        ("invalid_json", "{not json", "not valid JSON"),
        ("empty", "", "not valid JSON"),
        ("not_utf8", b"\xff\xfe", "not valid JSON"),
        ("json_array", "[1, 2]", "not a rofl scan manifest"),
        ("json_string", '"x"', "not a rofl scan manifest"),
        ("json_null", "null", "not a rofl scan manifest"),
        ("no_files_key", '{"format": 1}', "not a rofl scan manifest"),
        ("files_is_a_list", '{"format": 1, "files": []}', "not a rofl scan manifest"),
    ],
)
def test_corrupt_manifest_is_one_line(rofl, facts_copy, name, content, needle):
    write(facts_copy / "manifest.json", content)
    for command in FACT_COMMANDS:
        assert_user_error(rofl(*command, "--facts", facts_copy), str(facts_copy / "manifest.json"), needle)


def test_empty_missing_and_wrong_kind_of_fact_folder(rofl, tiny, tmp_path):
    (tmp_path / "empty").mkdir()
    for folder in (tmp_path / "empty", tmp_path / "missing", tiny[0]):
        assert_user_error(rofl("ask", "x(X)", "--facts", folder), "no manifest.json", "rofl scan")


def test_manifest_is_a_directory(rofl, facts_copy):
    (facts_copy / "manifest.json").unlink()
    (facts_copy / "manifest.json").mkdir()
    for command in FACT_COMMANDS:
        assert_user_error(rofl(*command, "--facts", facts_copy), str(facts_copy))


@pytest.mark.parametrize(
    "append, needle",
    [
        (b"this is not rofl(\n", ":"),
        (b'src_file[code]("x", "y"\n', ":"),
        (b"\x00\n", "'\\x00'"),
        (b"\xff\xfe\n", "not UTF-8"),
    ],
    ids=["syntax", "unterminated", "nul", "not_utf8"],
)
def test_broken_fact_file_is_one_line_naming_it_and_its_fix(rofl, facts_copy, append, needle):
    """A damaged fact file is skipped, not fatal: one warning names it, what is wrong and the command
    that re-extracts it (impact's own rescan repairs it: tests/cli/test_trust_boundary.py)."""
    fact_file = first_fact_file(facts_copy)
    with open(fact_file, "ab") as fh:
        fh.write(append)
    for command in FACT_COMMANDS:
        command = (*command, "--no-rescan") if command[0] == "impact" else command
        code, out, err = rofl(*command, "--facts", facts_copy)
        assert code != 2 and "Traceback" not in out + err, (command, code, err)
        named = [line for line in err.splitlines() if str(fact_file) in line and "damaged" in line]
        assert len(named) == 1 and needle in named[0] and "--verify" in named[0], (command, err)


def test_fact_file_replaced_by_a_directory_warns(rofl, facts_copy):
    fact_file = first_fact_file(facts_copy)
    fact_file.unlink()
    fact_file.mkdir()
    code, out, err = rofl("ask", "src_file[code](F, _)", "--facts", facts_copy)
    assert code == 0 and "listed in the manifest but missing" in err and "Traceback" not in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_or_device_planted_in_the_folder_is_never_read(rofl, facts_copy):
    """An unlisted FIFO or a link to an endless device would hang the load: each is a warning, and a listed
    fact file replaced by a FIFO is a missing fact file (an audit finding)."""
    os.mkfifo(facts_copy / "code" / "planted.rofl")
    if os.path.exists("/dev/zero"):
        (facts_copy / "code" / "zero.rofl").symlink_to("/dev/zero")
    code, out, err = rofl("audit", "--facts", facts_copy)
    assert code == 0 and "planted.rofl: not a regular fact file" in err
    fact_file = first_fact_file(facts_copy)
    fact_file.unlink()
    os.mkfifo(fact_file)
    code, out, err = rofl("audit", "--facts", facts_copy)
    assert code == 1 and "missing_fact_file" in out and fact_file.name in out


@pytest.mark.parametrize(
    "cache",
    [b"rofl-store-cache 1\ngarbage\ngarbage", b"", b"\x00" * 100, None],
    ids=["garbage", "empty", "nul", "directory"],
)
def test_corrupt_cache_is_rebuilt(rofl, facts_copy, cache):
    path = facts_copy / ".rofl-store.cache"
    if cache is None:
        path.mkdir()
    else:
        path.write_bytes(cache)
    assert rofl("ask", "dependency[code](A, B)", "--facts", facts_copy) == (0, 'A = "a.ts", B = "b.ts"\n', "")


def test_missing_or_unreadable_rules_file(rofl, tiny, tmp_path):
    assert_user_error(rofl("ask", "x(X)", "--facts", tiny[1], "--rules", tmp_path / "nope.rofl"), "no such rule file")
    binary = write(tmp_path / "bin.rofl", bytes(range(256)))
    assert_user_error(rofl("ask", "x(X)", "--facts", tiny[1], "--rules", binary), str(binary))
    syntax = write(tmp_path / "syn.rofl", "foo(X :- bar.\n")
    assert_user_error(rofl("ask", "x(X)", "--facts", tiny[1], "--rules", syntax), f"{syntax}:1:")


@pytest.mark.parametrize(
    "where, value",
    [
        pytest.param("file_facts", 5, id="file_facts_int"),
        pytest.param("file_facts", ["a"], id="file_facts_list"),
        pytest.param("preamble", {"facts": 1}, id="preamble_facts_int"),
        pytest.param("package_entries", {"facts": {"a": 1}}, id="entries_facts_dict"),
    ],
)
def test_manifest_facts_of_wrong_type(rofl, facts_copy, where, value):
    def change(m):
        if where == "file_facts":
            m["files"]["a.ts"]["facts"] = value
        else:
            m[where] = value

    edit_manifest(facts_copy, change)
    assert_user_error(rofl("ask", "x(X)", "--facts", facts_copy), f"{facts_copy / 'manifest.json'}:", "rofl scan")


def test_manifest_src_of_wrong_type(rofl, facts_copy):
    edit_manifest(facts_copy, lambda m: m.update(src=5))
    assert_user_error(rofl("impact", "--facts", facts_copy, "--changed", "b.ts"), "'src' is not a path", "rofl scan")


def test_manifest_options_of_wrong_type(rofl, facts_copy, tiny):
    edit_manifest(facts_copy, lambda m: m.update(options="x"))
    assert_user_error(rofl("audit", "--facts", facts_copy, "--src", tiny[0]), "manifest.json", "rofl scan")


UNSTRATIFIABLE_RULES = "p(X) :- src_file[code](X, _), not q(X).\nq(X) :- src_file[code](X, _), not p(X).\n"


def test_unstratifiable_program_file_is_refused(rofl, tiny, tmp_path):
    """The same rules as a FILE next to --facts are refused; the --rules and fact-file routes below are not."""
    rules = write(tmp_path / "u.rofl", UNSTRATIFIABLE_RULES)
    code, _, err = rofl("ask", "p(X)", "--facts", tiny[1], rules)
    assert code == 2 and err.startswith("unstratified") and "Traceback" not in err


@pytest.mark.parametrize("command", [("ask", "p(X)"), ("ask", "dependency[code](A, B)"), ("audit",)])
def test_unstratifiable_rules_over_facts_are_refused(rofl, facts_copy, tmp_path, command):
    rules = write(tmp_path / "u.rofl", UNSTRATIFIABLE_RULES)
    code, _, err = rofl(*command, "--facts", facts_copy, "--rules", rules)
    assert code == 2 and err.startswith("unstratified")


def test_unstratifiable_rules_in_a_fact_file_are_refused(rofl, facts_copy):
    with open(first_fact_file(facts_copy), "a") as fh:
        fh.write(UNSTRATIFIABLE_RULES)
    code, _, err = rofl("ask", "dependency[code](A, B)", "--facts", facts_copy)
    assert code == 2 and "unstratified" in err

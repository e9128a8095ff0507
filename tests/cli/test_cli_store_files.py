"""--store files: damaged, forged, moved or mistyped stores are refused in one line naming the file.

The contract and the shared helpers: tests/cli/user_errors.py.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from tests.cli.user_errors import (
    SENSORS,
    TC,
    assert_user_error,
    write,
)


@pytest.fixture(scope="module")
def sensors_store(tmp_path_factory):
    from click.testing import CliRunner

    from rofl.cli import main

    path = tmp_path_factory.mktemp("store") / "sensors.store"
    args = ["save", str(path), *[str(a) for a in SENSORS]]
    assert CliRunner().invoke(main, args, catch_exceptions=False).exit_code == 0
    return path


def forge(path: Path, body, version=1) -> Path:
    """A store file with a correct checksum around ``body`` (an edit that also fixed the checksum)."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    head = json.dumps(
        {"format": "rofl-store", "version": version, "sha256": hashlib.sha256(text.encode()).hexdigest()},
        separators=(",", ":"),
    )
    return write(path, head[:-1] + ',"body":' + text + "}\n")


def store_body(store: Path) -> dict:
    return json.loads(store.read_text())["body"]


BAD_STORES = {
    "empty": lambda good: b"",
    "truncated": lambda good: good[: len(good) // 2],
    "edited": lambda good: good.replace(b'"sensor_net"', b'"sensor_nex"', 1),
    "binary": lambda good: bytes(range(256)),
    "json_array": lambda good: b"[1, 2]",
    "json_object": lambda good: b"{}",
    "newer_version": lambda good: b'{"format":"rofl-store","version":2}',
    "program_text": lambda good: TC.read_bytes(),
}


@pytest.mark.parametrize("name", sorted(BAD_STORES))
def test_bad_store_is_one_line(rofl, sensors_store, tmp_path, name):
    bad = write(tmp_path / f"{name}.store", BAD_STORES[name](sensors_store.read_bytes()))
    for command in (
        ("ask", "reading[S](V)"),
        ("audit",),
        ("run",),
        ("save", tmp_path / "o.store"),
        ("why", "verified(20)"),
    ):
        assert_user_error(rofl(*command, "--store", bad), str(bad))


def test_missing_store_and_store_with_facts(rofl, sensors_store, tiny, tmp_path):
    assert_user_error(rofl("ask", "x(X)", "--store", tmp_path / "nope.store"), "no such store file")
    assert_user_error(rofl("ask", "x(X)", "--store", sensors_store, "--facts", tiny[1]), "--facts and --store")


@pytest.mark.parametrize("key", ["tick", "counters", "base", "history", "past", "tick_log"])
def test_store_body_missing_a_key_is_one_line(rofl, sensors_store, tmp_path, key):
    body = store_body(sensors_store)
    del body[key]
    bad = forge(tmp_path / "bad.store", body)
    assert_user_error(rofl("ask", "reading[S](V)", "--store", bad), str(bad), "malformed")


def test_store_moved_and_without_trailing_newline(rofl, sensors_store, tmp_path):
    moved = tmp_path / "elsewhere" / "moved.store"
    moved.parent.mkdir()
    shutil.copy(sensors_store, moved)
    assert rofl("ask", "verified(V)", "--store", moved) == (0, "V = 20\nV = 21\n", "")
    stripped = write(tmp_path / "nl.store", sensors_store.read_bytes().rstrip(b"\n"))
    assert rofl("ask", "verified(V)", "--store", stripped)[0] == 0


def test_store_counters_not_an_object(rofl, sensors_store, tmp_path):
    body = store_body(sensors_store)
    body["counters"] = []
    bad = forge(tmp_path / "bad.store", body)
    assert_user_error(rofl("ask", "reading[S](V)", "--store", bad), str(bad))


@pytest.mark.parametrize(
    "row",
    [
        pytest.param(["reading", [], None, None], id="row_without_perspective"),
        pytest.param(["reading", ["s1", 1.5], None, None], id="float_term"),
        pytest.param(["reading", ["s1", True], None, None], id="bool_term"),
        pytest.param(["reading", ["s1", []], None, None], id="empty_compound"),
    ],
)
def test_store_bad_term_names_the_file(rofl, sensors_store, tmp_path, row):
    body = store_body(sensors_store)
    body["base"] = [row]
    bad = forge(tmp_path / "bad.store", body)
    assert_user_error(rofl("ask", "reading[S](V)", "--store", bad), str(bad))


def test_store_with_malformed_reflected_rule(rofl, tmp_path):
    store = tmp_path / "tc.store"
    assert rofl("save", store, TC)[0] == 0
    text = store_body(store)
    body = json.loads(json.dumps(text, separators=(",", ":")).replace('["$var","X"]', '["$var",5]'))
    bad = forge(tmp_path / "bad.store", body)
    assert_user_error(rofl("ask", "path(a, X)", "--store", bad), str(bad))


@pytest.mark.parametrize("version", ['"1"', "true", "null"])
def test_store_version_of_wrong_type(rofl, tmp_path, version):
    bad = write(tmp_path / "v.store", '{"format":"rofl-store","version":' + version + "}")
    line = assert_user_error(rofl("ask", "x(X)", "--store", bad), str(bad))
    assert "newer" not in line and "upgrade" not in line


def test_save_into_missing_folder(rofl, tmp_path):
    assert_user_error(rofl("save", tmp_path / "no" / "such" / "dir.store", TC), str(tmp_path / "no" / "such"))


def test_save_over_its_own_program(rofl, tmp_path):
    prog = tmp_path / "tc.rofl"
    shutil.copy(TC, prog)
    code, _, _ = rofl("save", prog, prog)
    assert prog.read_bytes() == TC.read_bytes()
    assert code == 2

"""`rofl adapter openapi SPEC`: the book of a description (file, YAML or URL) with its capabilities, pages
and secrets; user errors in one line; and properties of the pieces (JSON pointers, keys, any small spec)."""

from __future__ import annotations

import json
import string

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.adapters.books import read_catalog
from rofl.adapters.openapi_book import Key, SpecError, book_text, parse_key
from rofl.adapters.openapi_kind import cell, pointer
from rofl.engine.kernel import Kernel
from rofl.engine.lexer import is_name

from tests.adapters.openapi_service import running, spec
from tests.conftest import BOOT


def catalog(text: str):
    kernel = Kernel(BOOT)
    kernel.load_text(text, "book.rofl")
    return read_catalog(kernel.evaluate())


def test_the_book_of_a_published_spec(rofl, adapter_env):
    with running() as svc:
        code, out, err = rofl("adapter", "openapi", f"{svc.url}/openapi.json", "bearer=PETS_TOKEN", "header=TOY_KEY")
        assert code == 0, err
        (adapter_env / "spec.json").write_text(json.dumps(spec(svc.url)))
        (adapter_env / "spec.yaml").write_text(yaml.safe_dump(spec(svc.url), sort_keys=False))
        from_file = rofl("adapter", "openapi", "spec.json", "bearer=PETS_TOKEN", "header=TOY_KEY")
        from_yaml = rofl("adapter", "openapi", "spec.yaml", "bearer=PETS_TOKEN", "header=TOY_KEY")
        assert from_file == from_yaml == (0, out, "")
        found = catalog(out)
        assert found.books["pet_store"].kind == "openapi" and found.books["pet_store"].address == svc.url
        caps = found.capabilities
        assert {c: caps[c].klass for c in ("list_pets", "create_pet", "show_pet_by_id")} == {
            "list_pets": "reads",
            "create_pet": "does",
            "show_pet_by_id": "reads",
        }
        pets = caps["list_pets"].http
        assert pets is not None and (pets.method, pets.path, pets.rows) == ("GET", "/pets", "/items")
        assert [(i.name, i.where) for i in pets.inputs] == [("tag", "query")]  # page and limit are optional
        assert [p for _, p in pets.fields] == ["/id", "/name", "/tag", "/born"]
        pages = {c: (caps[c].http.page.style if caps[c].http.page else None) for c in caps}  # type: ignore[union-attr]
        assert pages["list_pets"] == "next_link" and pages["list_owners"] == "link_header"
        assert pages["list_toys"] == "cursor" and pages["show_pet_by_id"] is None
        created = caps["create_pet"].http
        assert [(i.name, i.where) for i in created.inputs] == [("name", "body"), ("tag", "body")]  # type: ignore[union-attr]
        secrets = {c: [(s.how, s.name, s.env) for s in caps[c].secrets] for c in caps}
        assert secrets["list_pets"] == [("bearer", "", "PETS_TOKEN")]
        assert secrets["list_toys"] == [("header", "X-Api-Key", "TOY_KEY")]
        assert secrets["who_am_i"] == [("client_credentials", f"{svc.url}/oauth/token", "PET_STORE_MACHINE")]
        assert secrets["status"] == []  # security: [] on the operation


def test_user_errors_are_one_line_and_exit_2(rofl, adapter_env):
    (adapter_env / "swagger.json").write_text(json.dumps({"swagger": "2.0", "paths": {}}))
    relative = {"openapi": "3.0.3", "info": {"title": "t"}, "servers": [{"url": "/v1"}], "paths": {"/a": {"get": {}}}}
    (adapter_env / "relative.json").write_text(json.dumps(relative))
    (adapter_env / "broken.yaml").write_text("openapi: 3.1.0\npaths: [\n")
    cases = {
        ("swagger.json",): "swagger 2.0; rofl reads OpenAPI 3.0 and 3.1",
        ("relative.json",): "give the API's address with --base URL",
        ("broken.yaml",): "not JSON or YAML at line",
        ("missing.json",): "cannot read it",
        ("relative.json", "bearer"): "name the environment variable",
        ("relative.json", "magic=X"): "HOW must be one of",
        ("relative.json", "--base", "ftp://x"): "must be an http or https URL",
    }
    for args, message in cases.items():
        code, out, err = rofl("adapter", "openapi", *args)
        assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1, (args, err)
    code, out, _ = rofl("adapter", "openapi", "relative.json", "--base", "https://api.example.com/v1", "--book", "ex")
    assert code == 0 and 'adapter(ex, openapi, "https://api.example.com/v1").' in out
    assert 'http_in(get_a, 1, "", none).' in out  # a relation has an argument: one the request leaves out


def test_keys_of_the_command_line():
    assert parse_key("bearer=T") == Key("bearer", None, "T")
    assert parse_key("header:X-Api-Key=K") == Key("header", "X-Api-Key", "K")
    assert parse_key("client_credentials:https://a.example/t?x=1=C") == Key(
        "client_credentials", "https://a.example/t?x=1", "C"
    )
    assert parse_key("login:https://auth.example.com") == Key("login", "https://auth.example.com", "")
    for bad in ("bearer", "login:https://a=ENV", "cookie=X", "bearer=1X"):
        try:
            parse_key(bad)
        except SpecError:
            continue
        raise AssertionError(bad)


NAMES = st.text(alphabet=string.ascii_letters + string.digits + "_-/~. ", min_size=1, max_size=12)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=20, deadline=None)  # a kernel per example
@given(st.dictionaries(NAMES, JSON, min_size=1, max_size=6))
def test_every_property_of_a_row_schema_comes_back_through_its_pointer(row):
    """The generator's pointers, read by the kind, give each property's value (RFC 6901 escaping of / and ~)."""
    schema = {"type": "object", "properties": {name: {} for name in row}}
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "p"},
        "servers": [{"url": "http://127.0.0.1:1"}],
        "paths": {"/r": {"get": {"responses": {"200": {"content": {"application/json": {"schema": schema}}}}}}},
    }
    found = catalog(book_text(doc, "p.json"))
    op = found.capabilities["get_r"].http
    assert op is not None and len(op.fields) == len(row)
    for (_, ptr), value in zip(op.fields, row.values()):
        assert pointer(row, ptr) == value
        assert cell(pointer(row, ptr)) == cell(value)


@settings(max_examples=20, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(alphabet=string.ascii_letters + "-_ ", min_size=1, max_size=10),
            st.sampled_from(["get", "post", "delete", "head"]),
            st.lists(
                st.tuples(
                    st.text(alphabet=string.ascii_letters, min_size=1, max_size=6),
                    st.sampled_from(["path", "query", "header"]),
                ),
                max_size=3,
            ),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_any_small_description_gives_a_book_that_loads(ops):
    """Whatever the names, every operation is one capability of the right class, every argument has its
    http_in, every path placeholder its path argument, and the book's declarations all check."""
    paths: dict = {}
    for i, (op_id, method, params) in enumerate(ops):
        unique = {(n, w) for n, w in params}
        path = f"/p{i}" + "".join(f"/{{{n}}}" for n, w in sorted(unique) if w == "path")
        declared = [{"name": n, "in": w, "required": True, "schema": {"type": "string"}} for n, w in sorted(unique)]
        paths.setdefault(path, {})[method] = {"operationId": op_id, "parameters": declared, "responses": {}}
    doc = {"openapi": "3.0.3", "info": {"title": "Any API"}, "servers": [{"url": "https://x.example"}], "paths": paths}
    found = catalog(book_text(doc, "any.json"))
    caps = found.capabilities
    assert len(caps) == sum(len(item) for item in paths.values())
    for cap in caps.values():
        assert cap.http is not None and len(cap.http.inputs) == len(cap.args) >= 1
        assert cap.klass == ("reads" if cap.http.method in ("GET", "HEAD") else "does")
        assert is_name(cap.name) and is_name(cap.answer_rel or "")

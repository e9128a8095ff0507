"""The openapi kind against a loopback service: one request per want, pages followed (next link, Link
header, cursor), JSON rows to answers, an HTTP error failing its want (never the round), and requests
going to the book's address only."""

from __future__ import annotations

import json

import pytest
from rofl.adapters.openapi_book import book_text, parse_key

from tests.adapters.conftest import rows, session
from tests.adapters.openapi_service import API_KEY, BASIC, BEARER, Service, running, spec

ENV = {
    "PETS_TOKEN": BEARER,
    "PET_STORE_BASIC_AUTH": ":".join(BASIC),
    "PET_STORE_KEY_HEADER": API_KEY,
    "PET_STORE_KEY_QUERY": API_KEY,
}


@pytest.fixture
def service():
    with running() as svc:
        yield svc


def book(svc: Service, *keys: str) -> str:
    return book_text(spec(svc.url), "spec.json", keys=[parse_key(k) for k in ("bearer=PETS_TOKEN", *keys)])


def ask(svc: Service, wants: str, allow: tuple = (), env: dict | None = None, **kw):
    s = session(book(svc) + "go(1).\n" + wants, allow=allow, environ=dict(ENV if env is None else env), **kw)
    return s, s.run()


def outcome(report) -> dict:
    out = {w.text: "answered" for w in report.answered}
    out.update({w.text: why for w, why in report.failed})
    out.update({w.text: "held: " + why for w, why in report.held})
    return out


def test_pages_of_three_kinds_become_answer_rows(service):
    s, report = ask(
        service,
        'want list_pets("dog") :- go(1).\nwant list_owners(now) :- go(1).\nwant list_toys(now) :- go(1).\n',
    )
    assert len(report.answered) == 3 and not report.failed and report.rounds == 1
    pets = sorted(r[1:3] for r in rows(s.kernel, "list_pets[pet_store](W, I, N, T, B)"))
    assert pets == [(1, "pet1"), (3, "pet3"), (5, "pet5"), (7, "pet7")]  # two pages through "next"
    owners = sorted(r[1] for r in rows(s.kernel, "list_owners[pet_store](W, L, P)"))
    assert owners == ["o1a", "o1b", "o2a", "o2b", "o3a", "o3b"]  # three pages through the Link header
    toys = sorted(r[1:] for r in rows(s.kernel, "list_toys[pet_store](W, T, P)"))
    assert ("toy0", "1.5") in toys and ("toy2x", 2) in toys and len(toys) == 6  # a cursor; a fraction as text
    assert service.calls == {"/pets": 2, "/owners": 3, "/toys": 3}
    assert rows(s.kernel, 'list_owners[pet_store](W, "o1a", P)')[0][1] == "[1]"  # an array as its JSON text


def test_an_http_error_fails_its_want_with_the_status_and_the_others_are_answered(service):
    wants = "\n".join(
        f"want {w} :- go(1)."
        for w in ("show_pet_by_id(3)", "show_pet_by_id(99)", "status(500)", "status(503)", "status(299)", "status(200)")
    )
    s, report = ask(service, wants)
    got = outcome(report)
    assert got["show_pet_by_id(3)"] == got["status(200)"] == "answered"
    assert got["show_pet_by_id(99)"].startswith(
        "ADP_HOST_CALL_FAILED: adapter pet_store: GET /pets/{petId} answered 404"
    )
    assert "no pet 99" in got["show_pet_by_id(99)"]  # the error body's excerpt
    assert " answered 500 " in got["status(500)"] and " answered 503 " in got["status(503)"]
    assert got["status(299)"].endswith("answered 200 with a body that is not JSON")
    assert rows(s.kernel, "status[pet_store](W, Ok)") == [(("$want", ("status",), 200), ("true",))]
    assert len(rows(s.kernel, "failed(W, Why)")) == 4


def test_a_does_operation_needs_allow_does_and_then_sends_its_body(service):
    wants = 'want create_pet("rex", "dog") :- go(1).\n'
    _, report = ask(service, wants.replace("want", "optional(create_pet).\nwant", 1))
    assert report.held and "add --allow does" in report.held[0][1] and not service.created
    s, report = ask(service, wants, allow=("does",))
    assert [w.text for w in report.answered] == ['create_pet("rex", "dog")']
    assert service.created == [{"name": "rex", "tag": "dog"}]
    assert rows(s.kernel, "create_pet[pet_store](W, I, N, T, B)")[0][1:3] == (100, "rex")


def test_nothing_is_sent_without_allow_exec(service):
    from rofl.adapters.rounds import Refused

    s = session(book(service) + 'go(1).\nwant list_pets("dog") :- go(1).\n', environ=dict(ENV), programs=False)
    with pytest.raises(Refused, match="--allow exec"):
        s.run()
    assert service.calls == {}


def test_a_reads_capability_never_sends_a_method_that_changes_things(service):
    text = book(service).replace("capability(create_pet, pet_store, does)", "capability(create_pet, pet_store, reads)")
    s = session(text + 'go(1).\noptional(create_pet).\nwant create_pet("a", "b") :- go(1).\n', environ=dict(ENV))
    report = s.run()
    assert report.failed[0][1] == (
        "ADP_UNSUPPORTED_CAPABILITY: capability create_pet is reads, which sends only GET or HEAD; a POST is does"
    )
    assert service.calls == {}


def test_a_path_argument_is_one_segment_and_dot_segments_are_refused(service):
    wants = 'want echo_word("b?c=d#e f") :- go(1).\nwant echo_word("a/b") :- go(1).\nwant echo_word("..") :- go(1).\n'
    s, report = ask(service, wants)
    assert rows(s.kernel, "echo_word[pet_store](W, X)") == [(("$want", ("echo_word",), "b?c=d#e f"), "b?c=d#e f")]
    assert outcome(report)['echo_word("..")'].startswith("ADP_UNSUPPORTED_CAPABILITY: argument 1 (word) is '..'")
    assert [seen[3] for seen in service.seen] == ["/keyed/b%3Fc%3Dd%23e%20f"]  # one segment, escaped
    assert " answered 404 " in outcome(report)['echo_word("a/b")']  # /keyed/a%2Fb: Starlette routes it nowhere


def test_a_next_page_at_another_origin_is_never_asked(service):
    with running() as other:
        service.elsewhere = f"{other.url}/wander"
        text = f"""
imports(main, w).
adapter(w, openapi, "{service.url}").
capability(wander, w, reads).
arg(wander, 1, n, number).
http_op(wander, "GET", "/wander").
http_in(wander, 1, "", none).
answers(wander, roam, 2).
http_field(wander, 2, "/id").
http_rows(wander, "/items").
http_page(wander, next_link, "", "/next").
want wander(1) :- go(1).
go(1).
"""
        report = session(text).run()
        assert "the next page is at another origin" in report.failed[0][1]
        assert other.calls == {} and service.calls == {"/wander": 1}


def test_a_refused_connection_fails_the_batch_and_not_the_round(service):
    with running() as gone:
        address = gone.url
    text = book(service).replace(service.url, address)
    s = session(text + 'go(1).\nwant list_pets("dog") :- go(1).\nwant list_pets("cat") :- go(1).\n', environ=dict(ENV))
    report = s.run()
    assert len(report.failed) == 2 and not report.answered
    assert all(why.endswith(f"{address} accepts no connection") for _, why in report.failed)


def test_declarations_that_do_not_fit_are_refused_with_the_fix():
    from rofl.adapters.books import BookError

    base = 'imports(main, w).\nadapter(w, openapi, "http://127.0.0.1:9").\ncapability(c, w, reads).\narg(c, 1, id, text).\nanswers(c, r, 2).\n'
    cases = {
        'http_op(c, "GET", "/x/{other}").\nhttp_in(c, 1, "id", path).\nhttp_field(c, 2, "").': "placeholders",
        'http_op(c, "FETCH", "/x").\nhttp_field(c, 2, "").': "Method one of",
        'http_op(c, "GET", "/x").\nhttp_field(c, 3, "/a").': "2..Arity",
        'http_op(c, "GET", "/x").\nhttp_field(c, 2, "a").': "json/pointer",
        'http_field(c, 2, "/a").': "but no http_op",
        'http_op(c, "GET", "/x").\nhttp_field(c, 2, "/a").\nhttp_page(c, cursor, "", "/n").': "names the query parameter",
    }
    for decl, fix in cases.items():
        s = session(base + decl + '\nwant c("1") :- go(1).\ngo(1).\n')
        with pytest.raises(BookError, match=fix.replace("(", r"\(").replace(".", r"\.")):
            s.run()


def test_rofl_ask_on_the_command_line(service, rofl, adapter_env, monkeypatch):
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    (adapter_env / "pets.rofl").write_text(book(service))
    (adapter_env / "w.rofl").write_text(
        'go(1).\nwant list_pets("cat") :- go(1).\nname(N) :- list_pets[pet_store](_, _, N, _, _).\n'
    )
    code, out, err = rofl("ask", "name(N)", "pets.rofl", "w.rofl", "--allow", "exec", "--json")
    assert code == 0, err
    assert sorted(r["N"] for r in json.loads(out)["answers"]) == ["pet2", "pet4", "pet6"]


def test_a_request_declared_by_data_is_refused_before_any_is_sent(service, rofl, adapter_env, monkeypatch):
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    text = book(service).replace('http_op(show_pet_by_id, "GET", "/pets/{petId}").\n', "")
    (adapter_env / "pets.rofl").write_text(text + "go(1).\nwant show_pet_by_id(1) :- go(1).\n")
    (adapter_env / "data.rofl").write_text('http_op(show_pet_by_id, "GET", "/admin/{petId}").\n')
    code, _, err = rofl("ask", "go(X)", "pets.rofl", "--load-as", "scanner", "data.rofl", "--allow", "exec")
    assert code == 2 and "http_op(show_pet_by_id" in err and "was asserted by scanner" in err
    assert service.calls == {}


PAGING = {
    "next_link": ('"/items"', '"", "/next"'),
    "link_header": ("", '"", ""'),
    "cursor": ('"/data"', '"after", "/next_cursor"'),
    "page": ("", '"page", ""'),
    "offset": ("", '"offset", ""'),
}


@pytest.mark.parametrize("style", sorted(PAGING))
@pytest.mark.parametrize("count", [0, 3, 7])
def test_every_page_style_gives_every_row_once(service, style, count):
    service.items = [{"n": i, "label": f"item {i}"} for i in range(count)]
    rows_at, page = PAGING[style]
    text = f"""
imports(main, g).
adapter(g, openapi, "{service.url}").
capability(all_items, g, reads).
arg(all_items, 1, label, atom).
http_op(all_items, "GET", "/gen/{style}").
http_in(all_items, 1, "", none).
answers(all_items, item, 3).
http_field(all_items, 2, "/n").
http_field(all_items, 3, "/label").
{f"http_rows(all_items, {rows_at})." if rows_at else ""}
http_page(all_items, {style}, {page}).
want all_items(now) :- go(1).
go(1).
"""
    s = session(text)
    report = s.run()
    assert [w.text for w in report.answered] == ["all_items(now)"], report.failed
    assert sorted(r[1:] for r in rows(s.kernel, "item[g](W, N, L)")) == [(i, f"item {i}") for i in range(count)]
    pages = -(-count // 3)
    # a page number or an offset stops at the first page without rows; the others when nothing follows
    expected = pages + 1 if style in ("page", "offset") and count else max(pages, 1)
    assert service.calls[f"/gen/{style}"] == expected

"""Books and wants: declarations read and checked, the want key and its parts, argument types checked before sending."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rofl.adapters.books import BookError, read_catalog
from rofl.adapters.wants import Want, wire_args
from rofl.engine.kernel import Kernel

from tests.adapters.conftest import calls, echo_book, rows, session
from tests.conftest import BOOT

BOOK = """
imports(main, deps).
adapter(deps, exec, "node deps.cjs").
capability(imports_of, deps, reads).
arg(imports_of, 1, file, text).
answers(imports_of, file_import, 2).
max_wants(imports_of, 20000).
"""


def catalog(text: str):
    kernel = Kernel(BOOT)
    kernel.load_text(text)
    return read_catalog(kernel.evaluate())


def test_a_book_is_read_from_its_declarations():
    c = catalog(BOOK)
    cap = c.capabilities["imports_of"]
    assert (cap.book, cap.klass, cap.answer_rel, cap.answer_arity, cap.max_wants) == (
        "deps",
        "reads",
        "file_import",
        2,
        20000,
    )
    assert [(a.pos, a.name, a.type) for a in cap.args] == [(1, "file", "text")]
    book = c.books["deps"]
    assert (book.kind, book.address, book.imported, book.timeout_s) == ("exec", "node deps.cjs", True, 30.0)
    assert catalog(BOOK.replace("20000", "5")).books["deps"].version != book.version
    assert catalog(BOOK.replace("max_wants(imports_of, 20000).", "")).capabilities["imports_of"].max_wants == 1000


@pytest.mark.parametrize(
    "change, message",
    [
        ("capability(imports_of, deps, reads).", "capability(imports_of, deps, writes)."),
        ("arg(imports_of, 1, file, text).", "arg(imports_of, 1, file, string)."),
        ("arg(imports_of, 1, file, text).", "arg(imports_of, 2, file, text)."),
        ("answers(imports_of, file_import, 2).", "answers(imports_of, file_import, 0)."),
        ('adapter(deps, exec, "node deps.cjs").', 'adapter(code, exec, "node deps.cjs").'),
    ],
)
def test_a_malformed_declaration_is_an_error_naming_it(change, message):
    with pytest.raises(BookError) as err:
        catalog(BOOK.replace(change, message))
    assert "\n" not in str(err.value)
    assert message.split("(")[0] in str(err.value)


def test_a_book_error_on_the_command_line_is_one_line_and_exit_2(adapter_env, rofl):
    (adapter_env / "w.rofl").write_text(
        BOOK.replace("reads).", "writes).") + 'want imports_of("a.js") :- adapter(deps, _, _).\n'
    )
    code, _, err = rofl("ask", "answered(W)", "w.rofl")
    assert code == 2 and err.count("\n") == 1 and "the class must be reads, shows or does" in err


def test_the_want_key_and_its_parts(adapter_env):
    s = session(echo_book(adapter_env) + 'item("ab").\nwant reverse(X) :- item(X).\n')
    s.run()
    key = ("$want", ("reverse",), "ab")
    assert rows(s.kernel, "want_of(W, C)") == [(key, ("reverse",))]
    assert rows(s.kernel, "want_arg(W, P, V)") == [(key, 1, "ab")]
    assert rows(s.kernel, "echo_answer[echo](W, X)") == [(key, "ba")]
    assert calls(adapter_env)[0]["wants"][0]["key"] == '"reverse(\\"ab\\")"'


TERMS = st.one_of(
    st.text(max_size=5),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.sampled_from([("a",), ("b",), ("f", 1)]),
)


@given(st.sampled_from(["text", "number", "atom", "time", "json"]), TERMS)
def test_an_argument_is_sent_only_when_it_has_its_declared_type(kind, value):
    from rofl.adapters.books import Arg, Capability

    cap = Capability("c", "b", "reads", (Arg(1, "v", kind),), "r", 2, 10, None, None, "c", (), False)
    sent, problem = wire_args(Want("c", (value,)), cap)
    fits = {
        "text": isinstance(value, str),
        "number": isinstance(value, int),
        "atom": isinstance(value, tuple) and len(value) == 1,
        "time": False,  # no generated value is an instant
        "json": isinstance(value, str) and _is_json(value),
    }[kind]
    assert (problem is None) == fits
    if fits:
        assert json.dumps(sent)  # what is sent is JSON


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def test_time_and_json_arguments_are_sent_normalised(adapter_env):
    from rofl.adapters.books import Arg, Capability

    cap = Capability(
        "c", "b", "reads", (Arg(1, "at", "time"), Arg(2, "q", "json")), "r", 2, 10, None, None, "c", (), False
    )
    sent, problem = wire_args(Want("c", ("2026-10-24T14:00:00+03:00", '{"a": [1]}')), cap)
    assert problem is None and sent == {"at": "2026-10-24T11:00:00.000Z", "q": {"a": [1]}}
    _, problem = wire_args(Want("c", ("2026-10-24",)), cap)
    assert problem == "c takes 2 argument(s); this want has 1"

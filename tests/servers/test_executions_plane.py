"""The executions plane in process: the event schema is derived from the event types and every event validates,
a command that checks no cancel flag refuses a cancel and ends as it would have, listings filter and page as
a plain filter of the whole list, and the protocol describes every served command and operation."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rofl.engine.base import events
from rofl.servers.commands import CANCELLABLE, BadRequest, served
from rofl.servers.event_schema import event_schema, payload_schema
from rofl.servers.executions import Executions, NotCancellable, NotFound
from rofl.servers.protocol import OPERATIONS, protocol
from rofl.servers.session import Session

from .conftest import generated_tree, module, rofl

VALIDATOR = jsonschema.Draft202012Validator(event_schema())

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
payloads = st.one_of(
    st.builds(events.Started, st.text(max_size=10), st.dictionaries(st.text(max_size=5), json_values, max_size=3)),
    st.builds(events.Progress, st.integers(0, 10**6), st.integers(0, 10**6), st.text(max_size=10)),
    st.builds(events.Warned, st.text(max_size=20)),
    st.builds(events.Finished, json_values),
    st.builds(events.Failed, st.text(max_size=20), st.integers(0, 255)),
    st.builds(events.Cancelled, st.text(max_size=20)),
)


@given(st.integers(1, 10**9), st.text(max_size=12), payloads)
def test_every_event_validates_against_the_served_schema_and_reads_back(seq, execution, payload):
    event = events.Event(seq, execution, payload)
    data = event.as_json()
    VALIDATOR.validate(data)
    assert events.Event.from_json(data) == event


@given(st.integers(1, 10**9), payloads, st.sampled_from(["type", "data", "seq", "v", "extra", "field"]))
def test_an_event_bent_out_of_shape_fails_the_schema(seq, payload, how):
    data = events.Event(seq, "x1", payload).as_json()
    if how == "type":
        data["type"] = "finished" if data["type"] != "finished" else "started"
    elif how == "data":
        data["data"] = {**data["data"], "unknown": 1}
    elif how == "seq":
        data["seq"] = str(seq)
    elif how == "v":
        data["v"] = events.EVENT_VERSION + 1
    elif how == "extra":
        data["when"] = "now"
    else:
        del data["execution"]
    assert not VALIDATOR.is_valid(data)  # (no two payload types share a field: a changed type never fits)


def test_the_schema_is_derived_from_the_types_not_written_beside_them():
    for name, payload in events.PAYLOADS.items():
        derived = payload_schema(payload)
        assert set(derived["properties"]) == {f.name for f in dataclasses.fields(payload)}
        branch = next(b for b in event_schema()["oneOf"] if b["title"] == name)
        assert set(branch["properties"]) == set(events.Event(1, "x", events.Warned("w")).as_json())
        assert branch["properties"]["type"]["const"] == payload.TYPE

    @dataclasses.dataclass(frozen=True, slots=True)
    class Paused:  # a payload type a later version might add: its schema comes with it
        TYPE = "paused"
        why: str
        seconds: float = 0.0

    for branch in event_schema()["oneOf"]:  # every field is described (its text is the one thing not derived)
        data = branch["properties"]["data"]
        assert all(p.get("description") for p in [*branch["properties"].values(), *data["properties"].values()])
    derived = payload_schema(Paused)
    assert derived["properties"]["why"]["type"] == "string" and derived["required"] == ["why"]
    assert derived["properties"]["seconds"]["type"] == "number"


# -- executions over a small scan, in this process ------------------------------------------------------


@pytest.fixture(scope="module")
def plane(tmp_path_factory) -> Iterator[Executions]:
    root = tmp_path_factory.mktemp("plane")
    generated_tree(root / "src", files=30)
    assert rofl("scan", str(root / "src"), "--out", str(root / "facts")).returncode == 0
    executions = Executions(Session(root / "facts", root / "src", pool=1), workers=2)
    yield executions
    executions.shutdown()


def ended(executions: Executions, ident: str) -> dict:
    execution = executions.find(ident)
    assert execution.future is not None
    execution.future.result(timeout=60)
    return execution.view()


def test_cancelling_a_command_that_checks_no_flag_is_refused_and_it_ends_as_it_would_have(plane):
    execution = plane.start("ask", {"query": "dependency[code](A, B)"})
    with pytest.raises(NotCancellable, match="ask cannot be cancelled") as refused:
        plane.cancel(execution.id)
    assert refused.value.status == 409
    view = ended(plane, execution.id)
    assert view["state"] == "succeeded" and view["cancellable"] is False and "cancel_requested" not in view
    assert [e["type"] for e in execution.events_after(0)] == ["started", "finished"]
    for command, args in (("impact", {"changed": [module(3)]}), ("audit", {})):  # audit checks only re-extracting
        refusal = plane.start(command, args)
        with pytest.raises(NotCancellable, match=f"{command} cannot be cancelled"):
            plane.cancel(refusal.id)
        assert ended(plane, refusal.id)["state"] == "succeeded"


def test_a_cancel_after_the_end_is_refused_and_changes_nothing(plane):
    scan = plane.start("scan", {"jobs": 1})
    before = ended(plane, scan.id)
    assert before["cancellable"] is True
    with pytest.raises(NotCancellable, match="already ended"):
        plane.cancel(scan.id)
    assert plane.find(scan.id).view() == before
    with pytest.raises(NotFound):
        plane.cancel("x0-nothing")


def test_a_cancellable_execution_waiting_for_a_worker_is_cancelled_before_it_starts(tmp_path):
    generated_tree(tmp_path / "src", files=20)
    assert rofl("scan", str(tmp_path / "src"), "--out", str(tmp_path / "facts")).returncode == 0
    executions = Executions(Session(tmp_path / "facts", tmp_path / "src", pool=1), workers=1)
    try:
        gate = executions._pool.submit(time.sleep, 0.5)  # the one worker is busy: the next execution waits
        waiting = executions.start("audit", {"reextract": True, "src": str(tmp_path / "src")})
        assert executions.cancel(waiting.id).cancel_answer()["state"] == "running"
        gate.result()
        view = ended(executions, waiting.id)
    finally:
        executions.shutdown()
    assert view["state"] == "cancelled" and view["reason"] == "cancelled by the client"


CALLS = [
    ("ask", {"query": "dependency[code](A, B)"}),
    ("relations", {}),
    ("ask", {"query": "p(((("}),  # fails: a syntax error
    ("why", {"fact": f'dependency[code]("{module(9)}", "{module(4)}")'}),
    ("cycles", {}),
    ("relations", {}),
    ("ask", {"query": "in_cycle[code](F)"}),
]


@pytest.fixture(scope="module")
def listed(plane) -> list[dict]:
    for command, args in CALLS:
        ended(plane, plane.start(command, args).id)
    whole = plane.listing(limit=256)
    assert whole["next_cursor"] is None and whole["total"] == len(whole["executions"])
    return whole["executions"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.sampled_from(["running", "succeeded", "failed", "cancelled"]), max_size=2, unique=True),
    st.lists(st.sampled_from(["ask", "relations", "why", "cycles", "scan"]), max_size=2, unique=True),
    st.integers(1, 4),
)
def test_a_listing_pages_through_exactly_the_filtered_list_newest_first(plane, listed, states, commands, limit):
    expected = [
        x for x in listed if (not states or x["state"] in states) and (not commands or x["command"] in commands)
    ]
    pages, cursor = [], None
    while True:
        page = plane.listing(states, commands, limit, cursor)
        assert page["total"] == len(expected) and len(page["executions"]) <= limit
        pages += page["executions"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == expected
    numbers = [int(x["id"][1:].split("-")[0]) for x in listed]
    assert numbers == sorted(numbers, reverse=True)


def test_a_listing_filter_takes_a_comma_list_and_refuses_what_it_does_not_know(plane, listed):
    both = plane.listing(["failed,succeeded"], [], 256)["executions"]
    assert both == [x for x in listed if x["state"] in ("failed", "succeeded")]
    assert any(x["state"] == "failed" for x in both)
    for bad in (dict(states=["done"]), dict(commands=["rm"]), dict(limit=0), dict(limit="²"), dict(cursor="x1")):
        with pytest.raises(BadRequest):
            plane.listing(**bad)


def test_the_protocol_describes_every_served_command_and_operation():
    described = protocol()
    assert [c["name"] for c in described["commands"]] == list(served())
    assert set(CANCELLABLE) <= set(served())
    for entry in described["commands"]:
        cancel = entry["cancel"]
        assert cancel["cancellable"] == (entry["name"] in CANCELLABLE)
        assert (cancel["why_not"] is None) == cancel["cancellable"]
        assert entry["arguments"]["type"] == "object"
    assert [op["name"] for op in described["operations"]] == [op.name for op in OPERATIONS]
    assert described["event"] == event_schema()
    assert set(described["states"]) == {events.RUNNING, *events.ENDS}


def test_every_operation_is_an_http_route_an_mcp_tool_and_a_subcommand(plane):
    from rofl.servers.http import routes
    from rofl.servers.mcp_executions import tools

    from rofl.commands.executions import command as group

    served_routes = {(method, r.path) for r in routes(plane) for method in (r.methods or ()) if method != "HEAD"}
    listed = {t.name: t for t in tools()}
    for op in OPERATIONS:
        assert (op.method, op.path) in served_routes, op.name
        assert listed[op.tool].input_schema == op.input_schema()
        assert op.subcommand in group.commands, op.name
    assert set(group.commands) == {op.subcommand for op in OPERATIONS}

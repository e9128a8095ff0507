"""The session a server keeps: a lent kernel comes back exactly as it was, and a new scan reloads it."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rofl.servers.session import Session

from rofl.loading.kernel import CODE_BUDGET, KernelInputs

from .conftest import generated_tree, module, rofl


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    root = tmp_path_factory.mktemp("session")
    generated_tree(root / "src", files=40)
    assert rofl("scan", str(root / "src"), "--out", str(root / "facts")).returncode == 0
    return root


def rows_of(kernel) -> dict[str, frozenset]:
    return {rel: frozenset(rows) for rel, rows in kernel.store.base.items()}


paths = st.sampled_from([module(i) for i in range(40)] + ["new/a.ts", "new/b.ts"])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["changed", "touches", "src_file"]), paths, paths), max_size=6))
def test_a_lent_kernel_comes_back_as_it_was_whatever_the_call_asserted(small, asserted):
    session = Session(small / "facts", small / "src", pool=1)
    with session.source() as call:
        kernel = call.kernel(KernelInputs(budget=CODE_BUDGET, facts=str(small / "facts")))
        assert kernel is not None
        before = rows_of(kernel)
        for rel, a, b in asserted:
            if rel == "changed":
                kernel.assert_fact(rel, "main", (a,), who="user")
            elif rel == "touches":
                kernel.assert_fact(rel, "main", (a, b), who="user")
            else:  # into a relation the scan filled: evaluation re-orders its rows
                kernel.assert_fact(rel, "code", (a, 1), who="user")
        kernel.evaluate(goals={"affected"})
    with session.source() as again:
        second = again.kernel(KernelInputs(budget=CODE_BUDGET, facts=str(small / "facts")))
        assert second is kernel  # the same loaded kernel, lent again
        assert rows_of(second) == before


def test_a_new_scan_is_loaded_for_the_next_call(small, tmp_path):
    session = Session(small / "facts", small / "src", pool=1)
    with session.source() as call:
        first = call.kernel(KernelInputs(budget=CODE_BUDGET, facts=str(small / "facts")))
    (small / "src" / "pkg0" / "late.ts").write_text('import { v1 } from "./m1";\n')
    assert rofl("scan", str(small / "src"), "--out", str(small / "facts")).returncode == 0
    with session.source() as call:
        second = call.kernel(KernelInputs(budget=CODE_BUDGET, facts=str(small / "facts")))
    assert second is not first
    files = {row[1] for row in second.rows("src_file", "code")}
    assert "pkg0/late.ts" in files


def test_executions_past_the_pending_bound_are_refused_until_some_end(small):
    from rofl.servers.executions import Executions, TooMany, result_of

    session = Session(small / "facts", small / "src", pool=1)
    executions = Executions(session, workers=2, pending=2)
    try:
        with session.scan_lock:  # impact rescans first, under the session's scan lock: both wait here
            waiting = [executions.start("impact", {"changed": [module(i)]}) for i in (2, 3)]
            with pytest.raises(TooMany, match="2 executions are waiting or running"):
                executions.start("impact", {"changed": [module(4)]})
        assert [result_of(e)["state"] for e in waiting] == ["succeeded", "succeeded"]
        assert result_of(executions.start("impact", {"changed": [module(4)]}))["state"] == "succeeded"
    finally:
        executions.shutdown()


def test_a_kernel_kept_for_a_command_holds_only_its_declarations_and_is_exact_for_another(small):
    session = Session(small / "facts", small / "src", pool=1)
    with session.source("impact") as call:
        kernel = call.kernel(KernelInputs(budget=CODE_BUDGET, facts=str(small / "facts")))
        pristine = rows_of(kernel)
        kernel.assert_fact("changed", "main", (module(3),), who="user")
        kernel.evaluate(goals={"affected"})
    with session.source("impact") as call:
        again = call.kernel(KernelInputs(budget=CODE_BUDGET, facts=str(small / "facts")))
        held = rows_of(again)
    assert again is kernel
    assert {rel for rel in held if held[rel] != pristine.get(rel)} == {"edb"}  # the declaration of changed/1
    assert "changed" not in held and pristine["edb"] < held["edb"]
    with session.source("relations") as call:
        other = call.kernel(KernelInputs(budget=CODE_BUDGET, facts=str(small / "facts")))
        assert other is kernel and rows_of(other) == pristine


def test_an_impact_on_a_kernel_kept_for_impact_answers_as_the_command_line(small):
    import json

    from rofl.servers.executions import Executions, result_of

    executions = Executions(Session(small / "facts", small / "src", pool=1))
    try:
        asked = [
            ({"changed": [module(5)], "runtime": True, "no_rescan": True}, ["--runtime"]),
            ({"changed": [module(2), "pkg3"], "no_rescan": True}, []),  # a folder as well
            ({"changed": [module(5)], "no_rescan": True}, []),  # after both, with their declarations kept
        ]
        for args, extra in asked:
            view = result_of(executions.start("impact", args))
            assert view["state"] == "succeeded", view
            served = view["result"]["output"]
            argv = [a for path in args["changed"] for a in ("--changed", path)]
            cli = rofl("impact", "--facts", str(small / "facts"), *argv, *extra, "--no-rescan", "--json")
            assert served == json.loads(cli.stdout), args
    finally:
        executions.shutdown()


def test_a_session_source_lends_its_kernel_only_for_the_folder_alone_and_keeps_what_the_scan_holds(small, tmp_path):
    session = Session(small / "facts", small / "src", pool=1)
    program = tmp_path / "extra.rofl"
    program.write_text("extra(1).\n")
    facts = str(small / "facts")
    with session.source("ask") as source:
        lent = source.kernel(KernelInputs(budget=CODE_BUDGET, facts=facts))
        loaded = source.kernel(KernelInputs((str(program),), budget=CODE_BUDGET, facts=facts))  # program files: a load
        checked = source.kernel(
            KernelInputs(budget=CODE_BUDGET, facts=facts, use_cache=False)
        )  # audit's load from the files
        assert len(source.leases) == 1 and loaded is not lent and checked is not lent
        assert source.manifest(small / "facts") is source.manifest(small / "facts")  # parsed once
        assert source.serves(small / "facts") and not source.serves(tmp_path)
        built: list[int] = []
        for _ in range(2):
            assert source.kept(small / "facts", "view", lambda: built.append(1) or "value") == "value"
        assert built == [1]
    assert source.leases == []
    with session.source("ask") as again:
        assert again.kernel(KernelInputs(budget=CODE_BUDGET, facts=facts)) is lent  # given back when the call ended

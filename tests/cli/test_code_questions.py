"""Questions over the scanned example shop: dependencies, cycles, orphans, impact, layering, tampering, export, cache."""

from __future__ import annotations

import json
import shutil
import subprocess

import networkx as nx
import pytest

from tests.conftest import EXAMPLES

SHOP = EXAMPLES / "shop"
LAYERS = SHOP / "layers.rofl"


@pytest.fixture(scope="module")
def scanned(tmp_path_factory):
    """A private copy of the shop, scanned once; tests that mutate take their own copy."""
    from click.testing import CliRunner

    from rofl.cli import main

    root = tmp_path_factory.mktemp("shop")
    src = root / "shop"
    shutil.copytree(SHOP, src)
    out = root / "facts"
    result = CliRunner().invoke(main, ["scan", str(src), "--out", str(out), "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return src, out


def dependency_edges(rofl, facts) -> set[tuple[str, str]]:
    code, out, _ = rofl("ask", "dependency[code](A, B)", "--facts", facts, "--json")
    assert code == 0
    return {(a["A"].strip('"'), a["B"].strip('"')) for a in json.loads(out)["answers"]}


def test_dependency_edges_follow_aliases_relative_and_index_imports(rofl, scanned):
    _, facts = scanned
    edges = dependency_edges(rofl, facts)
    assert ("src/domain/order.ts", "src/ui/format.ts") in edges  # @ui/format alias
    assert ("src/services/notifications.ts", "src/services/templates.ts") in edges  # ./templates.js names a .ts file
    assert ("src/index.ts", "src/services/index.ts") in edges  # ./services -> index.ts
    assert all(a != b for a, b in edges)


def test_cycle_is_found(rofl, scanned):
    _, facts = scanned
    code, out, _ = rofl("ask", "in_cycle[code](F)", "--facts", facts)
    assert out.splitlines() == ['F = "src/services/checkout.ts"', 'F = "src/services/inventory.ts"']


def test_orphan_is_the_legacy_file(rofl, scanned):
    _, facts = scanned
    code, out, _ = rofl("ask", "orphan(F)", "--facts", facts)
    assert out.splitlines() == ['F = "src/util/legacy.ts"']  # src/index.ts is package.json's main


def test_impact_chains_are_valid_import_paths(rofl, scanned):
    _, facts = scanned
    edges = dependency_edges(rofl, facts)
    code, out, _ = rofl("impact", "--facts", facts, "--changed", "src/domain/money.ts", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["changed"] == ["src/domain/money.ts"]
    files = [a["file"] for a in data["affected"]]
    assert files == sorted(files) and "src/domain/money.ts" not in files
    graph = nx.DiGraph(edges)
    assert set(files) == nx.ancestors(graph, "src/domain/money.ts")
    for item in data["affected"]:
        via = item["via"]
        assert via[0] == item["file"] and via[-1] == "src/domain/money.ts"
        assert all((a, b) in edges for a, b in zip(via, via[1:]))
        assert len(via) - 1 == nx.shortest_path_length(graph, item["file"], "src/domain/money.ts")
    assert any(len(a["via"]) >= 4 for a in data["affected"])


def test_impact_text_output(rofl, scanned):
    _, facts = scanned
    code, out, _ = rofl("impact", "--facts", facts, "--changed", "src/util/ids.ts")
    assert code == 0
    assert out.splitlines()[0].endswith("affected by src/util/ids.ts")
    assert "via src/domain/order.ts -> src/util/ids.ts" in out


def test_impact_from_git_base(rofl, tmp_path):
    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    git = lambda *a: subprocess.run(["git", "-C", str(src), *a], check=True, capture_output=True)  # noqa: E731
    git("init", "-q")
    git("-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    out_dir = tmp_path / "facts"
    assert rofl("scan", src, "--out", out_dir)[0] == 0
    (src / "src" / "util" / "strings.ts").write_text(
        (src / "src" / "util" / "strings.ts").read_text() + "\nexport const added = 1;\n"
    )
    (src / "src" / "util" / "brand_new.ts").write_text("export const x = 1;\n")
    code, out, _ = rofl("impact", "--facts", out_dir, "--git-base", "HEAD", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["changed"] == ["src/util/brand_new.ts", "src/util/strings.ts"]
    assert data["affected"] and all(a["via"][-1] == "src/util/strings.ts" for a in data["affected"])
    graph = nx.DiGraph(dependency_edges(rofl, out_dir))
    assert {a["file"] for a in data["affected"]} == nx.ancestors(graph, "src/util/strings.ts")


def test_layering_violation_and_exit_codes(rofl, scanned):
    _, facts = scanned
    code, out, _ = rofl("audit", "--facts", facts, "--rules", LAYERS, "--json")
    data = json.loads(out)
    assert code == 1
    assert data["audits"] == {"violation": ['violation[audit]("src/domain/order.ts", "src/ui/format.ts")']}
    code, out, _ = rofl("audit", "--facts", facts)
    assert code == 0 and "all audits are empty" in out


def test_tampered_fact_files_surface_as_forged(rofl, tmp_path):
    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    facts = tmp_path / "facts"
    assert rofl("scan", src, "--out", facts)[0] == 0
    assert rofl("audit", "--facts", facts)[0] == 0
    # an added fact file
    (facts / "code" / "extra.rofl").write_text('src_resolves[code]("src/index.ts", "./x", "src/util/legacy.ts").\n')
    code, out, err = rofl("audit", "--facts", facts, "--json")
    assert code == 1
    assert json.loads(out)["audits"]["forged"] == [
        'forged[audit]($fact(src_resolves, code, $args("src/index.ts", "./x", "src/util/legacy.ts")))'
    ]
    assert "not written by the scanner" in err
    # ask still answers but warns
    code, out, err = rofl("ask", "orphan(F)", "--facts", facts)
    assert "legacy" not in out and "warning:" in err
    (facts / "code" / "extra.rofl").unlink()
    assert rofl("audit", "--facts", facts)[0] == 0
    # an edited fact file
    victim = sorted((facts / "code").glob("src_domain_money*.rofl"))[0]
    victim.write_text(victim.read_text() + 'src_export[code]("src/domain/money.ts", "evil").\n')
    code, out, err = rofl("audit", "--facts", facts, "--json")
    forged = json.loads(out)["audits"]["forged"]
    assert code == 1 and 'forged[audit]($fact(src_export, code, $args("src/domain/money.ts", "evil")))' in forged
    assert "changed since the scan" in err


def test_user_rule_files_do_not_forge_outside_code(rofl, scanned, tmp_path):
    _, facts = scanned
    entry = tmp_path / "entries.rofl"
    entry.write_text('entry("src/util/legacy.ts").\n')
    code, out, _ = rofl("ask", "orphan(F)", "--facts", facts, "--rules", entry)
    assert "legacy" not in out
    assert rofl("audit", "--facts", facts, "--rules", entry)[0] == 0
    sneaky = tmp_path / "sneaky.rofl"
    sneaky.write_text('src_file[code]("ghost.ts", "000000000000").\n')
    code, out, _ = rofl("audit", "--facts", facts, "--rules", sneaky, "--json")
    assert code == 1 and "ghost.ts" in json.loads(out)["audits"]["forged"][0]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["graphml", "gexf", "json", "dot", "mermaid"])
def test_export_formats_read_back(rofl, scanned, tmp_path, fmt):
    _, facts = scanned
    target = tmp_path / f"g.{fmt}"
    code, _, _ = rofl("export", "dependency", "--facts", facts, "--format", fmt, "-o", target)
    assert code == 0
    edges = dependency_edges(rofl, facts)
    text = target.read_text()
    if fmt == "graphml":
        g = nx.read_graphml(target)
    elif fmt == "gexf":
        g = nx.read_gexf(target)
    elif fmt == "json":
        g = nx.node_link_graph(json.loads(text), edges="links")
    else:
        g = None
    if g is not None:
        assert set(g.edges) == edges
        assert g.nodes["src/domain/money.ts"]["kind"] == "file"
        assert int(g.nodes["src/domain/money.ts"]["functions"]) > 0
    elif fmt == "dot":
        assert text.startswith('digraph "dependency" {') and text.count(" -> ") == len(edges)
    else:
        assert text.startswith("graph LR") and text.count(" --> ") == len(edges)


def test_export_rejects_non_binary_relation(rofl, scanned):
    _, facts = scanned
    code, _, err = rofl("export", "src_import_kind", "--facts", facts)
    assert code == 2 and "binary relation" in err


def test_cache_is_used_invalidated_by_rescan_and_rebuilt_when_corrupt(rofl, tmp_path):
    from rofl.loading.cache import CACHE_NAME

    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    facts = tmp_path / "facts"
    rofl("scan", src, "--out", facts)
    assert rofl("ask", "orphan(F)", "--facts", facts)[0] == 0
    cache = facts / CACHE_NAME
    assert cache.exists()
    first = cache.read_bytes()
    # a rescan after a change must not reuse the old cache
    (src / "src" / "util" / "legacy.ts").write_text("import { x } from './ids';\nexport const y = 1;\n")
    rofl("scan", src, "--out", facts)
    code, out, _ = rofl("ask", 'dependency[code]("src/util/legacy.ts", B)', "--facts", facts)
    assert 'B = "src/util/ids.ts"' in out
    assert cache.read_bytes() != first
    # a corrupt cache is rebuilt, never trusted
    cache.write_bytes(cache.read_bytes()[:-50] + b"x" * 50)
    code, out, _ = rofl("ask", 'dependency[code]("src/util/legacy.ts", B)', "--facts", facts)
    assert code == 0 and 'B = "src/util/ids.ts"' in out
    # a foreign cache (valid file, another key) is rebuilt too
    cache.write_bytes(first)
    code, out, _ = rofl("ask", 'dependency[code]("src/util/legacy.ts", B)', "--facts", facts)
    assert 'B = "src/util/ids.ts"' in out


def test_missing_fact_folder_is_a_clear_error(rofl, tmp_path):
    code, _, err = rofl("ask", "orphan(F)", "--facts", tmp_path / "nothing")
    assert code == 2 and "run `rofl scan" in err


def test_audit_src_reports_stale_fact_files(rofl, tmp_path):
    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    facts = tmp_path / "facts"
    rofl("scan", src, "--out", facts)
    assert rofl("audit", "--facts", facts, "--src", src)[0] == 0
    (src / "src" / "util" / "ids.ts").write_text("export const changed = 1;\n")
    (src / "src" / "util" / "legacy.ts").unlink()
    (src / "src" / "util" / "fresh.ts").write_text("export const fresh = 1;\n")
    code, out, _ = rofl("audit", "--facts", facts, "--src", src, "--json")
    assert code == 1
    assert json.loads(out)["audits"]["stale"] == [
        "src/util/fresh.ts: added since the scan",
        "src/util/ids.ts: changed since the scan",
        "src/util/legacy.ts: deleted since the scan",
    ]
    rofl("scan", src, "--out", facts)
    assert rofl("audit", "--facts", facts, "--src", src)[0] == 0


def test_ask_with_why_and_whynot_explains_along(rofl, scanned):
    _, facts = scanned
    fact = 'dependency[code]("src/domain/order.ts", "src/ui/format.ts")'
    missing = 'dependency[code]("src/domain/order.ts", "src/services/checkout.ts")'
    code, out, _ = rofl(
        "ask",
        'dependency[code]("src/domain/order.ts", B)',
        "--facts",
        facts,
        "--why",
        fact,
        "--whynot",
        missing,
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and {"B": "src/ui/format.ts"} in data["answers"]
    (why,) = data["why"]
    assert why["kind"] == "derived" and why["children"][0]["kind"] == "base" and why["children"][0]["who"] == "scanner"
    (whynot,) = data["whynot"]
    assert whynot["kind"] == "absent" and whynot["children"][0]["children"][-1]["kind"] == "fails"


def test_export_of_a_derived_relation_over_functions_carries_file_and_line(rofl, scanned, tmp_path):
    _, facts = scanned
    rules = tmp_path / "calls.rofl"
    rules.write_text("calls(A, B) :- src_call[code](_, A, B), src_func[code](_, A, _), src_func[code](_, B, _).\n")
    target = tmp_path / "calls.graphml"
    code, _, _ = rofl("export", "calls", "--facts", facts, "--rules", rules, "--format", "graphml", "-o", target)
    assert code == 0
    g = nx.read_graphml(target)
    assert g.number_of_edges() > 0
    node, data = next(iter(g.nodes(data=True)))
    assert data["kind"] == "function" and data["file"].startswith("src/") and int(data["line"]) > 0


def test_a_cache_compiled_by_other_engine_code_is_rebuilt(rofl, tmp_path, monkeypatch):
    """The engine's code is part of the cache key: a fact folder compiled before an engine change
    (how a rule's premises are reflected, say) must not keep answering with the old engine's meaning."""
    from rofl.loading import cache as compiled

    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    facts = tmp_path / "facts"
    rofl("scan", src, "--out", facts)
    assert rofl("ask", "orphan(F)", "--facts", facts)[0] == 0
    first = (facts / compiled.CACHE_NAME).read_bytes()
    assert rofl("ask", "orphan(F)", "--facts", facts)[0] == 0
    assert (facts / compiled.CACHE_NAME).read_bytes() == first  # same engine: the cache is reused
    real = compiled.engine_fingerprint()
    monkeypatch.setattr(compiled, "engine_fingerprint", lambda: real + b"\nplan.py:1:2")
    assert rofl("ask", "orphan(F)", "--facts", facts)[0] == 0
    assert (facts / compiled.CACHE_NAME).read_bytes() != first  # other engine code: compiled again


def test_every_command_and_rule_file_shares_one_compiled_cache(rofl, tmp_path):
    """The cache holds the scan alone and the rule files load over it: `summary` (rofl's own rules), a
    user's --rules and a plain question in turn reuse it, and each answers as from the fact files."""
    from rofl.loading.cache import CACHE_NAME

    src = tmp_path / "shop"
    shutil.copytree(SHOP, src)
    facts = tmp_path / "facts"
    rofl("scan", src, "--out", facts)
    rules = tmp_path / "rules.rofl"
    rules.write_text('shared[main](F) :- dependency[code](F, "src/util/ids.ts").\n')
    cache = facts / CACHE_NAME
    assert not cache.exists()
    cold = rofl("ask", "shared(F)", "--facts", facts, "--rules", rules)  # from the fact files
    assert cold[0] == 0 and "F = " in cold[1]
    first = cache.read_bytes()
    for argv in (("summary",), ("ask", "orphan(F)"), ("ask", "shared(F)", "--rules", rules), ("cycles",), ("summary",)):
        code, out, _ = rofl(*argv, "--facts", facts)
        assert code in (0, 1) and cache.read_bytes() == first, argv  # answered from the one cache
        if "--rules" in argv:
            assert (code, out) == cold[:2]  # the rule file loads over it as over the fact files

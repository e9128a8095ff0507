"""The prime directive: engine/ knows only the closed kernel vocabulary, never a boot or domain relation.

Two checks.  A *whitelist* for what engine/ spells in string literals (a whole string, or ``name(`` /
``name[`` inside one, which is how code hard-codes a relation: ``rows("src_file")``, ``f"want_held({w})"``):
every such name must be kernel vocabulary (kernel.md §3: the reserved table, plus ``stratum`` and
``unstratified``), a builtin the kernel moded (``mode/2`` is kernel vocabulary too), a word of the language,
a Python name, or one of ENGINE_WORDS, the listed words engine/ uses that are no relation.  And for
identifiers (``def reach()``, ``src_file = ...``): none may be a relation name the project defines
outside the kernel: rules/, examples/, the scanner's schema, the adapter runtime.
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import sys
import tokenize
from pathlib import Path

from rofl.engine import vocabulary as V
from rofl.engine.builtins import TABLE
from rofl.engine.clauses import Literal, Negated
from rofl.engine.parse import parse_program

from tests.conftest import ROOT

WHITELIST = set(V.RESERVED_RELATIONS) | {V.STRATUM, V.UNSTRATIFIED}
BUILTINS = {b.op for b in TABLE} | {b.code for b in TABLE if b.code}

PYTHON_WORDS = set(dir(__builtins__) if isinstance(__builtins__, dict) is False else __builtins__) | {
    w for t in (list, dict, str, tuple, set, int) for w in dir(t)
}
PYTHON_NAMES = PYTHON_WORDS | set(keyword.kwlist) | set(sys.stdlib_module_names)

# Words of the ROFL language the parser and printer spell: keywords, temporal marks, the kernel's own
# perspectives, token kinds.
LANGUAGE = {
    "want", "bridge", "not", "is", "mod", "init", "next", "now", "main", "boot", "audit", "budget_exhausted",
    "atom", "integer", "variable", "punct", "string", "text", "term", "ground", "describe",
}  # fmt: skip

# Words engine/ spells in strings that name no relation: hole and evaluation kinds, execution events,
# the saved store's keys, explanation node kinds, names of generated evaluation code, one-letter tags.
# Add a word here only when it is not a relation; a relation name belongs in the kernel vocabulary
# (engine/vocabulary.py, kernel.md §3) or outside engine/.
ENGINE_WORDS = {
    # evaluation and hole kinds (kernel.py, store.py), tick bookkeeping
    "load", "q", "query", "tick", "ticks", "tick_log", "cycle", "step",
    # execution events and their states (events.py)
    "running", "succeeded", "failed", "cancelled", "started", "finished", "progress", "warning",
    "execution", "data", "seq", "v", "_flag", "_reason", "rofl_reporter",
    # the saved store (persist.py)
    "base", "body", "counters", "history", "metas", "past", "provenance", "strings", "version", "sha256",
    "c", "i", "r", "s", "t",
    # explanations (explain.py, display.py, catalog.py)
    "absent", "aggregate", "aggregate_text", "builtin", "children", "derived", "detail", "fact", "facts",
    "fails", "holds", "kind", "label", "missing", "more", "negation", "ok", "origin", "rule_text",
    "solution", "term_text", "item_text", "row", "rules", "kernel", "display_name", "format_fact",
    "format_term", "format_args", "who", "_indent", "_partial", "_",
    # generated evaluation code and plans (plan.py, builtins.py, cycles.py, tables.py, aggregates.py)
    "_add", "_sub", "_mul", "_div", "_mod", "_built_nodes", "_exists", "_extra", "_vname", "_done",
    "_indexes", "_table", "agg", "arith", "assign", "bound", "build", "ctx", "cols", "delta", "e", "f",
    "free", "full", "g", "ii", "o", "oi", "indexes", "names", "new", "old", "p", "pattern", "persp",
    "rec", "rows", "table", "test", "unify", "v_", "value", "variant", "w_", "k", "n", "u",
    "pindex", "pindexes", "_again", "_again_lean", "lean_records", "pending", "idx", "width", "one",
    "pattern_index", "size", "col", "_built", "matchers", "_set", "_ids", "_alone",
    # metadata, text builtins (re2: an optional module they import), safe writes
    "pair", "rel", "store", "accept", "begin", "end", "regex", "getpid", "re2",
}  # fmt: skip
ALLOWED = WHITELIST | BUILTINS | LANGUAGE | ENGINE_WORDS | PYTHON_NAMES


def outside_relation_names() -> set[str]:
    """The relation names the project defines outside the kernel: rules/ (boot's helpers, the audits,
    the code rules), the scanner's [code] schema, the adapter runtime (book declarations, want status),
    and the distinctive names (with an underscore) of examples/ (whose p, q, n are any code's words)."""
    from rofl.adapters.books import DECLARATIONS
    from rofl.adapters.wants import STATUS_ARITY
    from rofl.scanner import schema

    names = _names(sorted(ROOT.glob("rules/**/*.rofl")))
    names |= {n for n in _names(sorted(ROOT.glob("examples/**/*.rofl"))) if "_" in n}
    names |= {r.name for r in vars(schema).values() if isinstance(r, schema.Relation)}
    return names | set(DECLARATIONS) | set(STATUS_ARITY)


def _names(paths: list[Path]) -> set[str]:
    names: set[str] = set()
    for path in paths:
        for clause in parse_program(path.read_text(encoding="utf-8"), str(path)):
            names.add(clause.head.rel)
            for item in clause.body:
                lit = item.lit if isinstance(item, Negated) else item
                if isinstance(lit, Literal):
                    names.add(lit.rel)
    return names


def docstring_positions(source: str) -> set[tuple[int, int]]:
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                out.add((body[0].lineno, body[0].col_offset))
    return out


def engine_words(path: Path) -> dict[str, int]:
    """Identifiers, and names a string literal spells as a relation (the whole string, or ``name(`` /
    ``name[`` inside it); docstrings and comments are prose and do not count."""
    source = path.read_text(encoding="utf-8")
    docs = docstring_positions(source)
    found: dict[str, int] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME:
            found.setdefault(tok.string, tok.start[0])
        elif tok.type == tokenize.STRING and tok.start not in docs:
            body = ast.literal_eval(tok.string) if not tok.string.startswith(("f", "F", "rf", "fr")) else tok.string
            if isinstance(body, bytes):
                continue
            if re.fullmatch(r"[a-z_][a-z0-9_]*", body):
                found.setdefault(body, tok.start[0])
            for word in re.findall(r"([a-z_][a-z0-9_]*)[\[(]", body):
                found.setdefault(word, tok.start[0])
    return found


def forbidden_identifiers() -> set[str]:
    """Identifiers engine/ may not use: a relation of rules/, and any distinctive name (with an
    underscore) of examples/, the scanner or the adapters."""
    rules = _names(sorted(ROOT.glob("rules/**/*.rofl")))
    distinctive = {n for n in outside_relation_names() if "_" in n}
    return (rules | distinctive) - WHITELIST - PYTHON_NAMES


def string_names(path: Path) -> dict[str, int]:
    """The names ``path`` spells in string literals (as ``engine_words`` reads them), first line each."""
    source = path.read_text(encoding="utf-8")
    docs = docstring_positions(source)
    found: dict[str, int] = {}
    middle = getattr(tokenize, "FSTRING_MIDDLE", None)  # Python 3.12 splits f-strings into pieces
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING and tok.start not in docs:
            raw = tok.string
            body = ast.literal_eval(raw) if not raw.lower().startswith(("f", "rf", "fr")) else raw
        elif middle is not None and tok.type == middle:
            body = tok.string
        else:
            continue
        if isinstance(body, bytes):
            continue
        for word in _spelled(body):
            found.setdefault(word, tok.start[0])
    return found


def _spelled(body: str) -> list[str]:
    words = re.findall(r"([a-z_][a-z0-9_]*)[\[(]", body)
    return [body, *words] if re.fullmatch(r"[a-z_][a-z0-9_]*", body) else words


def test_engine_strings_spell_only_whitelisted_names():
    offences = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for word, line in string_names(path).items():
            if word not in ALLOWED:
                offences.append(f"{path.relative_to(ROOT)}:{line}: '{word}'")
    assert not offences, (
        "engine/ spells names outside its whitelist (kernel vocabulary, builtins, the language, "
        "ENGINE_WORDS in this test):\n" + "\n".join(offences)
    )


def test_no_outside_relation_hides_among_the_engine_words():
    """ENGINE_WORDS and LANGUAGE excuse words that are no relation; a relation some layer above the kernel
    defines must not be excused, except the few common words listed here with where engine/ uses them."""
    shared = {
        "failed": "an execution's state (events.py); the adapters' failed(W, Why) is theirs",
        "query": "a hole kind (kernel.py); query(Cap, Sql) is an sql book's declaration",
    }
    overlap = (ENGINE_WORDS | LANGUAGE) & outside_relation_names()
    assert overlap <= set(shared), sorted(overlap - set(shared))


def test_engine_identifiers_name_no_relation_outside_the_kernel_vocabulary():
    forbidden = forbidden_identifiers()
    assert {"sees", "reach", "dep", "malformed", "forged", "leak", "breach", "unmoded", "perspective"} <= forbidden
    assert {"src_file", "src_import", "want_held", "want_of", "max_wants", "event_time"} <= forbidden
    offences = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for word, line in engine_words(path).items():
            if word in forbidden:
                offences.append(f"{path.relative_to(ROOT)}:{line}: '{word}'")
    assert not offences, "engine/ hard-codes relation names:\n" + "\n".join(offences)


def test_the_guards_catch_a_planted_name(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        '"""Docstrings may say sees(A)."""\nx = "sees"\ndef reach(): pass\ny = f"dep_neg({x})"\nz = "a sentence about leak"\n'
    )
    words = engine_words(planted)
    assert "sees" in words and "reach" in words and "dep_neg" in words
    assert "leak" not in words
    assert engine_words(planted)["sees"] == 2  # the docstring on line 1 does not count


def test_the_whitelist_refuses_a_scanner_or_adapter_name_written_into_engine(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        'a = rows("src_file")\nb = f"want_held({w}, {why})"\nc = "main"\nd = store.get("derived_by")\nsrc_import = 1\n'
    )
    spelled = string_names(planted)
    assert {w for w in spelled if w not in ALLOWED} == {"src_file", "want_held"}
    assert spelled["want_held"] == 2
    assert "src_import" in set(engine_words(planted)) & forbidden_identifiers()


def test_engine_imports_only_the_standard_library():
    allowed_roots = {"engine", "__future__"}
    import sys

    stdlib = set(sys.stdlib_module_names)
    for path in sorted((ROOT / "engine").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    continue
                mods = [node.module or ""]
            else:
                continue
            for mod in mods:
                root = mod.split(".")[0]
                assert root in stdlib or root in allowed_roots, f"{path.name} imports {mod}"

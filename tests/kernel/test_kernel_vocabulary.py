"""The prime directive: engine/ knows only the closed kernel vocabulary, never a boot or domain relation."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from engine import vocabulary as V
from engine.clauses import Literal, Negated
from engine.parse import parse_program
from tests.conftest import ROOT

WHITELIST = set(V.RESERVED_RELATIONS) | {V.STRATUM, V.UNSTRATIFIED}


PYTHON_WORDS = set(dir(__builtins__) if isinstance(__builtins__, dict) is False else __builtins__) | {
    w for t in (list, dict, str, tuple, set, int) for w in dir(t)
}


def relation_names_in_rules() -> set[str]:
    """Relation names of rules/ (boot and the code rules), plus distinctive names from examples/."""
    names = _names(sorted(ROOT.glob("rules/**/*.rofl")))
    examples = _names(sorted(ROOT.glob("examples/**/*.rofl")))
    return names | {n for n in examples if "_" in n and n not in PYTHON_WORDS}


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


def test_engine_source_names_no_relation_outside_the_kernel_vocabulary():
    forbidden = relation_names_in_rules() - WHITELIST
    assert {"sees", "reach", "dep", "malformed", "forged", "leak", "breach", "unmoded", "perspective"} <= forbidden
    offences = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for word, line in engine_words(path).items():
            if word in forbidden:
                offences.append(f"{path.relative_to(ROOT)}:{line}: '{word}'")
    assert not offences, "engine/ hard-codes relation names:\n" + "\n".join(offences)


def test_the_guard_catches_a_planted_name(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        '"""Docstrings may say sees(A)."""\nx = "sees"\ndef reach(): pass\ny = f"dep_neg({x})"\nz = "a sentence about leak"\n'
    )
    words = engine_words(planted)
    assert "sees" in words and "reach" in words and "dep_neg" in words
    assert "leak" not in words
    assert engine_words(planted)["sees"] == 2  # the docstring on line 1 does not count


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

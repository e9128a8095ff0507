"""package.json ``exports`` and ``imports``: the ordered target paths a subpath maps to under a condition set.

Follows Node's PACKAGE_EXPORTS_RESOLVE / PACKAGE_IMPORTS_RESOLVE with TypeScript's search order:

* ``exports`` may be a string, an array, a conditions object (the ``"."`` sugar), or an object of
  subpath keys (``"."``, ``"./x"``, ``"./features/*.js"``); ``imports`` keys start with ``#``.
* a key without ``*`` matches only itself; pattern keys (one ``*``) are tried most specific first
  (Node's PATTERN_KEY_COMPARE: longer prefix before the ``*``, then longer key) and the first whose
  prefix and suffix fit is the match (exactly one key matches, as in Node).
* a conditions object is walked in its own key order; a key applies when it is ``"default"`` or in
  the condition set; arrays are tried in order.  As TypeScript does, a target that leads to no
  file lets the search go on to the next applicable condition or array item.
* ``null`` excludes: the search stops there with no answer.

``export_targets`` and ``import_targets`` yield the candidate strings in search order (``./``-relative
paths, or bare specifiers for ``imports``); the caller probes each and stops at the first that resolves.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cmp_to_key
from typing import Any

_BAD_SEGMENTS = frozenset({"", ".", "..", "node_modules"})


def pattern_key_compare(a: str, b: str) -> int:
    """Node's PATTERN_KEY_COMPARE: negative when ``a`` is the more specific key."""
    base_a = a.find("*") + 1
    base_b = b.find("*") + 1
    if base_a > base_b:
        return -1
    if base_b > base_a:
        return 1
    if "*" not in a:
        return 1
    if "*" not in b:
        return -1
    if len(a) > len(b):
        return -1
    if len(b) > len(a):
        return 1
    return 0


def _match(key: str, table: dict[str, Any]) -> tuple[Any, str | None] | None:
    """(target, pattern match or None) of the entry of ``table`` that ``key`` selects, or None."""
    if "*" not in key and key in table:
        return table[key], None
    patterns = sorted(
        (k for k in table if isinstance(k, str) and k.count("*") == 1), key=cmp_to_key(pattern_key_compare)
    )
    for pattern in patterns:
        head, tail = pattern.split("*")
        if key.startswith(head) and key != head:
            if not tail or (key.endswith(tail) and len(key) >= len(pattern)):
                return table[pattern], key[len(head) : len(key) - len(tail)]
    return None


def _valid_relative(target: str) -> bool:
    """A ``./`` target with no empty, ``.``, ``..`` or ``node_modules`` segment after the leading ``.``."""
    return not any(s.lower() in _BAD_SEGMENTS for s in target[2:].replace("\\", "/").split("/"))


def _walk(target: Any, star: str | None, conditions: frozenset[str], imports: bool) -> Iterator[str | None]:
    """Yield candidate strings in search order; a yielded ``None`` means excluded: stop searching."""
    if isinstance(target, str):
        if target.startswith("./"):
            if not _valid_relative(target):
                return
            if star is not None:
                if any(s.lower() in _BAD_SEGMENTS - {""} for s in star.replace("\\", "/").split("/")):
                    return
                target = target.replace("*", star)
            yield target
        elif imports and not target.startswith(("../", "/")) and ":" not in target.split("/")[0]:
            yield target.replace("*", star) if star is not None else target  # a package specifier
        return
    if target is None:
        yield None
        return
    if isinstance(target, list):
        for item in target:
            for found in _walk(item, star, conditions, imports):
                yield found
                if found is None:
                    return
        return
    if isinstance(target, dict):
        for condition, value in target.items():
            if condition == "default" or condition in conditions:
                for found in _walk(value, star, conditions, imports):
                    yield found
                    if found is None:
                        return


def _stop_at_exclusion(found: Iterator[str | None]) -> Iterator[str]:
    for item in found:
        if item is None:
            return
        yield item


def export_targets(exports: Any, subpath: str, conditions: frozenset[str]) -> Iterator[str]:
    """Candidate ``./`` paths (relative to the package folder) that ``exports`` gives ``subpath``.

    ``subpath`` is ``"."`` or ``"./rest"``.
    """
    if isinstance(exports, dict):
        keys = [k for k in exports if isinstance(k, str)]
        dotted = [k.startswith(".") for k in keys]
        if any(dotted) and not all(dotted):
            return iter(())  # an invalid mix of subpaths and conditions: Node refuses the package
        if not any(dotted):
            return _stop_at_exclusion(_walk(exports, None, conditions, False)) if subpath == "." else iter(())
        found = _match(subpath, exports)
        if found is None:
            return iter(())
        return _stop_at_exclusion(_walk(found[0], found[1], conditions, False))
    if subpath == "." and isinstance(exports, (str, list)):
        return _stop_at_exclusion(_walk(exports, None, conditions, False))
    return iter(())


def import_targets(imports: Any, specifier: str, conditions: frozenset[str]) -> Iterator[str]:
    """Candidates for a ``#name`` specifier: ``./`` paths relative to the package folder, or bare specifiers."""
    if not isinstance(imports, dict) or specifier in ("#", "#/") or specifier.startswith("#/"):
        return iter(())
    found = _match(specifier, imports)
    if found is None:
        return iter(())
    return _stop_at_exclusion(_walk(found[0], found[1], conditions, True))

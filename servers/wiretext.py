"""Text across a server's wire: lone surrogates found in what a client sends, and never sent out raw.

A JSON text may spell a lone surrogate (``"\\ud800"``), which is no character: a request holding one is
refused with a 4xx naming where it is (``surrogate_at``).  Answers may still hold one (rofl writes
the undecodable bytes of a file name as lone surrogates, and ``\\u{D800}`` is a rofl string), so the
JSON a server sends escapes them (``json_text``: always valid UTF-8, the same value once parsed), and
values handed to a library that encodes strictly (the MCP SDK) spell them as rofl does, ``\\u{HEX}``
(``encodable``).
"""

from __future__ import annotations

import re
from typing import Any

SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_at(value: Any, where: str = "") -> str | None:
    """Where (``args.query``, under ``where``) the first string holding a lone surrogate lies in a parsed
    JSON value, keys included, and which one; None when every string is text."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            found = SURROGATE.search(item)
            if found:
                return f"{path or 'the body'} (U+{ord(found.group()):04X})"
        elif isinstance(item, dict):
            for key, inner in reversed(list(item.items())):
                if SURROGATE.search(str(key)):
                    return surrogate_at(str(key), f"a key in {path or 'the body'}")
                stack.append((f"{path}.{key}" if path else str(key), inner))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", inner) for i, inner in reversed(list(enumerate(item))))
    return None


def refusal(value: Any, where: str = "") -> str | None:
    """The one-line refusal of a parsed body (or its part ``where``) holding a lone surrogate; None when
    it holds none."""
    at = surrogate_at(value, where)
    if at is None:
        return None
    return f"{at} holds a lone surrogate, which is not text; send UTF-8 text (inside a rofl string, write such a character \\u{{HEX}})"


def json_text(value: Any) -> str:
    """``value`` as the one JSON encoding of the commands, every lone surrogate written as a JSON escape."""
    from rofl.questions.jsonout import dumps_fast

    return dumps_fast(value)  # which writes every lone surrogate as its JSON escape


def encodable(value: Any) -> Any:
    """``value`` (a JSON value), or a copy with each lone surrogate in its strings (keys too) written ``\\u{HEX}``."""
    return _spelled(value) if surrogate_at(value) is not None else value


def _spelled(value: Any) -> Any:
    if isinstance(value, str):
        return SURROGATE.sub(lambda m: f"\\u{{{ord(m.group()):X}}}", value)
    if isinstance(value, dict):
        return {_spelled(k): _spelled(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_spelled(v) for v in value]
    return value

"""Cooked values of JavaScript string literals: the escape sequences a specifier may contain."""

from __future__ import annotations

_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def unescape(escape: str) -> str:
    """The value of one escape sequence as tree-sitter reports it (``\\n``, ``\\x41``, ``\\u{1F600}``)."""
    if len(escape) < 2 or escape[0] != "\\":
        return escape
    body = escape[1:]
    head = body[0]
    if head in "\r\n\u2028\u2029":  # line continuation
        return ""
    if head in _SIMPLE and len(body) == 1:
        return _SIMPLE[head]
    try:
        if head == "x" and len(body) == 3:
            return chr(int(body[1:], 16))
        if head == "u":
            digits = body[2:-1] if body.startswith("u{") else body[1:]
            return chr(int(digits, 16))
    except ValueError:
        return body
    if head.isdigit():  # legacy octal escapes
        try:
            return chr(int(body, 8))
        except ValueError:
            return body
    return body

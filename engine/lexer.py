"""Tokens of ROFL source text, with exact line and column positions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .base.errors import RoflSyntaxError

# token kinds
ATOM, VAR, INT, STRING, PUNCT, EOF = "atom", "variable", "integer", "string", "punct", "end of input"

# an atom, relation or perspective name: what ``tokenize`` reads as one ATOM (the one home of this grammar)
NAME = r"[a-z][A-Za-z0-9_]*"
_NAME = re.compile(NAME)

_PUNCT2 = (":-", "!=", "<=", ">=")
_PUNCT1 = "()[],.@+-*/=<>{}:"
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    text: str
    value: Any  # int for INT tokens, str for STRING and names, else None
    line: int
    col: int

    def describe(self) -> str:
        if self.kind == EOF:
            return "end of input"
        if self.kind == STRING:
            return "a string"
        return f"'{self.text}'"


def is_name(text: str) -> bool:
    """Whether ``text`` is an atom, relation or perspective name (``NAME``)."""
    return _NAME.fullmatch(text) is not None


def tokenize(text: str, source: str = "<input>") -> list[Token]:
    """Split ``text`` into tokens; raise RoflSyntaxError at the first character that cannot start one."""
    tokens: list[Token] = []
    i, n, line, line_start = 0, len(text), 1, 0
    append = tokens.append
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
            line_start = i
            continue
        if ch in " \t\r\f":
            i += 1
            continue
        col = i - line_start + 1
        if ch == "-" and text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if ch.isascii() and (ch.isalpha() or ch == "_"):
            j = i + 1
            while j < n and (text[j].isascii() and (text[j].isalnum() or text[j] == "_")):
                j += 1
            word = text[i:j]
            kind = VAR if (ch == "_" or ch.isupper()) else ATOM
            append(Token(kind, word, word, line, col))
            i = j
            continue
        if ch.isdigit() and ch.isascii():
            j = i + 1
            while j < n and text[j].isdigit() and text[j].isascii():
                j += 1
            if j < n and text[j].isascii() and (text[j].isalpha() or text[j] == "_"):
                raise RoflSyntaxError(
                    source, line, j - line_start + 1, "a number cannot run into a name; add a space or an operator"
                )
            append(Token(INT, text[i:j], int(text[i:j]), line, col))
            i = j
            continue
        if ch == '"':
            value, i, line, line_start = _read_string(text, i, line, line_start, source)
            append(Token(STRING, '"', value, line, col))
            continue
        two = text[i : i + 2]
        if two in _PUNCT2:
            append(Token(PUNCT, two, two, line, col))
            i += 2
            continue
        if ch in _PUNCT1:
            append(Token(PUNCT, ch, ch, line, col))
            i += 1
            continue
        if ch == "$":
            raise RoflSyntaxError(source, line, col, "'$' names are kernel-internal and cannot be written in source")
        raise RoflSyntaxError(source, line, col, f"unexpected character {ch!r}")
    append(Token(EOF, "", None, line, i - line_start + 1))
    return tokens


def _read_string(text: str, i: int, line: int, line_start: int, source: str) -> tuple[str, int, int, int]:
    start_line, start_col = line, i - line_start + 1
    out: list[str] = []
    i += 1
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            return "".join(out), i + 1, line, line_start
        if ch == "\n":
            raise RoflSyntaxError(
                source, start_line, start_col, 'unterminated string; close it with " or write \\n for a newline'
            )
        if ch == "\\":
            nxt = text[i + 1 : i + 2]
            if nxt in _SIMPLE_ESCAPES:
                out.append(_SIMPLE_ESCAPES[nxt])
                i += 2
                continue
            if nxt == "u" and text[i + 2 : i + 3] == "{":
                end = text.find("}", i + 3)
                digits = text[i + 3 : end] if end > 0 else ""
                if end > 0 and 0 < len(digits) <= 6 and all(c in "0123456789abcdefABCDEF" for c in digits):
                    code = int(digits, 16)
                    if code <= 0x10FFFF:  # lone surrogates stand for undecodable bytes of file names
                        out.append(chr(code))
                        i = end + 1
                        continue
            raise RoflSyntaxError(
                source, line, i - line_start + 1, 'unknown escape; use \\" \\\\ \\n \\t \\r or \\u{hex}'
            )
        out.append(ch)
        i += 1
    raise RoflSyntaxError(source, start_line, start_col, 'unterminated string; close it with "')

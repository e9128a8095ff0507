"""JSONC as TypeScript reads ``tsconfig.json``: JSON plus comments and trailing commas, nothing of JSON5.

``tsc`` parses a tsconfig with its own JavaScript scanner in JSON mode, so a config holds exactly:
``//`` and ``/* */`` comments (and a ``#!`` line at the very start), a trailing comma before a
closing ``}`` or ``]``, JavaScript whitespace (``\\v``, NBSP, U+2028 ...), double-quoted strings
with JavaScript escapes (``\\x41``, ``\\u{1F600}``, a backslash before a line break continues the
line, ``\\q`` is ``q``; octal escapes are errors), numeric literals as JavaScript writes them
(``0x1F``, ``0b101``, ``0o17``, ``.5``, ``5.``, ``1_000``, a ``-`` before one; ``+1``, ``01`` and
``1n`` are errors), ``true``, ``false`` and ``null``.  A file that is empty (or only comments) is
``{}``; the root must be an object.  What ``tsc`` reports as an error — single quotes, unquoted
names, ``Infinity``/``NaN``/``undefined``, a missing or doubled comma, text after the root —
raises ``JsoncError`` naming the line and column, so that the config is a finding rather than
a guess.  The JSON5 libraries on PyPI accept single quotes, unquoted names and ``Infinity`` and
refuse an empty file, which ``tsc`` does the other way round; hence this reader.

Parsing is iterative with an explicit stack and a depth limit, so no input can exhaust the
interpreter's stack; a string value's lone surrogate escapes stay as they are (as ``json`` keeps
them), a pair of them is one character.
"""

from __future__ import annotations

from typing import Any

_LINE_BREAKS = frozenset("\n\r\u2028\u2029")
_WHITESPACE = frozenset(" \t\v\f\u00a0\u0085\u1680\u202f\u205f\u3000\ufeff" + "".join(map(chr, range(0x2000, 0x200C))))
_TRIVIA = _WHITESPACE | _LINE_BREAKS
_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r", '"': '"', "'": "'", "\\": "\\"}
_HEX = frozenset("0123456789abcdefABCDEF")
_DIGITS = frozenset("0123456789")
_LONGEST_INT = 4000  # digits; Python refuses to convert longer decimal strings to int
_RADIX = {"x": (16, _HEX), "b": (2, frozenset("01")), "o": (8, frozenset("01234567"))}


class JsoncError(ValueError):
    """Text that ``tsc`` would report as a tsconfig syntax error; ``str()`` names the line and column."""

    def __init__(self, text: str, at: int, message: str) -> None:
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        super().__init__(f"line {line} column {column}: {message}")
        self.line = line
        self.column = column


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_$"


class _Reader:
    """A position in the text and the tokens read from it."""

    __slots__ = ("at", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def fail(self, message: str, at: int | None = None) -> JsoncError:
        return JsoncError(self.text, self.at if at is None else at, message)

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def skip_trivia(self) -> None:
        """Past whitespace and comments (and a ``#!`` line at the start of the text)."""
        text, at, end = self.text, self.at, len(self.text)
        if at == 0 and text.startswith("#!"):
            while at < end and text[at] not in _LINE_BREAKS:
                at += 1
        while at < end:
            ch = text[at]
            if ch in _TRIVIA:
                at += 1
            elif ch == "/" and text.startswith("//", at):
                while at < end and text[at] not in _LINE_BREAKS:
                    at += 1
            elif ch == "/" and text.startswith("/*", at):
                close = text.find("*/", at + 2)
                if close < 0:
                    raise JsoncError(text, at, "a /* comment is not closed ('*/' expected)")
                at = close + 2
            else:
                break
        self.at = at

    def expect(self, ch: str, what: str) -> None:
        self.skip_trivia()
        if self.peek() != ch:
            raise self.fail(f"{what} expected{self._found()}")
        self.at += 1

    def _found(self) -> str:
        ch = self.peek()
        return f", found {ch!r}" if ch else ", found the end of the file"

    def key(self) -> str:
        """A property name: a double-quoted string and nothing else."""
        self.skip_trivia()
        if self.peek() != '"':
            raise self.fail(f"a property name in double quotes expected{self._found()}")
        return self.string()

    def scalar(self) -> Any:
        """A string, number, ``true``, ``false`` or ``null`` at the current position (trivia skipped)."""
        ch = self.peek()
        if ch == '"':
            return self.string()
        if ch == "-":
            self.at += 1
            self.skip_trivia()
            if not self._number_ahead():
                raise self.fail(f"a number expected after '-'{self._found()}")
            return -self.number()
        if self._number_ahead():
            return self.number()
        if ch == "'":
            raise self.fail("a string in single quotes: tsc wants double quotes")
        if ch and _is_word_char(ch):
            start = self.at
            while self.at < len(self.text) and _is_word_char(self.text[self.at]):
                self.at += 1
            word = self.text[start : self.at]
            if word in ("true", "false", "null"):
                return {"true": True, "false": False, "null": None}[word]
            raise self.fail(f"{word!r} is not a value (string, number, true, false, null, object or array)", start)
        raise self.fail(f"a value expected{self._found()}")

    def _number_ahead(self) -> bool:
        text, at = self.text, self.at
        if at >= len(text):
            return False
        return text[at] in _DIGITS or (text[at] == "." and at + 1 < len(text) and text[at + 1] in _DIGITS)

    def _digits(self, allowed: frozenset[str]) -> str:
        """A run of ``allowed`` digits with ``_`` separators between them (the separators dropped)."""
        text, start = self.text, self.at
        while self.at < len(text) and (text[self.at] in allowed or text[self.at] == "_"):
            if text[self.at] == "_":
                if self.at == start or text[self.at - 1] == "_":
                    raise self.fail("a numeric separator is not allowed here")
            self.at += 1
        if self.at > start and text[self.at - 1] == "_":
            raise self.fail("a numeric separator is not allowed here", self.at - 1)
        return text[start : self.at].replace("_", "")

    def number(self) -> int | float:
        text, start = self.text, self.at
        if text[start] == "0" and start + 1 < len(text) and text[start + 1].lower() in _RADIX:
            base, allowed = _RADIX[text[start + 1].lower()]
            self.at += 2
            digits = self._digits(allowed)
            if not digits:
                raise self.fail("a digit expected after the radix prefix")
            value: int | float = int(digits, base)
        else:
            whole = self._digits(_DIGITS) if text[start] != "." else ""
            if len(whole) > 1 and whole[0] == "0":
                raise self.fail("a number with a leading zero (an octal literal) is not allowed", start)
            literal, is_float = whole, False
            if self.peek() == ".":
                self.at += 1
                literal += "." + (self._digits(_DIGITS) if self.peek() in _DIGITS else "")
                is_float = True
            if self.peek() in ("e", "E"):
                self.at += 1
                sign = self.peek() if self.peek() in ("+", "-") else ""
                self.at += len(sign)
                exponent = self._digits(_DIGITS) if self.peek() in _DIGITS else ""
                if not exponent:
                    raise self.fail("a digit expected in the exponent")
                literal += "e" + sign + exponent
                is_float = True
            if is_float or len(literal) > _LONGEST_INT:  # as JavaScript: a double (inf past its range)
                value = float(literal if literal[0] != "." else "0" + literal)
            else:
                value = int(literal)
        if self.at < len(text) and _is_word_char(text[self.at]):
            raise self.fail("an identifier or keyword cannot immediately follow a numeric literal")
        return value

    def string(self) -> str:
        """A double-quoted string starting at the current position, its escapes decoded."""
        text, end = self.text, len(self.text)
        start = self.at
        at = start + 1
        parts: list[str] = []
        while True:
            run = at
            while at < end and text[at] not in '"\\\n\r':
                at += 1
            parts.append(text[run:at])
            if at >= end or text[at] in "\n\r":
                raise JsoncError(text, start, "the string is not closed")
            if text[at] == '"':
                self.at = at + 1
                return "".join(parts)
            at = self._escape(at, parts)

    def _escape(self, at: int, parts: list[str]) -> int:
        """Decode the escape whose backslash is at ``at`` into ``parts``; the position after it."""
        text, end = self.text, len(self.text)
        if at + 1 >= end:
            raise JsoncError(text, at, "the string is not closed")
        ch = text[at + 1]
        if ch in _SIMPLE_ESCAPES:
            parts.append(_SIMPLE_ESCAPES[ch])
            return at + 2
        if ch == "0" and not (at + 2 < end and text[at + 2] in _DIGITS):
            parts.append("\0")
            return at + 2
        if ch in _DIGITS:
            raise JsoncError(text, at, f"the escape '\\{ch}' (an octal escape) is not allowed")
        if ch == "\r":
            return at + 3 if text.startswith("\n", at + 2) else at + 2
        if ch in _LINE_BREAKS:  # a line continuation
            return at + 2
        if ch == "x":
            digits = text[at + 2 : at + 4]
            if len(digits) < 2 or not _HEX.issuperset(digits):
                raise JsoncError(text, at, "two hexadecimal digits expected after '\\x'")
            parts.append(chr(int(digits, 16)))
            return at + 4
        if ch == "u":
            return self._unicode_escape(at, parts)
        parts.append(ch)  # any other escaped character is itself
        return at + 2

    def _unicode_escape(self, at: int, parts: list[str]) -> int:
        text = self.text
        if text.startswith("{", at + 2):
            close = text.find("}", at + 3)
            digits = text[at + 3 : close] if close >= 0 else ""
            if not digits or not _HEX.issuperset(digits):
                raise JsoncError(text, at, "hexadecimal digits and '}' expected after '\\u{'")
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise JsoncError(text, at, "a Unicode escape over 0x10FFFF")
            parts.append(chr(code))
            return close + 1
        digits = text[at + 2 : at + 6]
        if len(digits) < 4 or not _HEX.issuperset(digits):
            raise JsoncError(text, at, "four hexadecimal digits expected after '\\u'")
        code = int(digits, 16)
        low = text[at + 8 : at + 12]
        if (
            0xD800 <= code < 0xDC00
            and text.startswith("\\u", at + 6)
            and len(low) == 4
            and _HEX.issuperset(low)
            and 0xDC00 <= int(low, 16) < 0xE000
        ):  # a surrogate pair is one character
            parts.append(chr(0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)))
            return at + 12
        parts.append(chr(code))
        return at + 6


def parse_jsonc(text: str, max_depth: int) -> Any:
    """The one value ``text`` holds, read as ``tsc`` reads a tsconfig, with at most ``max_depth``
    arrays and objects inside each other; ``JsoncError`` otherwise."""
    reader = _Reader(text)
    reader.skip_trivia()
    if not reader.peek():
        raise reader.fail("a value expected, found the end of the file")
    value = _value(reader, max_depth)
    reader.skip_trivia()
    if reader.peek():
        raise reader.fail(f"the end of the file expected after the value, found {reader.peek()!r}")
    return value


def parse_tsconfig(text: str, max_depth: int) -> dict[str, Any]:
    """A tsconfig's object: ``{}`` for a file of only whitespace and comments; ``JsoncError`` when
    ``tsc`` reports a syntax error or the root is not an object."""
    reader = _Reader(text)
    reader.skip_trivia()
    if not reader.peek():
        return {}
    value = parse_jsonc(text, max_depth)
    if not isinstance(value, dict):
        raise reader.fail(f"the root value of a tsconfig must be an object, not {_kind(value)}")
    return value


def _kind(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    return "an array" if isinstance(value, list) else "a string" if isinstance(value, str) else "a number"


def _value(reader: _Reader, max_depth: int) -> Any:
    """The value at the reader's position: containers on an explicit stack, never recursion."""
    stack: list[dict[str, Any] | list[Any]] = []
    keys: list[str] = []  # the pending property name of each open object, innermost last
    while True:
        reader.skip_trivia()  # a value starts here
        ch = reader.peek()
        if ch in ("{", "["):
            if len(stack) >= max_depth:
                raise reader.fail(f"nested more than {max_depth} levels deep")
            reader.at += 1
            container: dict[str, Any] | list[Any] = {} if ch == "{" else []
            reader.skip_trivia()
            if reader.peek() != ("}" if ch == "{" else "]"):
                stack.append(container)
                if ch == "{":
                    keys.append(reader.key())
                    reader.expect(":", "':' after the property name")
                continue
            reader.at += 1
            value: Any = container
        else:
            value = reader.scalar()
        while True:  # the value is complete: put it in its container, then past ',' or the closer
            if not stack:
                return value
            top = stack[-1]
            if isinstance(top, dict):
                top[keys[-1]] = value
                closer = "}"
            else:
                top.append(value)
                closer = "]"
            reader.skip_trivia()
            ch = reader.peek()
            if ch == ",":
                reader.at += 1
                reader.skip_trivia()
                if reader.peek() != closer:  # another member follows
                    if isinstance(top, dict):
                        keys[-1] = reader.key()
                        reader.expect(":", "':' after the property name")
                    break
            elif ch != closer:
                raise reader.fail(f"',' or '{closer}' expected{reader._found()}")
            reader.at += 1  # past the closer (a trailing comma before it is fine)
            value = stack.pop()
            if isinstance(value, dict):
                keys.pop()

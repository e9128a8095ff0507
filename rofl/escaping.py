"""One-line escaping for CI logging commands: a format's table of characters and the escape its runner reads back."""

from __future__ import annotations

from collections.abc import Callable, Mapping


def escaper(table: Mapping[str, str]) -> Callable[[str], str]:
    """The function that writes each character of ``table`` as its escape, in one pass over the text (so an
    escape is never escaped again) and every other character as it is."""
    codes = str.maketrans(dict(table))

    def escape(text: str) -> str:
        return text.translate(codes)

    return escape

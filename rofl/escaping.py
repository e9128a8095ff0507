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


def escapers(
    data: Mapping[str, str], properties: Mapping[str, str]
) -> tuple[Callable[[str], str], Callable[[str], str]]:
    """A logging command's two escapes: of its data (``data``'s table) and of its property values (``data``'s table
    and ``properties``: the runner unescapes more in a property value)."""
    return escaper(data), escaper({**data, **properties})


def assignments(properties: Mapping[str, object], escape: Callable[[str], str], quote: str = "") -> list[str]:
    """``key=value`` for each property given (one that is None is left out), its value escaped (and quoted)."""
    return [f"{k}={quote}{escape(str(v))}{quote}" for k, v in properties.items() if v is not None]

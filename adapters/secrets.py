"""Secrets: read from the environment when a want is sent, never a fact; and the scrubbing that keeps them out of every output.

A book names where a secret is (``http_auth(Book, Scheme, How, Name, Env)``, ``http_needs(Cap, Scheme)``);
the value is read from ``Env`` at send time.  A missing variable holds the want.  Every text the runtime
lets out (a Why, a log line, an answer, an error) passes ``Scrubber.scrub`` first: the exact values are
masked, and a text that still holds ``RUN`` characters in a row of a secret in any form an adapter can
print it back in cheaply (reversed, spaced or punctuated, in another case, URL-encoded, hex, base64) is
withheld whole; an answer that holds one is refused (``leaks``).
"""

from __future__ import annotations

import base64
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .books import Secret

MASK = "[redacted]"
MIN_SECRET = 4  # shorter values would mask ordinary words; such a secret is no secret anyway
RUN = 8  # this many characters of a secret's folded form in a row (the whole form, when shorter) taint a text
WITHHELD = "[withheld: it holds part of a secret]"
# Text that looks like a credential even when the runtime does not know its value (an adapter's stderr).
_LOOKS_SECRET = re.compile(
    r"(?i)\b(?:authorization|bearer|token|password|passwd|secret|api[_-]?key|access[_-]?key|client[_-]?secret)"
    r"(\s*[:=]\s*|\s+)(?:bearer\s+|basic\s+)?([^\s\"',;]{4,})"
    r"|\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abpr]-[A-Za-z0-9-]{10,}"
    r"|AKIA[0-9A-Z]{16}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"
)


@dataclass(frozen=True, slots=True)
class Scrubber:
    """Masks the known secret values and anything shaped like a credential."""

    values: tuple[str, ...]
    runs: frozenset[str] = frozenset()  # every RUN-long piece of every folded form of every value (``of``)

    @staticmethod
    def of(secrets: Iterable[Secret], environ: Mapping[str, str]) -> Scrubber:
        values = {environ[s.env] for s in secrets if len(environ.get(s.env, "")) >= MIN_SECRET}
        # a client_credentials variable holds id:secret; mask each half too
        values |= {part for v in list(values) for part in v.split(":", 1) if len(part) >= MIN_SECRET}
        runs = frozenset(piece for v in values for form in _forms(v) for piece in _pieces(form))
        return Scrubber(tuple(sorted(values, key=len, reverse=True)), runs)

    def scrub(self, text: str) -> str:
        """``text`` with the known values and credential shapes masked, or WITHHELD when what is left
        still holds part of a secret in some printable form."""
        for value in self.values:
            if value in text:
                text = text.replace(value, MASK)
        text = _LOOKS_SECRET.sub(_mask_match, text)
        return WITHHELD if self._tainted(text) else text

    def leaks(self, text: str) -> bool:
        """Whether ``text`` holds a known secret value, or RUN characters of one in any printable form."""
        return any(value in text for value in self.values) or self._tainted(text)

    def _tainted(self, text: str) -> bool:
        if not self.runs:
            return False
        folded = _fold(text)
        if any(piece in folded for piece in self.runs if len(piece) < RUN):
            return True
        return any(folded[i : i + RUN] in self.runs for i in range(len(folded) - RUN + 1))

    def leaks_term(self, term: object) -> bool:
        """Whether a string (or an atom's name) anywhere inside ``term`` holds a known secret value."""
        if not self.values:
            return False
        stack = [term]
        while stack:
            t = stack.pop()
            if type(t) is str:
                if self.leaks(t):
                    return True
            elif isinstance(t, tuple):
                stack.extend(t)
        return False


def _fold(text: str) -> str:
    """``text`` URL-decoded, in lower case, with only its letters and digits: spacing, punctuation, case
    and percent-encoding do not hide a secret."""
    text = urllib.parse.unquote_plus(text) if "%" in text or "+" in text else text
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _forms(value: str) -> list[str]:
    """The folded forms an adapter can cheaply print ``value`` in: itself (any case, spaced), reversed,
    hex, and base64 from each of three alignments (so a secret inside a longer encoded text is found)."""
    raw = value.encode("utf-8")
    forms = [value, value[::-1], raw.hex()]
    for skip in range(3):
        encoded = base64.b64encode(raw[skip:]).decode("ascii")
        # the last group depends on what follows the secret in a longer text: keep the full groups only
        full = len(raw[skip:]) // 3 * 4
        forms.append(encoded[:full])
    return [f for f in (_fold(form) for form in forms) if len(f) >= MIN_SECRET]


def _pieces(form: str) -> list[str]:
    if len(form) <= RUN:
        return [form]
    return [form[i : i + RUN] for i in range(len(form) - RUN + 1)]


def _mask_match(m: re.Match) -> str:
    if m.group(2) is None:
        return MASK
    return m.group(0)[: m.start(2) - m.start(0)] + MASK


def missing_env(secrets: Iterable[Secret], environ: Mapping[str, str]) -> list[str]:
    """The environment variables a capability needs and the environment does not hold (a login has none)."""
    return sorted({s.env for s in secrets if s.how != "login" and not environ.get(s.env)})


# The variables every adapter process gets (when this environment has them): what a program needs to
# start, find its tools and speak the user's language.  Nothing else of rofl's environment goes along
# (no HOME, no CI tokens, no cloud credentials); a secret reaches an adapter only when its book names it.
ESSENTIAL_ENV = ("PATH", "LANG", "LANGUAGE", "TZ", "TMPDIR")
ESSENTIAL_PREFIXES = ("LC_",)


def child_environment(environ: Mapping[str, str], needed: Iterable[Secret]) -> dict:
    """The environment an adapter process gets: ``ESSENTIAL_ENV`` (and ``LC_*``), plus the variables
    of the secrets the capability needs; nothing else."""
    keep = {s.env for s in needed}
    return {k: v for k, v in environ.items() if k in keep or k in ESSENTIAL_ENV or k.startswith(ESSENTIAL_PREFIXES)}

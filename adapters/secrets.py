"""Secrets: read from the environment when a want is sent, never a fact; and the scrubbing that keeps them out of every output.

A book names where a secret is (``http_auth(Book, Scheme, How, Name, Env)``, ``http_needs(Cap, Scheme)``);
the value is read from ``Env`` at send time.  A missing variable holds the want.  Every text the runtime
lets out (a Why, a log line, an answer, an error) passes ``Scrubber.scrub`` first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .books import Secret

MASK = "[redacted]"
MIN_SECRET = 4  # shorter values would mask ordinary words; such a secret is no secret anyway
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

    @staticmethod
    def of(secrets: Iterable[Secret], environ: Mapping[str, str]) -> Scrubber:
        values = {environ[s.env] for s in secrets if len(environ.get(s.env, "")) >= MIN_SECRET}
        # a client_credentials variable holds id:secret; mask each half too
        values |= {part for v in list(values) for part in v.split(":", 1) if len(part) >= MIN_SECRET}
        return Scrubber(tuple(sorted(values, key=len, reverse=True)))

    def scrub(self, text: str) -> str:
        for value in self.values:
            if value in text:
                text = text.replace(value, MASK)
        return _LOOKS_SECRET.sub(_mask_match, text)

    def leaks(self, text: str) -> bool:
        """Whether ``text`` holds a known secret value."""
        return any(value in text for value in self.values)

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


def _mask_match(m: re.Match) -> str:
    if m.group(2) is None:
        return MASK
    return m.group(0)[: m.start(2) - m.start(0)] + MASK


def missing_env(secrets: Iterable[Secret], environ: Mapping[str, str]) -> list[str]:
    """The environment variables a capability needs and the environment does not hold (a login has none)."""
    return sorted({s.env for s in secrets if s.how != "login" and not environ.get(s.env)})


def child_environment(environ: Mapping[str, str], all_secrets: Iterable[Secret], needed: Iterable[Secret]) -> dict:
    """The environment an adapter process gets: this one, without every secret variable the
    capability does not need."""
    keep = {s.env for s in needed}
    drop = {s.env for s in all_secrets} - keep
    return {k: v for k, v in environ.items() if k not in drop}

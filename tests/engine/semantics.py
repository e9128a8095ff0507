"""Shared helpers of the kernel semantics tests: a booted kernel with one RuleBook, canonical answer order.

Each test file beside this one checks one part of the kernel against kernel.md and plain Datalog semantics.
"""

from __future__ import annotations

from rofl.engine.kernel import Kernel
from rofl.engine.rulebook import RuleBook

from tests.conftest import BOOT

# Compiled join code is a pure function of the rule; sharing a RuleBook only saves compile time.
_BOOK = RuleBook()


def boot(budget: int = 100_000) -> Kernel:
    k = Kernel(None, budget=budget)
    k.book = _BOOK
    k.load_boot(BOOT)
    return k


def load(text: str, budget: int = 100_000) -> Kernel:
    k = boot(budget)
    k.load_text(text)
    return k


def _key(term):
    """Our own canonical order for comparing answers: integers, strings, then compounds."""
    if type(term) is int:
        return (0, term, ())
    if type(term) is str:
        return (1, term, ())
    return (2, repr(term), ())


def canon(rs) -> list:
    return sorted(rs, key=lambda r: tuple(_key(t) for t in r))


def rows(k: Kernel, query: str, **kw) -> list:
    return canon(k.query(query, **kw).rows)


def a(name: str) -> tuple:
    return (name,)


def cons_list(items) -> str:
    out = "nil"
    for x in reversed(items):
        out = f"cons({x}, {out})"
    return out


LEN = "len(L, N) :- L = nil, N = 0.\nlen(L, N) :- L = cons(_, T), len(T, M), N is M + 1.\n"

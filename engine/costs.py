"""What values cost the budget: the size of what a step builds, and the printed size of an answer.

A derivation step is one distinct rule firing (or one demand-unfolding node); on top of it a step pays
for the size of the new values it makes, so that a budget bounds memory and output, not only firings:

* an integer that arithmetic yields costs one step per bit past its first 64 (``int_steps``): integers
  are machine words, and a bignum pays for its size, so the integers an evaluation creates hold at
  most about one bit per step (repeated multiplication would otherwise grow a relation quadratically
  in bits: 110 MB of text under a budget of 20,000);
* an aggregate (``engine.aggregates``) pays one step per inner row it matches, once per group key in
  an evaluation, and a sum pays for the size of its integer as arithmetic does (``int_steps``);
* a head pays one step per ``TERM_STEP`` compound nodes it builds (bound subterms are shared, never
  copied, and cost nothing); a deep term therefore costs memory linear in the steps;
* no single arithmetic operation may take or make an integer past ``MAX_INT_BITS`` bits (the
  evaluation ends partial, a hole), which bounds the time of one step;
* a question's answer pays, per row, one step per ``ROW_STEP`` characters of its text past the first
  ``ROW_FREE`` (``affordable``): a shared term is cheap to store but its text is as long as its tree,
  so the budget is what bounds what an answer prints;
* an evaluation whose process has grown past the memory bound (``memory_limit``: the environment
  variable ``ROFL_MAX_MEMORY`` in MiB, else half the machine's memory) stops as if its budget had run
  out, checked every ``MEMORY_CHECK_STEPS`` steps: a rule file that derives facts without end (``N is
  Z + 1``) ends partial instead of taking the machine.
"""

from __future__ import annotations

import os
import resource
from collections.abc import Iterable, Mapping

from .terms import Term, text_size

DEFAULT_BUDGET = 100_000  # derivation steps an evaluation may take when no budget is given
MAX_INT_BITS = 1 << 20  # bits of any integer one arithmetic operation takes or makes
TERM_STEP = 64  # compound nodes a head builds per step
FREE_BITS = 64  # bits of a new integer that cost nothing more than its step; then a step per bit
INT_LIMIT = 1 << FREE_BITS  # integers strictly between -INT_LIMIT and INT_LIMIT are free
ROW_FREE = 256  # characters of an answer row that cost nothing
ROW_STEP = 32  # then one step per 32 characters
MEMORY_ENV = "ROFL_MAX_MEMORY"  # MiB a process may grow to while it evaluates
MEMORY_CHECK_STEPS = 1 << 14  # steps between two looks at the process's size


def memory_limit(environ: Mapping[str, str] = os.environ) -> int | None:
    """Bytes an evaluating process may grow to: ``ROFL_MAX_MEMORY`` MiB, else half the machine's
    memory (None where the machine does not say, or for ``ROFL_MAX_MEMORY=0``)."""
    given = environ.get(MEMORY_ENV, "").strip()
    if given.isdigit():
        return int(given) * 1024 * 1024 or None
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError):
        return None


def peak_bytes() -> int:
    """The process's peak resident size (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def int_steps(value: int) -> int:
    """Steps an integer made by arithmetic costs beyond its firing: one per bit past its first 64.
    Generated join code inlines the same test and formula (``engine.plan``)."""
    if -INT_LIMIT < value < INT_LIMIT:
        return 0
    return value.bit_length() - FREE_BITS


def made_steps(value: Term) -> int:
    """Steps a value a builtin computed by arithmetic costs (integers only; anything else is free)."""
    return int_steps(value) if type(value) is int else 0


def affordable(rows: Iterable[tuple], room: int) -> int:
    """How many of ``rows``, in order, an answer with ``room`` steps left can pay for: a row costs one
    step per ``ROW_STEP`` characters of its text past ``ROW_FREE`` (about: escapes in strings and the
    signs of integers are not counted exactly)."""
    paid = kept = 0
    for row in rows:
        size = 0
        for value in row:
            size += len(value) + 2 if type(value) is str else text_size(value)
        if size > ROW_FREE:
            paid += (size - ROW_FREE) // ROW_STEP
            if paid > room:
                return kept
        kept += 1
    return kept

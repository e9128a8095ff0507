"""Which inputs a question rests on that nothing gives: a relation read (positively) by the rules behind
it that no fact, no rule and no declaration defines, so that a "no" over it would not be known.

``rofl why affected("a.ts")`` without ``changed/1`` facts cannot know whether the file is affected; it
says what is missing instead of "does not hold".
"""

from __future__ import annotations

from rofl.engine import vocabulary as V
from rofl.engine.kernel import Kernel
from rofl.engine.namespace import display_name

# what to give for an input rofl knows, by relation name
HINTS: dict[str, str] = {
    "changed": (
        'give the changed paths as changed("PATH"). facts in a --rules (or program) file, '
        "or run `rofl impact --facts DIR --changed PATH`"
    ),
}


def missing_inputs(kernel: Kernel, rel: str) -> list[str]:
    """The relations every derivation of ``rel`` needs (through positive premises; ``rel`` itself when
    no rule concludes it) that no fact, rule or declaration defines, sorted by stored name.  An input
    only some rules read (``touches``, ``impact_via``) is not needed, so not missing."""
    heads: dict[str, set] = {}
    reads: dict[tuple, set[str]] = {}
    for _, rid, (head,) in kernel.rows(V.CONCLUDES, "main"):
        heads.setdefault(head, set()).add(rid)
    for _, rid, (body,) in kernel.rows(V.PREMISE_POS, "main"):
        reads.setdefault(rid, set()).add(body)
    needs = _needs(heads, reads, rel)
    remembered = {row[1][0] for row in kernel.rows(V.EDB, "main")}
    declared = {s.rel for s in kernel.declared}
    return sorted(
        name
        for name in needs
        if name not in heads
        and name not in V.RESERVED_SET
        and name not in remembered
        and name not in declared
        and not kernel.rows(name)
    )


def _needs(heads: dict[str, set], reads: dict[tuple, set[str]], rel: str) -> set[str]:
    """What every derivation of ``rel`` reads: the greatest fixpoint of need(R) = the intersection over
    R's rules of the union of need(P) over their positive premises P (need(I) = {I} for an input)."""
    reached: set[str] = set()
    stack = [rel]
    while stack:
        name = stack.pop()
        if name not in reached:
            reached.add(name)
            for rid in heads.get(name, ()):
                stack.extend(reads.get(rid, ()))
    need: dict[str, set[str] | None] = {n: (None if n in heads else {n}) for n in reached}  # None: everything
    changed = True
    while changed:
        changed = False
        for name in reached:
            if name not in heads:
                continue
            per_rule: list[set[str] | None] = []
            for rid in heads[name]:
                union: set[str] | None = {name}
                for body in reads.get(rid, ()):
                    got = need[body]
                    union = None if got is None or union is None else union | got
                per_rule.append(union)
            known = [u for u in per_rule if u is not None]
            now = set.intersection(*known) if known else None
            if now is not None and now != need[name]:
                need[name], changed = now, True
    return need[rel] or set()


def unknowable(kernel: Kernel, rel: str, shown: str) -> str | None:
    """The one line saying why a "no" for ``shown`` (a fact or question over ``rel``) is not known, or
    None when every input it rests on is given."""
    missing = missing_inputs(kernel, rel)
    if not missing:
        return None
    names = ", ".join(f"{display_name(m)}" for m in missing)
    hints = "; ".join(HINTS[m] for m in missing if HINTS.get(m))
    line = f"cannot know whether {shown} holds: it rests on {names}, and no fact gives {'them' if len(missing) > 1 else 'it'}"
    return line + (f"; {hints}" if hints else "; give those facts in a --rules (or program) file")

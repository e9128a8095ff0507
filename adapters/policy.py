"""The capability policy: granted = requested ∩ available ∩ policy, deny by default, and the stable ADP_* codes."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# Stable codes: every Why text and every adapter error starts with one of them.
NO_MATCHING_ADAPTER = "ADP_NO_MATCHING_ADAPTER"  # unknown kind, or an address that cannot be used
UNSUPPORTED_CAPABILITY = "ADP_UNSUPPORTED_CAPABILITY"  # undeclared, a class the kind cannot serve, a bad argument
CAPABILITY_DENIED = "ADP_CAPABILITY_DENIED"  # the policy, a missing secret, max_wants or the round budget
HOST_CALL_FAILED = "ADP_HOST_CALL_FAILED"  # the call went out and failed: exit code, timeout, bad output
CODES = (NO_MATCHING_ADAPTER, UNSUPPORTED_CAPABILITY, CAPABILITY_DENIED, HOST_CALL_FAILED)

CLASSES = ("reads", "shows", "does")
# The word of --allow that lets adapters start programs (or open sockets): never a class a book claims.
EXEC = "exec"
ALLOWS = (*CLASSES, EXEC)


def why(code: str, detail: str) -> str:
    """The text of a Why: its stable code, then what happened."""
    return f"{code}: {detail}"


def is_files(address: str) -> bool:
    """Whether a rofl adapter's address names world files (every word ends in .rofl or .rofl.md), not a command."""
    words = address.split()
    return bool(words) and all(w.endswith((".rofl", ".rofl.md")) for w in words)


@dataclass(frozen=True, slots=True)
class Policy:
    """The classes of capability this host grants, and whether its adapters may start programs
    (``--allow exec``: the user's own word, never the class a book claims)."""

    classes: frozenset[str]
    programs: bool = False

    @staticmethod
    def command_line(allow: Iterable[str] = (), environ: Mapping[str, str] | None = None) -> Policy:
        """The command line's policy: reads and shows by default, only reads under CI=true; each
        ``--allow CLASS`` adds a class (and ``--allow`` given under CI replaces the CI default).
        Programs start only with ``--allow exec``, in CI or not."""
        env = os.environ if environ is None else environ
        allow = tuple(allow)
        unknown = [c for c in allow if c not in ALLOWS]
        if unknown:
            raise ValueError(f"--allow {unknown[0]}: not a capability class; give reads, shows, does or exec")
        ci = env.get("CI", "").strip().lower() == "true"
        base = {"reads"} if ci else {"reads", "shows"}
        return Policy(frozenset(base | (set(allow) - {EXEC})), EXEC in allow)


def program_refusal(book: str, kind: str) -> str:
    """One line naming a book whose adapter would start a program this host was not told to run."""
    return why(
        CAPABILITY_DENIED,
        f"book {book} is an adapter of kind {kind}, which starts a program; rofl runs adapter programs only when "
        f"you say so: add --allow {EXEC}",
    )


@dataclass(frozen=True, slots=True)
class Negotiation:
    """The outcome of negotiating a world's capabilities against the host."""

    granted: frozenset[str]
    denied: frozenset[str]  # requested and available, but the policy does not grant their class
    unavailable: Mapping[str, str]  # requested but no adapter can serve it: capability -> Why
    missing: tuple[str, ...]  # required and denied: the world must not start

    def refusal(self, classes: Mapping[str, str]) -> str:
        """One line naming the capabilities the world needs and the host does not grant."""
        names = ", ".join(f"{c} ({classes[c]})" for c in self.missing)
        wanted = sorted({classes[c] for c in self.missing})
        hint = " ".join(f"--allow {k}" for k in wanted)
        return why(CAPABILITY_DENIED, f"the world needs {names}, which this host does not grant; add {hint}")


def negotiate(
    requested: Iterable[str],
    available: Mapping[str, str],
    unavailable: Mapping[str, str],
    policy: Policy,
    optional: Iterable[str] = (),
) -> Negotiation:
    """``available`` maps each capability an adapter can serve to its class; ``unavailable`` maps the
    others to the Why of their local failure.  A requested capability is required unless ``optional``."""
    requested = frozenset(requested)
    granted = frozenset(c for c in requested if c in available and available[c] in policy.classes)
    denied = frozenset(c for c in requested if c in available) - granted
    optional = frozenset(optional)
    missing = tuple(sorted(denied - optional))
    return Negotiation(granted, denied, {c: w for c, w in unavailable.items() if c in requested}, missing)

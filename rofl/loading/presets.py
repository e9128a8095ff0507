"""Loading the shipped presets (rules/presets.rofl) into a kernel over a scan, with the package.json facts they read.

The presets are loaded only when a rule file turns one on (a ``use(Preset)`` fact, or a
``forbidden``/``forbidden_runtime``/``forbidden_package`` fact): otherwise they would find nothing
and still cost an evaluation of cycles, orphans and package facts.  `rofl audit` calls this; any
command that wants the presets' violations over a scan can too.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rofl.engine.kernel import Kernel
    from rofl.scanner.manifest import Manifest

FORBIDDEN = ("forbidden", "forbidden_runtime", "forbidden_package")  # presets.rofl's rules without a join
PACKAGE_PRESETS = frozenset(
    {
        "no_dev_dependencies",
        "no_undeclared_packages",
        "no_deep_workspace_imports",
        "unused_dependency",
        "unused_dev_dependency",
    }
)


def preset_names() -> frozenset[str]:
    """The names of the shipped presets: the ``rule(Name, Severity, Message)`` facts of rules/presets.rofl."""
    import re

    text = presets_file().read_text(encoding="utf-8")
    return frozenset(re.findall(r"^rule\((\w+),", text, flags=re.MULTILINE))


def presets_file() -> Path:
    """Where the shipped rules/presets.rofl is (the source tree, or site-packages in a wheel)."""
    from rofl.rules import path as shipped

    return shipped("presets.rofl")


def shipped_presets() -> tuple[str, ...]:
    """The names of the rules rules/presets.rofl declares (``rule(Name, Severity, Message).``), in its order."""
    import re

    return tuple(re.findall(r"^rule\((\w+),", presets_file().read_text(encoding="utf-8"), re.M))


def turned_on(kernel: Kernel) -> set[str]:
    """The presets ``use(...)`` facts name (plus ``forbidden`` when a forbidden fact exists)."""
    used = {row[1][0] for row in kernel.rows("use") if len(row) == 2 and isinstance(row[1], tuple)}
    return used | ({"forbidden"} if any(kernel.rows(rel) for rel in FORBIDDEN) else set())


def load_presets(
    kernel: Kernel, facts: str | Path, src: str | None = None, rule_files: tuple = (), manifest: Manifest | None = None
) -> tuple[str, ...]:
    """Load rules/presets.rofl and the package.json facts (from ``src``, or the folder the scan's
    manifest names) when some rule is turned on; the problems met reading package.json files that a
    package preset needs, one line each.  A ``use`` of no declared rule is refused, at its line in ``rule_files``.
    ``manifest``: the scan's, when the caller read it already."""
    from .factdir import read_manifest
    from .packagefacts import package_facts

    used = turned_on(kernel)
    if not used:
        return ()
    if manifest is None:
        manifest = read_manifest(Path(facts))
    root = src if src is not None else manifest.src
    sources: list = [(presets_file(), None)]
    made = package_facts(root, sorted(manifest.files), dict(manifest.packages))
    problems = made.problems if used & PACKAGE_PRESETS else ()
    kernel.load_sources(sources, evaluate_now=False)
    made.load(kernel)
    _refuse_unknown(kernel, used, rule_files)
    return problems


def _refuse_unknown(kernel: Kernel, used: set[str], files: tuple) -> None:
    """A ``use(X)`` that names no declared rule would turn nothing on and let the audit pass in silence:
    refuse it, naming the closest rule names."""
    import difflib

    from rofl.engine.base.errors import RoflError

    from .locate import declared_at

    declared = {row[1][0] for row in kernel.rows("rule") if len(row) == 4 and isinstance(row[1], tuple)}
    unknown = sorted(used - declared - {"forbidden"})
    if unknown:
        name = unknown[0]
        close = difflib.get_close_matches(name, sorted(declared), n=3) or sorted(declared)
        row = next(r for r in kernel.rows("use") if len(r) == 2 and r[1] == (name,))
        at = declared_at(files, (("use", row),)) or "rofl audit"
        raise RoflError(f"{at}: use({name}) names no rule; did you mean {', '.join(close)}?")

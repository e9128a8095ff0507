"""Loading a dependency-cruiser config into a kernel over a scan: its rules translated
(``rofl.loading.depcruise_config``) and loaded, with what could not be translated said as warning lines, never printed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rofl.engine.base.errors import RoflError

if TYPE_CHECKING:  # pragma: no cover
    from rofl.engine.kernel import Kernel
    from rofl.scanner.manifest import Manifest


def load_depcruise(
    kernel: Kernel,
    facts: str | None,
    src: str | None,
    config: str | None,
    allow_js: bool,
    warn: Callable[[str], None],
    command: str = "audit",
    manifest: Manifest | None = None,
) -> dict[str, tuple[str, str]]:
    """Translate a dependency-cruiser config (``config``, else one at the scan's source root) into rules over
    the scan and load them; dependency-cruiser's name and severity of each ``dc_N`` rule.  What is not
    translated is one line each to ``warn``; a config that cannot be used is a RoflError."""
    from . import depcruise_config as dc
    from .factdir import read_manifest

    if facts is None:
        if config is not None:
            raise RoflError(f"rofl {command}: --depcruise-config needs --facts DIR (the scan its rules judge)")
        return {}
    if manifest is None:  # the caller's copy when it read it already
        manifest = read_manifest(Path(facts))
    root = src if src is not None else manifest.src
    path = Path(config) if config is not None else dc.find_config(root)
    if path is None:
        return {}
    if config is not None and not path.is_file():
        raise RoflError(f"{path}: no such dependency-cruiser config; give the file depcruise --config reads")
    value = dc.read_config(path, allow_js=allow_js)
    files = sorted(manifest.files)
    translation = dc.translate(value, files, str(path))
    for line in translation.untranslated:
        warn(line)
    packages = scanned_packages(kernel)
    sources: list = [(path, None, translation.text + dc.package_paths(packages, dc.node_builtins()))]
    from .packagefacts import package_facts

    made = package_facts(root, files, dict(manifest.packages))
    kernel.load_sources(sources, evaluate_now=False)
    made.load(kernel)
    return translation.names


# the scan's [code] relations loading a config reads from the kernel (``scanned_packages``): loaded before it
CODE_READ = frozenset({"src_external"})


def scanned_packages(kernel: Kernel) -> set[str]:
    """The external packages the loaded scan imports: the package of each ``src_external[code](File, Spec, P)``
    base row (read from the store: no evaluation needed)."""
    from .kernel import code_rows

    return {str(p[0]) if isinstance(p, tuple) else str(p) for _, _, p in code_rows(kernel, "src_external", 3)}

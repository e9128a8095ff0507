"""Loading a dependency-cruiser config into a kernel over a scan: its rules translated (rofl.depcruise_config)
and loaded, with what could not be translated said as warning lines, never printed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rofl.engine.errors import RoflError

if TYPE_CHECKING:  # pragma: no cover
    from rofl.engine.kernel import Kernel


def load_depcruise(
    kernel: Kernel,
    facts: str | None,
    src: str | None,
    config: str | None,
    allow_js: bool,
    warn: Callable[[str], None],
    command: str = "audit",
) -> dict[str, tuple[str, str]]:
    """Translate a dependency-cruiser config (``config``, else one at the scan's source root) into rules over
    the scan and load them; dependency-cruiser's name and severity of each ``dc_N`` rule.  What is not
    translated is one line each to ``warn``; a config that cannot be used is a RoflError."""
    from rofl import depcruise_config as dc
    from rofl.findings import code_rows

    from .factdir import read_manifest

    if facts is None:
        if config is not None:
            raise RoflError(f"rofl {command}: --depcruise-config needs --facts DIR (the scan its rules judge)")
        return {}
    manifest = read_manifest(Path(facts))
    root = src if src is not None else manifest.get("src")
    path = Path(config) if config is not None else (dc.find_config(root) if isinstance(root, str) else None)
    if path is None:
        return {}
    if config is not None and not path.is_file():
        raise RoflError(f"{path}: no such dependency-cruiser config; give the file depcruise --config reads")
    value = dc.read_config(path, allow_js=allow_js)
    files = sorted(f for f in manifest.get("files", {}) if isinstance(f, str))
    translation = dc.translate(value, files, str(path))
    for line in translation.untranslated:
        warn(line)
    packages = {str(p[0]) if isinstance(p, tuple) else str(p) for _, _, p in code_rows(kernel, "src_external", 3)}
    sources: list = [(path, None, translation.text + dc.package_paths(packages, dc.node_builtins()))]
    if isinstance(root, str):
        from .packagefacts import package_facts

        listed = manifest.get("packages")
        made = package_facts(root, files, listed if isinstance(listed, dict) else {})
        if made.text:
            sources.append((Path(root) / "package.json", None, made.text))
    kernel.load_sources(sources, evaluate_now=False)
    return translation.names

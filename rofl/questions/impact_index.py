"""The graph index's side of the impact question: the index of a scan opened through a source, followed
after a rescan, and the changed paths it classifies without the manifest.

`rofl impact` answers by demand from the graph index (``rofl.loading.graph_index``: a verified, current view of the
scan's import graph) when it covers the question; ``Demand`` holds the manifest it was opened over (its bytes,
or a serving session's parsed copy), the current one after a rescan, and the view.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rofl.engine.base.errors import RoflError
from rofl.scanner.layout import MANIFEST_NAME
from rofl.scanner.manifest import Manifest, ScanOrigin

if TYPE_CHECKING:
    from rofl.scanner.api import ScanSummary

    from ..loading.graph_index import ManifestFile, View
    from ..loading.source import Source
    from .changes import Change

INDEX = "graph-index"  # the name a source keeps the graph index's view under


class Demand:
    """An impact question answered from the graph index (``rofl.loading.graph_index``): the manifest it was
    opened over (its bytes, or a serving session's parsed copy), the current one after a rescan, and
    the index's view of the scan."""

    __slots__ = ("root", "first", "raw", "view", "secret", "rules_text", "source")

    def __init__(
        self,
        root: Path,
        first: bytes | Manifest | ManifestFile,
        raw: bytes | Manifest | ManifestFile,
        view: View,
        secret: bytes,
        rules_text: str,
        source: Source,
    ) -> None:
        self.root, self.first, self.raw, self.view = root, first, raw, view  # a file: its bytes read when asked
        self.secret, self.rules_text, self.source = secret, rules_text, source

    @property
    def served(self) -> bool:
        return isinstance(self.first, Manifest)

    @staticmethod
    def open(root: Path, source: Source) -> Demand | None:
        """The index of the scan in ``root`` when it answers (verified, current), else None.  A serving
        session keeps the view while the scan's signature holds, as it keeps a loaded kernel."""
        from ..loading import cachemac
        from ..loading.graph_index import ManifestFile, View, current, manifest_bytes
        from ..loading.kernel import CODE_RULES

        secret = cachemac.secret()
        if secret is None:
            return None
        text = CODE_RULES.read_text(encoding="utf-8")
        if not source.serves(root):
            opened = ManifestFile(root)  # read only when its stamp is not the one the index vouches for
            view = source.kept(root, INDEX, lambda: current(root, text, secret, opened))
            if not isinstance(view, View):
                opened.close()
                return None
            return Demand(root, opened, opened, view, secret, text, source)
        kept = source.kept(root, INDEX, lambda: current(root, text, secret, manifest_bytes(root)))
        if not isinstance(kept, View):
            return None
        first = source.manifest(root)  # the session's parsed copy, once per scan
        return Demand(root, first, first, kept, secret, text, source)

    def after(self, rescan: ScanSummary | bool) -> Demand | None:
        """The index after the rescan: the same when it found nothing to do, else brought up to date."""
        from ..loading.graph_index import ManifestFile, current, manifest_bytes

        quiet = isinstance(rescan, bool) or not (rescan.parsed or rescan.removed or rescan.resolved)
        if self.served:
            if quiet:
                return self
            again = Demand.open(self.root, self.source)
            if again is None:
                return None
            return Demand(self.root, self.first, again.raw, again.view, self.secret, self.rules_text, self.source)
        opened = self.raw
        if quiet and isinstance(opened, ManifestFile) and opened.still(self.root):
            return self  # the manifest the index was opened over, unchanged: not read
        if isinstance(opened, ManifestFile) and opened.read() is None:
            return None
        raw = manifest_bytes(self.root)
        if quiet and not isinstance(self.raw, Manifest) and raw == _bytes(self.raw, self.root):
            return self
        view = current(self.root, self.rules_text, self.secret, raw)
        if view is None or raw is None:
            return None
        return Demand(self.root, self.first, raw, view, self.secret, self.rules_text, self.source)

    def before(self) -> ScanOrigin:
        """What impact reads of the manifest when every changed path is a scanned source."""
        from rofl.scanner.manifest import ManifestError, options_from

        if isinstance(self.first, Manifest):
            return self.first.origin
        options = options_from(self.view.options)
        if options is None:
            raise ManifestError(f"{self.root / MANIFEST_NAME}: 'options' is malformed; run `rofl scan` again")
        return ScanOrigin(self.view.src, options)

    def manifests(self) -> tuple[Manifest, Manifest]:
        """The manifest before the rescan and now, parsed (classification beyond a changed source)."""
        from rofl.scanner.manifest import from_bytes

        path = str(self.root / MANIFEST_NAME)
        first = self.first if isinstance(self.first, Manifest) else from_bytes(_bytes(self.first, self.root), path)
        if self.raw is self.first:
            return first, first
        return first, self.raw if isinstance(self.raw, Manifest) else from_bytes(_bytes(self.raw, self.root), path)

    def manifest(self) -> Manifest:
        return self.manifests()[1]

    def sources(self, paths: list[str], src: Path, facts_root: Path) -> list[Change] | None:
        """The changes when every path names a scanned source on disk, classified as
        ``rofl.questions.changes.classify`` classifies them; None when one may be anything else."""
        import os
        import posixpath

        from .changes import SOURCE, Change, folders_only, in_facts_dir
        from .lockfiles import is_lock_file

        ctx = folders_only(src, facts_root)
        out: dict[str, Change] = {}
        for raw in paths:
            text = raw.replace("\\", "/")
            if not text or os.path.isabs(text):
                return None
            rel = posixpath.normpath(text)
            if rel not in self.view.files or rel == ".." or rel.startswith(("/", "../")):
                return None
            if in_facts_dir(rel, ctx) or is_lock_file(rel) or not os.path.lexists(src / rel):
                return None
            out.setdefault(rel, Change(rel, SOURCE, "scanned source", changed=(rel,)))
        return sorted(out.values(), key=lambda c: c.path)

    def code_rows(self) -> dict:
        """The base [code] rows classification reads (``CodeFacts.RELATIONS``), as the kernel holds them."""
        from rofl.engine.terms import canonical_rows

        from ..loading.graph_index import _globs

        base = self.view.base(self.secret)
        if base is None:
            raise RoflError(f"{self.root}: its graph index changed while read; run the command again")
        out = {rel: tuple(canonical_rows(dict.fromkeys(("code", *r) for r in base.get(rel, ())))) for rel in base}
        out["package_nonsource_glob"] = tuple(("code", g) for g in _globs(self.rules_text))
        return out


def _bytes(manifest: bytes | ManifestFile, root: Path) -> bytes:
    """A manifest's bytes (an opened one's read now, from the file opened)."""
    from ..loading.graph_index import ManifestFile

    if not isinstance(manifest, ManifestFile):
        return manifest
    data = manifest.read()
    if data is None:
        raise RoflError(f"{root / MANIFEST_NAME}: changed while read; run the command again")
    return data

"""Version stamps that decide whether old facts are still valid, found without importing tree-sitter.

Any change to ``EXTRACTOR_VERSION`` re-extracts every file; a change to ``RESOLVER_VERSION``
re-resolves every file (without parsing).  Grammar versions are read from the installed
distributions' ``*.dist-info`` folder names, which costs a directory listing instead of the
~60 ms that ``importlib.metadata`` takes to import: the no-change rescan must stay cheap.
"""

from __future__ import annotations

import importlib.util
import os

# 5: parse errors in document order (the text no longer varies between runs); 6: CRLF astro frontmatter,
# import types with type arguments and `in?:` members after a member without a separator repaired
# 7: top-level statements' spans, what they bind, export and mention (src_decl, src_export_span/_local, src_decl_uses);
# and more repairs (overloads in type literals, tagged templates with type arguments, template type escapes, ...)
# 8: module augmentations (`declare module "x" {}` in a module file) are imports of kind type
EXTRACTOR_VERSION = "rofl-extract-8"
# resolver 7: self-reference needs "exports"; 8: a tsconfig extends naming a package in node_modules;
# 9: configs are read only inside the tree (a link out of it is a config error; tsconfig lookups stop at SRC outside git)
# 10: tsconfig read as tsc reads it (scanner.jsonc); a folder named package.json is no package scope;
# X.svelte + X.svelte.d.ts twins are both targets; ./x.ts tries x.tsx and x.d.ts as TypeScript does
# 11: bare names resolve as Node does from the importer: its scope's self-reference and declared dependencies
# (file:/link:/workspace:), then workspace members; a non-member package folder is no target by name; the
# root package is its entry fields, never the whole tree
# 12: build output mapped through ${configDir}, the configs a package's tsconfig.json references, an inferred
# rootDir and, with no tsconfig saying, the one source of the same stem; relative paths into a package's build
# output too; a package-name tsconfig extends nothing installed is the workspace package of that name;
# entries.rofl says each file's package and the files each package offers by name (src_package, src_package_entry)
# 13: where TypeScript's export conditions (no node/module) lead to another file than rofl's set, both are targets
# and a tsconfig the governing-config lookup checked and found not to take the file is tsconfig-scope:KEY; a base two extends reach is applied twice
RESOLVER_VERSION = "rofl-resolve-13"

GRAMMAR_DISTRIBUTIONS = {
    "tree-sitter": "tree_sitter",
    "tree-sitter-javascript": "tree_sitter_javascript",
    "tree-sitter-typescript": "tree_sitter_typescript",
}


def _dist_info_version(module: str, listings: dict[str, list[str]]) -> str | None:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    package_dir = list(spec.submodule_search_locations)[0]
    site = os.path.dirname(package_dir)
    prefix = module.lower() + "-"
    names = listings.get(site)
    if names is None:
        try:
            names = listings[site] = os.listdir(site)
        except OSError:
            return None
    for name in names:
        if name.endswith(".dist-info") and name.lower().startswith(prefix):
            return name[len(prefix) : -len(".dist-info")]
    return None


def grammar_versions() -> dict[str, str]:
    """Installed versions of tree-sitter and both grammars, e.g. ``{"tree-sitter": "0.25.2", ...}``."""
    versions: dict[str, str] = {}
    listings: dict[str, list[str]] = {}
    for dist, module in GRAMMAR_DISTRIBUTIONS.items():
        version = _dist_info_version(module, listings)
        if version is None:  # unusual install layout: pay for the metadata lookup
            from importlib import metadata

            try:
                version = metadata.version(dist)
            except metadata.PackageNotFoundError:
                version = "missing"
        versions[dist] = version
    return versions

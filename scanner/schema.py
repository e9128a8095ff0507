"""The scanner's fact vocabulary: every relation it writes into [code] (name, columns, meaning), and its fact lines.

This is the one declaration of what a fact file may hold.  The extractor, the fact file writers
and the entry points build their lines through ``Relation.fact`` (values quoted here) or, on the
hot paths that quote once and reuse, ``Relation.quoted`` (arguments already rendered).  The
README's fact table, ``rules/code.rofl``'s use of ``src_*`` relations and what a scan writes are
tested against ``RELATIONS`` (tests/scanner/test_schema.py).  A column in ``atoms`` holds a bare
atom (``static``), every other column a string or, for ``Line``, an integer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rofl.engine.terms import quote as _engine_quote
from rofl.scanner.layout import FACTS_PERSPECTIVE

_NEEDS_ESCAPE = re.compile('[\x00-\x1f"\\\\\x7f\ud800-\udfff]')


def quote(text: str) -> str:
    """``engine.terms.quote`` with a fast path for the common string that needs no escape.

    When no character needs escaping, ``engine.terms.quote`` returns the text between double
    quotes; that case is answered here without its per-character loop, every other string is
    handed to it.
    """
    if _NEEDS_ESCAPE.search(text) is None:
        return '"' + text + '"'
    return _engine_quote(text)


@dataclass(frozen=True, slots=True)
class Relation:
    """One relation of the vocabulary: ``name[code](columns...)``."""

    name: str
    columns: tuple[str, ...]
    meaning: str
    atoms: frozenset[int] = frozenset()  # columns written as bare atoms
    head: str = field(init=False)  # "name[code](", the start of every line

    def __post_init__(self) -> None:
        object.__setattr__(self, "head", f"{self.name}[{FACTS_PERSPECTIVE}](")

    @property
    def arity(self) -> int:
        return len(self.columns)

    @property
    def signature(self) -> str:
        """``name(Col, ...)`` as the README's table writes it."""
        return f"{self.name}({', '.join(self.columns)})"

    def quoted(self, *args: str) -> str:
        """The fact line from arguments already rendered (quoted strings, digits, atoms)."""
        return self.head + ", ".join(args) + ")."

    def fact(self, *values: str | int) -> str:
        """The fact line of ``values``: strings quoted (bare in atom columns), integers as digits."""
        if len(values) != len(self.columns):
            raise ValueError(f"{self.name} has {len(self.columns)} columns, given {len(values)} values")
        rendered = [
            str(v) if type(v) is int else (str(v) if i in self.atoms else quote(str(v))) for i, v in enumerate(values)
        ]
        return self.head + ", ".join(rendered) + ")."


def _relation(name: str, columns: str, meaning: str, atoms: tuple[int, ...] = ()) -> Relation:
    return Relation(name, tuple(c.strip() for c in columns.split(",")), meaning, frozenset(atoms))


SRC_FILE = _relation("src_file", "Path, Hash12", "A scanned file")
SRC_FUNC = _relation("src_func", "Path, Name, Line", "A function, or a named function or arrow expression")
SRC_CLASS = _relation("src_class", "Path, Name, Line", "A class")
SRC_METHOD = _relation("src_method", "Path, Class, Name, Line", "A method of a class")
SRC_IMPORT = _relation("src_import", "Path, Source", "An import")
SRC_IMPORT_KIND = _relation(
    "src_import_kind",
    "Path, Source, Kind",
    "How it is imported: `static`, `type`, `dynamic`, `require`, `reexport` or `side_effect`. `import type`, "
    "`export type … from`, `export type *` and lists where every name is `type X` are `type`",
    atoms=(2,),
)
SRC_IMPORT_LINE = _relation("src_import_line", "Path, Source, Line", "Where each import statement or call stands")
SRC_IMPORT_NAME = _relation("src_import_name", "Path, Source, Imported, Local", "A name it imports")
SRC_EXPORT = _relation("src_export", "Path, Name", "An export")
SRC_CALL = _relation("src_call", "Path, Caller, Callee", "A call")
SRC_RESOLVES = _relation(
    "src_resolves",
    "Path, Source, Target",
    "An import resolved to a scanned file or an asset (one row per target: `x.js` and `x.d.ts`)",
)
SRC_ASSET = _relation("src_asset", "Target", "A non-code file that an import resolves to")
SRC_WORKSPACE_IMPORT = _relation(
    "src_workspace_import", "Path, Source, PackageDir", "A workspace package import that leads to no scanned file"
)
SRC_EXTERNAL = _relation("src_external", "Path, Source, Package", "An import of a package")
SRC_UNRESOLVED = _relation("src_unresolved", "Path, Source", "An import for which nothing exists")
SRC_DECLARATION = _relation("src_declaration", "Path", "A declaration file (`.d.ts`, `.d.mts`, `.d.cts`)")
SRC_UNRESOLVED_REASON = _relation(
    "src_unresolved_reason", "Path, Source, Reason", "Why an unresolved import could not even be looked for"
)
SRC_CONFIG_ERROR = _relation(
    "src_config_error",
    "Config, Message",
    "A config file resolution consulted but could not use (not a regular file, over 4 MiB, nested over 256 "
    "levels, not valid JSON/UTF-8)",
)
SRC_IN_DIR = _relation("src_in_dir", "Path, Dir", "One fact for every ancestor folder of Path")
SRC_ENTRY = _relation(
    "src_entry",
    "Path, Field",
    "A file that a workspace `package.json` names in `main`, `module`, `types`, `bin`, `exports` or a `scripts` command (Field `scripts`), or that an HTML page loads with `<script src>` (Field `html`) (in `entries.rofl`)",
)
SRC_PACKAGE = _relation(
    "src_package",
    "Path, PackageDir, Inner",
    "The package a file belongs to: the nearest folder at or above it whose `package.json` has a `name` (a nested "
    "package, e.g. a test fixture, is its own), and the file's path inside it (in `entries.rofl`)",
)
SRC_PACKAGE_ENTRY = _relation(
    "src_package_entry",
    "PackageDir, Path, Field",
    "A file of its own that a package offers by name: what its `package.json` names in `main`, `module`, `types`, "
    "`typings` or `exports` (any condition), found as an import's target is (a build output mapped to its source "
    "where the resolver maps it), or what its `name` resolves to from inside it (Field `name`) (in `entries.rofl`)",
)
SRC_PACKAGE_SUBPATH = _relation(
    "src_package_subpath",
    "PackageDir, Path, Subpath, Match",
    "The `exports` subpath under which a package offers a file of `src_package_entry` (`./sub`, `./sub/*`; `.` "
    "for a string or a map of conditions, and for `main`, `module`, `types`, `typings` and the name), and Match, "
    "the anchored regex over the bare specifiers that import it (`^@w/kit/sub/.*$`) (in `entries.rofl`)",
)
SRC_PARSE_ERROR = _relation(
    "src_parse_error",
    "Path, Message",
    "A parse problem, with its line and the grammar: `line 3: syntax error at 'x' (tsx grammar)`",
)

SRC_DECL = _relation(
    "src_decl",
    "Path, Name, Line, EndLine",
    "A top-level statement and a name it binds (its leading comments included): a declaration, an import's "
    "local name, `default` for `export default` of an expression, `<module>` for a statement binding none",
)
SRC_EXPORT_LOCAL = _relation(
    "src_export_local", "Path, Name, Local", "Export Name is the file's top-level binding Local (not a re-export)"
)
SRC_EXPORT_SPAN = _relation(
    "src_export_span", "Path, Name, Line, EndLine", "The statement that exports Name (`*` for `export * from`)"
)
SRC_DECL_USES = _relation(
    "src_decl_uses",
    "Path, Decl, Name",
    "Top-level binding Decl's statement mentions Name, a top-level binding of the file (`ns.x` for a member "
    "of a namespace import `ns`); a superset of its references",
)

RELATIONS: tuple[Relation, ...] = (
    SRC_FILE,
    SRC_FUNC,
    SRC_CLASS,
    SRC_METHOD,
    SRC_IMPORT,
    SRC_IMPORT_KIND,
    SRC_IMPORT_LINE,
    SRC_IMPORT_NAME,
    SRC_EXPORT,
    SRC_CALL,
    SRC_RESOLVES,
    SRC_ASSET,
    SRC_WORKSPACE_IMPORT,
    SRC_EXTERNAL,
    SRC_UNRESOLVED,
    SRC_DECLARATION,
    SRC_UNRESOLVED_REASON,
    SRC_CONFIG_ERROR,
    SRC_IN_DIR,
    SRC_ENTRY,
    SRC_PACKAGE,
    SRC_PACKAGE_ENTRY,
    SRC_PACKAGE_SUBPATH,
    SRC_PARSE_ERROR,
    SRC_DECL,
    SRC_EXPORT_LOCAL,
    SRC_EXPORT_SPAN,
    SRC_DECL_USES,
)
BY_NAME: dict[str, Relation] = {r.name: r for r in RELATIONS}

"""Workspace packages: package name -> folder, from npm/yarn ``workspaces``, ``pnpm-workspace.yaml`` and named package.json files.

The root's package.json ``workspaces`` (an array of globs, or ``{"packages": [...]}``) and
``pnpm-workspace.yaml``'s ``packages:`` list (a ``!`` glob excludes) name the member folders.
Every listed package.json with a ``name`` is a package too, but one outside the globs is the
target of its name only for an importer whose package depends on its folder (``file:``, ``link:``;
``scanner.resolve`` asks ``Membership``); when two declare the same name, a member wins, then the
first path in sorted order.  Globs: ``*`` stays inside one folder name, ``**`` spans
folders.  Both root files are read through the ``ConfigStore``, so their signatures are recorded.

Globs stay inside SRC: one that is absolute, climbs out (a ``..`` segment), holds a NUL or is
longer than ``MAX_GLOB`` is not expanded and is recorded as a config error of the file that
declares it (``src_config_error``).  Expansion enters a symlinked folder only when its real
location is inside SRC and it is not a folder the expansion is already in (a link loop), and each
real folder is entered once per glob position, so that a loop or a link out of SRC ends that
branch instead of the scan.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass

from rofl.scanner.configs import ConfigStore
from rofl.scanner.files import inside

PNPM_WORKSPACE = "pnpm-workspace.yaml"
PACKAGE_JSON = "package.json"
MAX_GLOB = 1024  # characters; real member globs are a few dozen


def pnpm_globs(text: str) -> list[str]:
    """The ``packages:`` list of a pnpm-workspace.yaml (block or flow list; quotes and comments allowed)."""
    globs: list[str] = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        match = re.match(r"packages\s*:\s*(.*)$", line)
        if match is None:
            continue
        rest = _strip_comment(match.group(1)).strip()
        if rest.startswith("["):
            return [_unquote(item) for item in rest.strip("[]").split(",") if item.strip()]
        for item in lines[index + 1 :]:
            stripped = _strip_comment(item).strip()
            if not stripped:
                continue
            if not item[:1].isspace() and not stripped.startswith("-"):
                break
            if stripped.startswith("-"):
                globs.append(_unquote(stripped[1:]))
        return globs
    return globs


def _strip_comment(text: str) -> str:
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i]
    return text


def _unquote(item: str) -> str:
    item = item.strip()
    if len(item) >= 2 and item[0] == item[-1] and item[0] in "'\"":
        return item[1:-1]
    return item


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A folder glob relative to the workspace root: ``*`` within a name, ``**`` across folders."""
    pattern = pattern.strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = pattern.rstrip("/")
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("(?:/.*)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            ch = pattern[i]
            out.append("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch))
            i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def _matcher(globs: list[str]) -> list[tuple[bool, re.Pattern[str]]]:
    return [(g.startswith("!"), glob_regex(g[1:] if g.startswith("!") else g)) for g in globs]


def _matches(folder: str, compiled: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """True when the last glob that names ``folder`` is not a ``!`` exclusion."""
    included = False
    for negated, regex in compiled:
        if regex.match(folder):
            included = not negated
    return included


@dataclass(frozen=True, slots=True)
class Membership:
    """Which folders are workspace members: SRC itself, and those the member globs name (the last glob decides)."""

    compiled: tuple[tuple[bool, re.Pattern[str]], ...] = ()

    def holds(self, folder: str) -> bool:
        return folder in ("", ".") or _matches(folder, list(self.compiled))


def membership(src: str, store: ConfigStore) -> Membership:
    """The workspace's members, from the root package.json ``workspaces`` and pnpm-workspace.yaml (both recorded)."""
    return Membership(tuple(_matcher(workspace_globs(src, store))))


def glob_problem(pattern: str) -> str | None:
    """Why a member glob is not expanded (it would leave SRC or is not a path), or None when it is fine."""
    body = pattern[1:] if pattern.startswith("!") else pattern
    if len(pattern) > MAX_GLOB:
        return f"{len(pattern)} characters, over the {MAX_GLOB}-character limit"
    if "\0" in body:
        return "holds a NUL"
    if body.strip().startswith("/") or os.path.isabs(body.strip()):
        return "absolute: member globs are relative to the workspace root"
    if ".." in body.strip().split("/"):
        return "climbs out of the workspace root (a '..' segment)"
    return None


def _checked(globs: list[object], absolute: str, store: ConfigStore) -> list[str]:
    """The string globs that stay inside SRC; the others are recorded as errors of the file ``absolute``."""
    kept: list[str] = []
    refused: list[str] = []
    for glob in globs:
        if not isinstance(glob, str):
            continue
        problem = glob_problem(glob)
        if problem is None:
            kept.append(glob)
        else:
            refused.append(f"workspace glob {glob[:80]!r} {problem}, not expanded")
    if refused:
        store.refuse(absolute, "; ".join(refused))
    return kept


def workspace_globs(src: str, store: ConfigStore) -> list[str]:
    """The member globs the root package.json and pnpm-workspace.yaml declare (both recorded); those
    that would leave SRC are left out and recorded as config errors."""
    globs: list[str] = []
    root_json = os.path.join(src, PACKAGE_JSON)
    root = store.read(root_json)
    if isinstance(root, dict):
        declared = root.get("workspaces")
        if isinstance(declared, dict):
            declared = declared.get("packages")
        if isinstance(declared, list):
            globs.extend(_checked(declared, root_json, store))
    pnpm = os.path.join(src, PNPM_WORKSPACE)
    text = store.read_text(pnpm)
    if text is not None:
        globs.extend(_checked(list(pnpm_globs(text)), pnpm, store))
    return globs


def _expand(src: str, pattern: str) -> list[str]:
    """Folders under SRC (relative, POSIX) that a positive glob names and that hold a package.json."""
    pattern = pattern.strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    parts = [p for p in pattern.rstrip("/").split("/") if p and p != "."]
    if glob_problem(pattern) is not None:
        return []
    root_real = os.path.realpath(src)
    found: list[str] = []
    stack: list[tuple[str, int]] = [("", 0)]
    entered: set[tuple[str, int]] = set()  # (real folder, glob position): each expanded once
    while stack:
        folder, index = stack.pop()
        real = os.path.realpath(os.path.join(src, folder) if folder else src)
        if not inside(real, root_real) or (real, index) in entered:
            continue  # a link out of SRC, or a folder (a link loop) this position already expanded
        entered.add((real, index))
        if index == len(parts):
            if os.path.isfile(os.path.join(src, folder, PACKAGE_JSON)):
                found.append(folder)
            continue
        part = parts[index]
        if "*" not in part and "?" not in part:
            stack.append((posixpath.join(folder, part) if folder else part, index + 1))
            continue
        if part == "**":
            stack.append((folder, index + 1))  # zero folders
        regex = re.compile("".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in part) + r"\Z")
        try:
            entries = list(os.scandir(os.path.join(src, folder) if folder else src))
        except OSError:
            continue
        # popped in name order, real folders before links, so that a folder reached both ways is named
        # by its own path
        entries.sort(key=lambda e: (_is_link(e), e.name), reverse=True)
        for entry in entries:
            name = entry.name
            if name == "node_modules" or name.startswith(".") or not _is_dir(entry):
                continue
            child = posixpath.join(folder, name) if folder else name
            if part == "**":
                stack.append((child, index))  # one more folder, still inside **
            elif regex.match(name):
                stack.append((child, index + 1))
    return found


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return True


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a link to itself (ELOOP), a folder that cannot be stat'ed
        return False


def package_manifests(src: str, package_files: tuple[str, ...], globs: list[str]) -> list[str]:
    """The listed package.json files plus those of the member folders the globs name on disk, sorted."""
    manifests = set(package_files)
    for pattern in globs:
        if not pattern.startswith("!"):
            manifests.update(posixpath.join(f, PACKAGE_JSON) if f else PACKAGE_JSON for f in _expand(src, pattern))
    return sorted(manifests)


def workspace_packages(src: str, package_files: tuple[str, ...], store: ConfigStore) -> dict[str, str]:
    """Package name -> folder relative to SRC (``""`` for SRC itself), members of the workspace first.

    Members are the folders the globs name on disk (a package.json git ignores still counts), the
    others every listed package.json.
    """
    globs = workspace_globs(src, store)
    manifests = package_manifests(src, package_files, globs)
    members_of = Membership(tuple(_matcher(globs)))
    members: dict[str, str] = {}
    others: dict[str, str] = {}
    for rel in manifests:
        data = store.read(os.path.join(src, rel))
        if not (isinstance(data, dict) and isinstance(data.get("name"), str) and data["name"]):
            continue
        folder = rel[: -len(PACKAGE_JSON)].rstrip("/")
        member = members_of.holds(folder)
        (members if member else others).setdefault(data["name"], folder)
    return {**others, **members}

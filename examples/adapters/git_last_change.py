"""An exec adapter over `git log`: when and by whom each asked file last changed.

Reads one batch on stdin ({"capability", "book_version", "wants": [{"key", "args": {"file", "root"}}]}),
runs one `git log` per source root (not one per file), and prints for each want
`changed_by(KEY, "Author Name", "2026-10-24T14:00:00+03:00").` (the author date, ISO 8601 with its zone),
or `answered(KEY).` when git has no history for the file.
"""

import json
import subprocess
import sys


def last_changes(root: str) -> dict:
    """{path relative to root: (author, ISO date)} of the newest commit touching each file."""
    out = subprocess.run(
        ["git", "-C", root, "log", "--relative", "--no-renames", "--name-only", "--format=%x00%an%x09%aI", "--", "."],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    newest: dict = {}
    author = when = None
    for line in out.splitlines():
        if line.startswith("\0"):
            author, when = line[1:].split("\t", 1)
        elif line and line not in newest:
            newest[line] = (author, when)
    return newest


def main() -> None:
    batch = json.load(sys.stdin)
    by_root: dict = {}
    for want in batch["wants"]:
        root = want["args"]["root"]
        if root not in by_root:
            by_root[root] = last_changes(root)
        found = by_root[root].get(want["args"]["file"])
        if found is None:
            print(f"answered({want['key']}).")
        else:
            print(f"changed_by({want['key']}, {json.dumps(found[0])}, {json.dumps(found[1])}).")


if __name__ == "__main__":
    main()

"""Work bounds of one syntax tree: the depth and error-width checks made before it is queried, and the slices
(``slice_bounds``) its queries run over so that only one slice's matches are alive at a time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MAX_TREE_DEPTH = (
    50_000  # real code nests a few dozen levels; tree-sitter queries slow down and lose matches past 65,535
)
MAX_ERROR_WIDTH = 5_000  # children of one error node (queries take time quadratic in it)
SLICE_WRAPPER = 25  # a node with fewer children is sliced inside a child with this many times more nodes


def check_work(root: Any) -> None:
    """Raise ``TooMuchWork`` when querying ``root``'s tree would exceed a bound (``heavy_node``)."""
    found = heavy_node(root)
    if found is not None:
        node, what = found
        raise TooMuchWork(f"line {node.start_point[0] + 1}: {what}, not extracted")


class TooMuchWork(Exception):
    """A text whose extraction would exceed a bound: the message says which, with a line."""


def heavy_node(root: Any) -> tuple[Any, str] | None:
    """A node past a work bound and what it is, or None: a node more than ``MAX_TREE_DEPTH``
    levels below ``root``, or an error node with more than ``MAX_ERROR_WIDTH`` children.

    ``descendant_count`` bounds both the depth and the width under a node and costs O(1), so only
    subtrees with at least as many nodes as a bound still needs are entered (none at all for a
    tree smaller than the bounds); no recursion.
    """
    least = min(MAX_TREE_DEPTH, MAX_ERROR_WIDTH)
    if root.descendant_count <= least:
        return None
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth >= MAX_TREE_DEPTH:
            return node, f"syntax nested more than {MAX_TREE_DEPTH} levels deep"
        if node.is_error and node.child_count > MAX_ERROR_WIDTH:
            return node, f"a syntax error spanning {node.child_count} nodes (over {MAX_ERROR_WIDTH})"
        need = min(MAX_TREE_DEPTH - depth, MAX_ERROR_WIDTH)
        for child in node.children:
            if child.descendant_count >= need:
                stack.append((child, depth + 1))
    return None


def _empty_edge(node: Any, last: bool) -> bool:
    """True when ``node`` or a node on its right edge (``last``) or left edge holds no bytes: the
    only nodes at a slice boundary that a byte range could treat differently from the whole file."""
    while True:
        if node.start_byte == node.end_byte:
            return True
        count = node.child_count
        if count == 0:
            return False
        node = node.child(count - 1 if last else 0)


def slice_bounds(root: Any, size: int, matched: Callable[[Any], bool]) -> list[int]:
    """Start bytes of the slices of the tree that ``_matches`` queries one at a time (the first is 0).

    A node with more than ``size`` children is cut into runs of ``size`` children (or a few more).
    A node with fewer is cut into runs of children with about ``SLICE_WRAPPER`` x ``size`` nodes
    in all, and a child with more than that and at least two children of its own is sliced the
    same way inside, unless a match starts at it (``matched``): an IIFE or UMD wrapper around a
    bundle, a huge function.  So no match ever starts at a node that spans a boundary.  A boundary
    is put before a child only when no node without bytes sits there (on the right edge of the
    child before or the left edge of the child itself), so every other node lies in exactly one
    slice's byte range.
    """
    budget = SLICE_WRAPPER * size
    bounds = [0]
    stack: list[tuple[Any, int]] = [(root, 0)]  # a node and the index of its next child to look at
    while stack:
        node, index = stack.pop()
        count = node.child_count
        if count > size:
            index = size
            while index < count:
                index = _cut(node, index, bounds) + size
            continue
        if index == 0 and node.descendant_count <= budget:
            continue
        if index > 0:  # back from the child before, sliced inside: a boundary after it
            index = _cut(node, index, bounds)
        run = 0  # nodes since the last boundary
        while index < count:
            child = node.child(index)
            nodes = child.descendant_count
            if (
                nodes > budget
                and child.child_count >= 2
                and (index == 0 or _cut(node, index, bounds, exact=True) == index)
                and not matched(child)
            ):
                stack.append((node, index + 1))
                stack.append((child, 0))
                break
            if run and run + nodes > budget and _cut(node, index, bounds, exact=True) == index:
                run = 0
            run += nodes
            index += 1
    return bounds


def _cut(node: Any, index: int, bounds: list[int], exact: bool = False) -> int:
    """Put a boundary before ``node``'s child ``index`` or (unless ``exact``) the first later one
    where no node without bytes sits; the index of the child it went before (``child_count`` when
    none)."""
    count = node.child_count
    while 0 < index < count:
        child = node.child(index)
        if not (_empty_edge(node.child(index - 1), True) or _empty_edge(child, False)):
            if child.start_byte > bounds[-1]:
                bounds.append(child.start_byte)
            return index
        if exact:
            break
        index += 1
    return count

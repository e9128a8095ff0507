"""Adapters: wants per second through exec (one batch of 1,000) and sql (10,000 wants), and rounds per
second for the seed's recursive tree, each beside the same work done by a plain Python script in this run."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent
BOOT = ROOT / "rules" / "boot.rofl"
ADAPTER = """
import json, sys
batch = json.load(sys.stdin)
out = []
for w in batch["wants"]:
    out.append(f'echo_answer({w["key"]}, {json.dumps(w["args"]["x"][::-1])}).')
print("\\n".join(out))
"""


def session(text: str):
    from rofl.adapters.policy import Policy
    from rofl.adapters.rounds import Session
    from rofl.engine.kernel import Kernel

    kernel = Kernel(BOOT, budget=10_000_000)
    kernel.load_text(text, "bench.rofl")
    return Session(kernel, Policy(frozenset({"reads"}), programs=True), max_rounds=10_000, use_cache=False)


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def bench_exec(tmp: Path, n: int = 1000) -> tuple[str, int, float, float]:
    script = tmp / "echo.py"
    script.write_text(ADAPTER)
    items = "".join(f'item("w{i:05}").\n' for i in range(n))
    text = f"""
imports(main, echo).
adapter(echo, exec, {json.dumps(f"{sys.executable} {script}")}).
capability(reverse, echo, reads).
arg(reverse, 1, x, text).
answers(reverse, echo_answer, 2).
max_wants(reverse, {n}).
{items}
want reverse(X) :- item(X).
"""
    world = session(text)  # loading the world is not the adapters' work
    ours, report = timed(world.run)
    assert len(report.answered) == n  # type: ignore[attr-defined]

    def plain() -> dict:
        batch = {"capability": "reverse", "wants": [{"key": f'"w{i}"', "args": {"x": f"w{i:05}"}} for i in range(n)]}
        out = subprocess.run([sys.executable, str(script)], input=json.dumps(batch), capture_output=True, text=True)
        pattern = re.compile(r'echo_answer\("([^"]*)", "([^"]*)"\)\.')
        return {m.group(1): m.group(2) for m in pattern.finditer(out.stdout)}

    peer, found = timed(plain)
    assert len(found) == n  # type: ignore[arg-type]
    return (f"exec: one batch of {n:,} wants", n, ours, peer)


def bench_sql(tmp: Path, n: int = 10_000) -> tuple[str, int, float, float]:
    db = tmp / "people.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE people (name TEXT PRIMARY KEY, team TEXT)")
        conn.executemany("INSERT INTO people VALUES (?, ?)", [(f"p{i}", f"team{i % 50}") for i in range(n)])
    items = "".join(f'person("p{i}").\n' for i in range(n))
    text = f"""
imports(main, hr).
adapter(hr, sql, {json.dumps(str(db))}).
capability(team_of, hr, reads).
arg(team_of, 1, name, text).
answers(team_of, team, 2).
query(team_of, "SELECT team FROM people WHERE name = ?1").
max_wants(team_of, {n}).
{items}
want team_of(N) :- person(N).
"""
    world = session(text)  # loading the world is not the adapters' work
    ours, report = timed(world.run)
    assert len(report.answered) == n  # type: ignore[attr-defined]

    def plain() -> dict:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        out = {
            f"p{i}": conn.execute("SELECT team FROM people WHERE name = ?1", (f"p{i}",)).fetchall() for i in range(n)
        }
        conn.close()
        return out

    peer, found = timed(plain)
    assert len(found) == n  # type: ignore[arg-type]
    return (f"sql: {n:,} wants", n, ours, peer)


def bench_tree(tmp: Path, fanout: int = 3, depth: int = 7) -> tuple[str, int, float, float]:
    db = tmp / "tree.db"
    rows, level = [], ["t"]
    for _ in range(depth):
        nxt = []
        for parent in level:
            for k in range(fanout):
                nxt.append(f"{parent}.{k}")
                rows.append((nxt[-1], parent))
        level = nxt
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE tenants (id TEXT, parent TEXT)")
        conn.execute("CREATE INDEX by_parent ON tenants (parent)")
        conn.executemany("INSERT INTO tenants VALUES (?, ?)", rows)
    text = f"""
imports(main, shop).
adapter(shop, sql, {json.dumps(str(db))}).
capability(children_of, shop, reads).
arg(children_of, 1, tenant, text).
answers(children_of, child, 2).
query(children_of, "SELECT id FROM tenants WHERE parent = ?1").
max_wants(children_of, 100000).
reaches("t").
reaches(T) :- want_arg(W, 1, _), child[shop](W, T).
want children_of(T) :- reaches(T).
"""
    world = session(text)  # loading the world is not the adapters' work
    ours, report = timed(world.run)
    rounds = report.rounds  # type: ignore[attr-defined]
    assert rounds == depth + 1 and len(report.answered) == len(rows) + 1  # type: ignore[attr-defined]

    def plain() -> int:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        seen, frontier, n = {"t"}, ["t"], 0
        while frontier:
            n += 1
            nxt = []
            for node in frontier:
                for (child,) in conn.execute("SELECT id FROM tenants WHERE parent = ?1", (node,)):
                    if child not in seen:
                        seen.add(child)
                        nxt.append(child)
            frontier = nxt
        conn.close()
        return n

    peer, plain_rounds = timed(plain)
    assert plain_rounds == rounds
    return (f"recursive tree ({len(rows) + 1:,} tenants, fan-out {fanout})", rounds, ours, peer)


def main() -> list[dict]:
    print("| work | rofl | plain Python | rofl / plain | rofl per second |")
    print("|---|---:|---:|---:|---:|")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for fn, unit in ((bench_exec, "wants"), (bench_sql, "wants"), (bench_tree, "rounds")):
            name, count, ours, peer = fn(Path(tmp))
            print(
                f"| {name} | {ours:.3f} s | {peer:.3f} s | {ours / peer:.1f}x | {count / ours:,.0f} {unit}/s |",
                flush=True,
            )
            rows.append({"name": name, "ratio": ours / peer})
    return rows  # bench/records.py records the ratios


if __name__ == "__main__":
    main()

"""``audit_store.read_columns`` is what the audit's early cutoff rests on (rofl/questions/audit_memo.py): two sets of
[code] rows equal when cut to the columns it keeps derive the same facts.  Checked against the engine on random rule
programs (positive premises, anonymous and repeated variables, negation, aggregates, a rule concluding into [code])
and random rows that agree only on the kept columns."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rofl.engine.kernel import Kernel

from rofl.loading.audit_store import read_columns

# rules over r[code](_, _) and s[code](_); each derives into its own relation, so any subset stratifies
TEMPLATES = (
    "p1(X) :- r[code](X, _).",
    "p2(Y) :- r[code](_, Y).",
    "p3(X, Y) :- r[code](X, Y).",
    "p4(X) :- r[code](X, Y), s[code](Y).",
    "p5(X) :- s[code](X), not r[code](X, _).",
    "p6(N) :- N = count : { r[code](X, _) }.",
    "p7(X) :- r[code](X, X).",
    "p8(X) :- r[code](X, _), r[code](_, X).",
    "p9(X) :- r[code](X, Y), Y != 1.",
    "p10(X) :- s[code](X), r[code](X, _).",
    "p11(X, Y) :- r[P](X, Y), P = code.",
    "r[code](9, 9) :- s[code](9).",
    "p12(X) :- s[code](X), not r[code](X, 1).",
    "p13(N) :- N = count : { r[code](X, Y) }.",
)
VALUES = st.integers(min_value=0, max_value=3)


def kernel(rules: list[str], r_rows: set[tuple], s_rows: set[tuple]) -> Kernel:
    k = Kernel(None)
    k.load_text("\n".join(rules) + "\n", "rules.rofl")
    k.assert_rows("r", "code", [("code", *row) for row in sorted(r_rows)])
    k.assert_rows("s", "code", [("code", *row) for row in sorted(s_rows)])
    return k


def derived(k: Kernel) -> dict[str, set]:
    result = k.evaluate()
    return {rel: set(result.rows(rel)) for rel in result.relations() if rel.startswith("p")}


def cut(rows: set[tuple], kept: tuple[int, ...] | None) -> set[tuple]:
    """Rows as stored (without the perspective) cut to ``kept`` (positions counted with it, as read_columns gives)."""
    if kept is None:
        return rows
    return {tuple(row[i - 1] for i in kept if i > 0) for row in rows}


# every template alone and with each other one: the few examples `make test` runs each try them all
PROGRAMS = [[a] for a in TEMPLATES] + [[a, b] for i, a in enumerate(TEMPLATES) for b in TEMPLATES[i + 1 :]]


@settings(max_examples=40, deadline=None)
@given(
    r_rows=st.sets(st.tuples(VALUES, VALUES), max_size=6),
    s_rows=st.sets(st.tuples(VALUES), max_size=3),
    rnd=st.randoms(use_true_random=False),
)
def test_rows_equal_on_the_kept_columns_derive_the_same_facts(r_rows, s_rows, rnd):
    for rules in PROGRAMS:
        kept = read_columns(kernel(rules, set(), set()), ["r", "s"])
        # other rows that agree on the kept columns: each row again, once or twice, with any values where nothing reads
        others: dict[str, set[tuple]] = {}
        for rel, rows in (("r", r_rows), ("s", s_rows)):
            cols = kept[rel]
            others[rel] = {
                tuple(v if cols is None or j + 1 in cols else rnd.randint(0, 3) for j, v in enumerate(row))
                for row in rows
                for _ in range(rnd.randint(1, 2))
            }
            assert cut(others[rel], cols) == cut(rows, cols)
        same = derived(kernel(rules, r_rows, s_rows)) == derived(kernel(rules, others["r"], others["s"]))
        assert same, (rules, kept, others)

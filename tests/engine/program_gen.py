"""Random *stratified* ROFL programs for differential tests, with a translation to ASP for clingo.

Stratification is built in: every relation has a level; level 0 relations are base (facts only),
a rule for a level-``l`` relation reads positively from relations of level ``<= l`` (same level:
recursion, linear, non-linear or mutual) and negatively only from relations of level ``< l``.

A program renders to ROFL source (``Program.rofl()``) and to ASP source (``Program.asp()``) with
the same meaning; perspectives, when a program uses them, become an extra first argument in ASP.
Every integer that arithmetic produces is clamped to ``0..INT_CAP-1`` by comparisons written right
after the ``is``, so every program has a finite model.

Everything is a pure function of ``(seed, knobs)``: ``random.Random(seed)`` drives every choice and
nothing iterates a set or a hash-ordered dict.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

INT_CAP = 6  # integers produced by `is` stay in 0..INT_CAP-1
ATOMS = ("a", "b", "c")
PERSPECTIVES = ("main", "s1", "s2")
VAR_NAMES = ("X", "Y", "Z", "W", "U", "V", "T", "S")
PERSP_VARS = ("P", "Q")
ARITH_OPS = ("+", "-", "*", "mod")
COMPARE_OPS = ("=", "!=", "!=", "!=", "<", "<=", ">", ">=")


# ------------------------------------------------------------------------------------------ terms
@dataclass(frozen=True)
class Var:
    name: str  # "_" is a wildcard


@dataclass(frozen=True)
class Atom:
    name: str


@dataclass(frozen=True)
class Fn:
    name: str
    args: tuple


WILD = Var("_")


def term_text(t) -> str:
    """The same text in ROFL and in ASP."""
    if isinstance(t, bool):
        raise TypeError("bool is not a term")
    if isinstance(t, int):
        return str(t)
    if isinstance(t, (Var, Atom)):
        return t.name
    return f"{t.name}({', '.join(term_text(a) for a in t.args)})"


def term_value(t):
    """A ground generator term as the kernel represents it (ints, ``(atom,)``, ``(functor, *args)``)."""
    if isinstance(t, int):
        return t
    if isinstance(t, Atom):
        return (t.name,)
    if isinstance(t, Fn):
        return (t.name, *(term_value(a) for a in t.args))
    raise ValueError(f"not ground: {t!r}")


def term_vars(t) -> list[str]:
    if isinstance(t, Var):
        return [] if t.name == "_" else [t.name]
    if isinstance(t, Fn):
        return [v for a in t.args for v in term_vars(a)]
    return []


# ------------------------------------------------------------------------------------------ clauses
@dataclass(frozen=True)
class Lit:
    rel: str
    args: tuple
    persp: object = None  # None: the default perspective (main); else Atom or Var

    def vars(self) -> list[str]:
        out = [v for a in self.args for v in term_vars(a)]
        if isinstance(self.persp, Var) and self.persp.name != "_":
            out.insert(0, self.persp.name)
        return out

    def rofl(self) -> str:
        p = "" if self.persp is None else f"[{term_text(self.persp)}]"
        return f"{self.rel}{p}({', '.join(term_text(a) for a in self.args)})"

    def asp(self, with_persp: bool) -> str:
        args = [term_text(a) for a in self.args]
        if with_persp:
            args.insert(0, "main" if self.persp is None else term_text(self.persp))
        return f"{self.rel}({','.join(args)})"


@dataclass(frozen=True)
class Neg:
    lit: Lit

    def vars(self) -> list[str]:
        return self.lit.vars()

    def rofl(self) -> str:
        return "not " + self.lit.rofl()

    def asp(self, with_persp: bool) -> str:
        return "not " + self.lit.asp(with_persp)


@dataclass(frozen=True)
class Cmp:
    """``left op right`` with both sides bound (``=`` with an unbound left side binds it)."""

    op: str
    left: object
    right: object

    def vars(self) -> list[str]:
        return term_vars(self.left) + term_vars(self.right)

    def rofl(self) -> str:
        return f"{term_text(self.left)} {self.op} {term_text(self.right)}"

    def asp(self, with_persp: bool) -> str:
        return f"{term_text(self.left)} {self.op} {term_text(self.right)}"


@dataclass(frozen=True)
class Assign:
    """``var is left op right``; in ASP ``var = left op right`` (``mod`` is written ``\\``)."""

    var: str
    left: object
    op: str
    right: object

    def vars(self) -> list[str]:
        return [self.var] + term_vars(self.left) + term_vars(self.right)

    def rofl(self) -> str:
        return f"{self.var} is {term_text(self.left)} {self.op} {term_text(self.right)}"

    def asp(self, with_persp: bool) -> str:
        op = "\\" if self.op == "mod" else self.op
        return f"{self.var} = {term_text(self.left)} {op} {term_text(self.right)}"


@dataclass(frozen=True)
class Rule:
    head: Lit
    body: tuple

    def rofl(self) -> str:
        return f"{self.head.rofl()} :- {', '.join(i.rofl() for i in self.body)}."

    def asp(self, with_persp: bool) -> str:
        return f"{self.head.asp(with_persp)} :- {', '.join(i.asp(with_persp) for i in self.body)}."


@dataclass
class Program:
    seed: int
    arity: dict  # rel -> arity, in creation order
    level: dict  # rel -> level (0 = base)
    facts: list  # ground Lit
    rules: list  # Rule
    perspectives: bool
    domain: tuple
    features: set = field(default_factory=set)  # what the generator put in (for coverage checks)

    @property
    def relations(self) -> list[str]:
        return list(self.arity)

    def rofl(self) -> str:
        lines = [f"-- random stratified program, seed {self.seed}"]
        lines += [f.rofl() + "." for f in self.facts]
        lines += [r.rofl() for r in self.rules]
        return "\n".join(lines) + "\n"

    def asp(self) -> str:
        lines = [f.asp(self.perspectives) + "." for f in self.facts]
        lines += [r.asp(self.perspectives) for r in self.rules]
        return "\n".join(lines) + "\n"

    def with_rules(self, rules: list, facts: list | None = None) -> Program:
        return Program(
            self.seed,
            dict(self.arity),
            dict(self.level),
            list(self.facts if facts is None else facts),
            list(rules),
            self.perspectives,
            self.domain,
            set(self.features),
        )


# ------------------------------------------------------------------------------------------ generator
class _Gen:
    def __init__(
        self,
        seed: int,
        *,
        max_levels: int,
        max_idb: int,
        domain_size: int,
        perspectives: bool | None,
        recursion: float,
        negation: float,
        premise_free: float = 0.0,
    ) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.max_levels = max_levels
        self.max_idb = max_idb
        self.domain_size = domain_size
        self.persp_mode = (self.rng.random() < 0.25) if perspectives is None else perspectives
        self.p_rec = recursion
        self.p_neg = negation
        self.p_free = premise_free
        self.features: set = set()

    # -- domain ------------------------------------------------------------------------------
    def make_domain(self) -> tuple:
        rng = self.rng
        n_int = rng.randint(2, max(2, self.domain_size - 1))
        ints = list(range(n_int))
        atoms = [Atom(a) for a in ATOMS[: rng.randint(0, min(len(ATOMS), self.domain_size - n_int))]]
        dom: list = ints + atoms
        if rng.random() < 0.3:
            dom.append(Fn("f", (rng.choice(dom),)))
            self.features.add("compound")
        self.domain = tuple(dom)
        self.consts = tuple(ints + atoms)  # constants written into rule bodies/heads
        return self.domain

    # -- relations ---------------------------------------------------------------------------
    def make_relations(self) -> None:
        rng = self.rng
        self.arity: dict[str, int] = {}
        self.level: dict[str, int] = {}
        for i in range(rng.randint(2, 3)):
            self.arity[f"e{i}"] = rng.choice((1, 2, 2, 3))
            self.level[f"e{i}"] = 0
        n_levels = rng.randint(1, self.max_levels)
        n_idb = rng.randint(max(2, n_levels), max(2, n_levels, self.max_idb))
        levels = list(range(1, n_levels + 1)) + [rng.randint(1, n_levels) for _ in range(n_idb - n_levels)]
        levels.sort()
        for i, lv in enumerate(levels):
            name = f"r{i}"
            self.arity[name] = rng.choice((1, 2, 2, 3))
            self.level[name] = lv
        if n_levels > 1:
            self.features.add("multi_level")

    # -- facts -------------------------------------------------------------------------------
    def persp_const(self):
        return Atom(self.rng.choice(PERSPECTIVES)) if self.persp_mode else None

    def make_facts(self) -> list:
        rng = self.rng
        facts: list = []
        seen: set = set()
        for rel, ar in self.arity.items():
            if self.level[rel] == 0:
                n = rng.randint(3 + ar, 4 + 5 * ar)
            elif rng.random() < 0.2:
                n = rng.randint(1, 2)
                self.features.add("mixed_edb_idb")
            else:
                continue
            for _ in range(n):
                lit = Lit(rel, tuple(rng.choice(self.domain) for _ in range(ar)), self.persp_const())
                if lit not in seen:
                    seen.add(lit)
                    facts.append(lit)
        return facts

    # -- rules -------------------------------------------------------------------------------
    def make_rules(self) -> list:
        rules: list = []
        for rel in self.arity:
            lv = self.level[rel]
            if lv == 0:
                continue
            n = self.rng.randint(1, 4)
            first = 0
            if self.p_free and self.rng.random() < self.p_free:
                # the relation's base case has no positive premise; its other rules are recursive or absent
                rules.append(self.premise_free_rule(rel))
                first, n = 1, self.rng.randint(1, 2)
            for k in range(first, n):
                rules.append(self.make_rule(rel, recursive_ok=k > 0))
        return rules

    def premise_free_rule(self, head: str) -> Rule:
        """A rule without a positive premise: ``r(X, 2) :- X = a.`` or ``r(1) :- not s(1, b).``"""
        rng = self.rng
        self.features.add("premise_free_rule")
        lower = [r for r in self.arity if self.level[r] < self.level[head]]
        persp = Atom(rng.choice(PERSPECTIVES)) if self.persp_mode else None
        if rng.random() < 0.5:
            rel = rng.choice(lower)
            lit = Lit(rel, tuple(rng.choice(self.consts) for _ in range(self.arity[rel])), self.persp_const())
            args = tuple(rng.choice(self.consts) for _ in range(self.arity[head]))
            return Rule(Lit(head, args, persp), (Neg(lit),))
        var = Var(VAR_NAMES[0])
        if rng.random() < 0.5:
            body: tuple = (Cmp("=", var, rng.choice(self.consts)),)
        else:
            body = (Assign(var.name, rng.randint(0, 2), "+", rng.randint(0, 3)),)
        args = tuple(var if rng.random() < 0.7 else rng.choice(self.consts) for _ in range(self.arity[head]))
        return Rule(Lit(head, args, persp), body)

    def body_relation(self, head: str, recursive_ok: bool) -> str:
        rng = self.rng
        lv = self.level[head]
        same = [r for r in self.arity if self.level[r] == lv]
        lower = [r for r in self.arity if self.level[r] < lv]
        if recursive_ok and rng.random() < self.p_rec:
            return rng.choice(same)
        return rng.choice(lower)

    def new_var(self, used: list) -> Var:
        for name in VAR_NAMES:
            if name not in used:
                used.append(name)
                return Var(name)
        return Var(self.rng.choice(used))

    def pos_args(self, ar: int, used: list) -> tuple:
        """Arguments of a positive literal: mostly joins on earlier variables, some fresh ones, a few
        repeated variables, constants, wildcards and ``f(V)`` patterns."""
        rng = self.rng
        out = []
        earlier = list(used)
        for _ in range(ar):
            x = rng.random()
            mine = [t.name for t in out if isinstance(t, Var)]
            join = [v for v in earlier if v not in mine]
            if x < 0.45:
                out.append(Var(rng.choice(join)) if join else self.new_var(used))
            elif x < 0.52:
                out.append(Var(rng.choice(used)) if used else self.new_var(used))
            elif x < 0.84:
                out.append(self.new_var(used))
            elif x < 0.9:
                out.append(rng.choice(self.consts))
                self.features.add("body_constant")
            elif x < 0.97 or not any(isinstance(d, Fn) for d in self.domain):
                out.append(WILD)
                self.features.add("wildcard")
            else:
                out.append(Fn("f", (self.new_var(used),)))
                self.features.add("compound_pattern")
        return tuple(out)

    def persp_term(self, persp_vars: list, bind: bool):
        """A literal's perspective in perspective mode: a constant, a bound variable, or (when allowed) a new one."""
        if not self.persp_mode:
            return None
        rng = self.rng
        x = rng.random()
        if persp_vars and x < 0.4:
            return Var(rng.choice(persp_vars))
        if bind and x < 0.7:
            for name in PERSP_VARS:
                if name not in persp_vars:
                    persp_vars.append(name)
                    self.features.add("variable_perspective")
                    return Var(name)
        return Atom(rng.choice(PERSPECTIVES))

    def operand(self, bound: list, avoid=None):
        rng = self.rng
        if bound and rng.random() < 0.7:
            choices = [v for v in bound if Var(v) != avoid] or bound
            return Var(rng.choice(choices))
        return rng.choice(self.consts)

    def make_rule(self, head: str, recursive_ok: bool) -> Rule:
        rng = self.rng
        lv = self.level[head]
        used: list[str] = []
        persp_vars: list[str] = []
        positives: list[Lit] = []
        n_pos = rng.choice((1, 1, 2, 2, 2, 3))
        same_level = 0
        chain = rng.random() < 0.5  # path-like: each literal starts with the previous literal's last variable
        for i in range(n_pos):
            rel = self.body_relation(head, recursive_ok)
            if self.level[rel] == lv:
                same_level += 1
                self.features.add("self_recursion" if rel == head else "mutual_recursion")
            args = self.pos_args(self.arity[rel], used)
            if chain and i > 0:
                prev = [a for a in positives[-1].args if isinstance(a, Var) and a.name != "_"]
                if prev:
                    args = (prev[-1], *args[1:])
                    self.features.add("chain_join")
            positives.append(Lit(rel, args, self.persp_term(persp_vars, True)))
        if same_level >= 2:
            self.features.add("nonlinear_recursion")
        bound_after: list[list[str]] = []  # variables bound after each positive literal
        acc: list[str] = []
        for lit in positives:
            for v in lit.vars():
                if v not in acc:
                    acc.append(v)
            bound_after.append(list(acc))
        bound = [v for v in acc if v not in PERSP_VARS]
        extras: list[tuple[int, object]] = []  # (earliest positive index after which it may go, item or group)

        def earliest(names: list[str]) -> int:
            for i, b in enumerate(bound_after):
                if all(n in b for n in names):
                    return i
            return len(bound_after) - 1

        # negation: toward strictly lower levels only
        lower = [r for r in self.arity if self.level[r] < lv]
        n_neg = sum(1 for _ in range(2) if rng.random() < self.p_neg)
        for _ in range(n_neg):
            rel = rng.choice(lower)
            args = []
            for _ in range(self.arity[rel]):
                x = rng.random()
                if bound and x < 0.7:
                    args.append(Var(rng.choice(bound)))
                elif x < 0.85:
                    args.append(rng.choice(self.consts))
                else:
                    args.append(WILD)
                    self.features.add("negated_wildcard")
            lit = Lit(rel, tuple(args), self.persp_term(persp_vars, False))
            extras.append((earliest(lit.vars()), Neg(lit)))
            self.features.add("negation")
            if self.level[rel] > 0:
                self.features.add("negation_of_derived")
        # comparisons
        for _ in range(sum(1 for _ in range(2) if rng.random() < 0.25)):
            left = self.operand(bound)
            right = self.operand(bound, avoid=left)
            if left == right:
                continue
            if not isinstance(left, Var) and not isinstance(right, Var) and bound:
                left = Var(rng.choice(bound))
            item = Cmp(rng.choice(COMPARE_OPS), left, right)
            extras.append((earliest(item.vars()), item))
            self.features.add("comparison")
        # arithmetic, clamped to 0..INT_CAP-1 so recursion through it stays finite
        head_pool = list(bound)
        if bound and rng.random() < 0.2:
            var = self.new_var(used).name
            if var not in bound:
                op = rng.choice(ARITH_OPS)
                left = Var(rng.choice(bound))
                right = rng.randint(1, 3) if rng.random() < 0.5 else Var(rng.choice(bound))
                at = earliest([left.name] + term_vars(right))
                extras.append((at, (Assign(var, left, op, right), Cmp(">=", Var(var), 0), Cmp("<", Var(var), INT_CAP))))
                head_pool.append(var)
                self.features.add("arithmetic")
        # a variable bound by `=` from a bound one or a constant
        if bound and rng.random() < 0.1:
            var = self.new_var(used).name
            if var not in bound and var not in head_pool:
                src = self.operand(bound)
                extras.append((earliest(term_vars(src)), Cmp("=", Var(var), src)))
                head_pool.append(var)
                self.features.add("binding_equality")
        # written order: each extra somewhere after the positive literal that binds its inputs
        slots: list[list] = [[] for _ in positives]
        for at, item in extras:
            slots[rng.randint(at, len(positives) - 1)].extend(item if isinstance(item, tuple) else (item,))
        body: list = []
        for lit, after in zip(positives, slots):
            body.append(lit)
            body.extend(after)
        # head: distinct variables where possible; path-like rules keep the two ends
        hargs = []
        pool = list(head_pool)
        if chain and pool:
            first = [v for v in positives[0].vars() if v in pool]
            last = [v for v in positives[-1].vars() if v in pool]
            ends = [x for x in (first[:1] + last[-1:]) if x]
            pool = list(dict.fromkeys(ends + [v for v in pool if v not in ends]))
        for _ in range(self.arity[head]):
            if pool and rng.random() < 0.9:
                name = pool.pop(0) if chain else pool.pop(rng.randrange(len(pool)))
                hargs.append(Var(name))
            elif head_pool and rng.random() < 0.7:
                hargs.append(Var(rng.choice(head_pool)))
            else:
                hargs.append(rng.choice(self.consts))
        if chain and len(hargs) >= 2 and isinstance(hargs[1], Var) and positives[-1].vars():
            # r(X, Z) :- a(X, Y), b(Y, Z): the head's last argument is the path's far end
            far = [v for v in positives[-1].vars() if v in head_pool][-1:]
            if far and Var(far[0]) not in hargs:
                hargs[-1] = Var(far[0])
        hpersp = None
        if self.persp_mode:
            if persp_vars and rng.random() < 0.6:
                hpersp = Var(rng.choice(persp_vars))
            else:
                hpersp = Atom(rng.choice(PERSPECTIVES))
        return Rule(Lit(head, tuple(hargs), hpersp), tuple(body))


def generate(
    seed: int,
    *,
    max_levels: int = 3,
    max_idb: int = 5,
    domain_size: int = 5,
    perspectives: bool | None = None,
    recursion: float = 0.45,
    negation: float = 0.3,
    premise_free: float = 0.0,
) -> Program:
    """A random stratified program; the same arguments always give the same program."""
    g = _Gen(
        seed,
        max_levels=max_levels,
        max_idb=max_idb,
        domain_size=domain_size,
        perspectives=perspectives,
        recursion=recursion,
        negation=negation,
        premise_free=premise_free,
    )
    g.make_domain()
    g.make_relations()
    facts = g.make_facts()
    rules = g.make_rules()
    if g.persp_mode:
        g.features.add("perspectives")
    return Program(seed, g.arity, g.level, facts, rules, g.persp_mode, g.domain, g.features)


def unstratify(prog: Program, seed: int) -> tuple[Program, list]:
    """Add a negative dependency inside a cycle: returns the bad program and the added rules.

    A fresh relation ``x0`` copies one variable of some rule's head relation ``h`` (``x0(V) :- h(...)``)
    and a copy of that rule gets ``not x0(V)``: ``h`` now depends negatively on ``x0``, which depends
    positively on ``h``.
    """
    rng = random.Random(seed)
    candidates = [r for r in prog.rules if any(isinstance(i, Lit) and set(i.vars()) - set(PERSP_VARS) for i in r.body)]
    rule = rng.choice(candidates)
    var = rng.choice([v for i in rule.body if isinstance(i, Lit) for v in i.vars() if v not in PERSP_VARS])
    head = rule.head
    args = tuple(Var(VAR_NAMES[k]) for k in range(prog.arity[head.rel]))
    main = None if not prog.perspectives else Atom("main")
    back = Rule(Lit("x0", (args[0],), main), (Lit(head.rel, args, None if main is None else Var("P")),))
    bad = Rule(rule.head, (*rule.body, Neg(Lit("x0", (Var(var),), main))))
    out = prog.with_rules(prog.rules + [back, bad])
    out.arity["x0"] = 1
    out.level["x0"] = prog.level[head.rel]
    return out, [back, bad]

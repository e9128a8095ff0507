"""The ROFL parser: source text to clause values, with file, line and column on every error."""

from __future__ import annotations

import re
from itertools import count

from . import lexer, text_builtins
from .base.errors import RoflSyntaxError
from .clauses import (
    AGGREGATE_OPS,
    ARITH,
    COMPARISONS,
    INIT,
    NEXT,
    NOW,
    WILDCARD_PREFIX,
    Aggregate,
    BodyItem,
    Builtin,
    Clause,
    Literal,
    Negated,
    body_literals,
    scope_aggregates,
    var,
)
from .lexer import ATOM, EOF, INT, NAME, PUNCT, STRING, VAR, Token
from .terms import Term, compound

DEFAULT_PERSP = "main"
_TEMPORALS = {"init": INIT, "now": NOW, "next": NEXT}


def parse_program(text: str, source: str = "<input>") -> list[Clause]:
    """Parse a whole program; raise RoflSyntaxError naming the first problem (nothing is returned then)."""
    facts, rest = _simple_facts(text, source)
    if rest is None:
        return facts
    return facts + _Parser(lexer.tokenize(rest, source), source).program()


# Fact files (one ground fact of strings, integers and atoms per line) are the bulk of what is
# loaded; they take a line-by-line path.  Any line it does not recognise sends the whole text to
# the full parser, which then also produces the exact error position.
_WS = r"\s*"  # ASCII white space; \v, which the lexer rejects, sends the text to the full parser
_FACT_LINE = re.compile(
    _WS + rf"({NAME})(?:\[({NAME})\])?\((.*)\)" + _WS + r"(@init|@now)?" + _WS + r"\." + _WS,
    re.ASCII,
)
_QUIET_LINE = re.compile(_WS + r"(?:--.*)?", re.ASCII)
_ONE_ARG = _WS + r'(?:"((?:[^"\\\n]|\\.)*)"|(-?[0-9]+)|(' + NAME + "))" + _WS
_ARGS = re.compile(_ONE_ARG + r"(?:," + _ONE_ARG + r")*", re.ASCII)
_ARG = re.compile(_ONE_ARG + r"(?:,|$)", re.ASCII)


def _simple_facts(text: str, source: str) -> tuple[list[Clause], str | None]:
    """The plain facts of the text's leading lines, and the rest of the text for the full parser
    (None: there is none).  The rest keeps its line numbers: the lines taken are left as blank lines.
    Only leading lines are taken, because every line before the first other one is a whole clause
    (a fact line after a rule could be the last line of that rule)."""
    if "\v" in text:
        return [], text
    out: list[Clause] = []
    append = out.append
    fact_line = _FACT_LINE.fullmatch
    quiet = _QUIET_LINE.fullmatch
    args_ok = _ARGS.fullmatch
    find_args = _ARG.findall
    keywords = _KEYWORDS
    lines = text.split("\n")
    for n, line in enumerate(lines):
        m = fact_line(line)
        if m is None:
            if quiet(line) is not None:
                continue
            return out, _rest(lines, n)  # not a plain fact, a comment or a blank line
        rel, persp, body, temporal = m.groups()
        if args_ok(body) is None or rel in keywords:
            return out, _rest(lines, n)
        args: list = []
        for string, number_text, name in find_args(body):
            if number_text:
                args.append(int(number_text))
            elif name:
                if name in keywords:
                    return out, _rest(lines, n)
                args.append((name,))
            else:
                args.append(_unescape(string, source) if "\\" in string else string)
        lit = Literal(rel, persp or DEFAULT_PERSP, tuple(args), INIT if temporal == "@init" else NOW)
        append(Clause(lit, (), False, False, n + 1, m.start(1) + 1))
    return out, None


def _rest(lines: list[str], first: int) -> str:
    """Lines ``first`` onwards, after as many empty lines as were taken (positions stay exact)."""
    return "\n" * first + "\n".join(lines[first:])


_KEYWORDS = frozenset(("not", "is", "mod", "want", "bridge"))


def _unescape(body: str, source: str) -> str:
    tokens = lexer.tokenize('"' + body + '"', source)
    return tokens[0].value


def parse_literal(text: str, source: str = "<query>") -> Literal:
    """Parse one literal such as ``path(a, X)`` (a trailing '.' is allowed)."""
    p = _Parser(lexer.tokenize(text, source), source)
    lit = p.literal(allow_var_names=True)
    if p.peek().text == "." and p.peek().kind == PUNCT:
        p.advance()
    p.expect_end()
    return lit


def parse_body(text: str, source: str = "<query>") -> tuple:
    """Parse a conjunction such as ``p(X), not q(X), X > 1`` (a trailing '.' is allowed)."""
    p = _Parser(lexer.tokenize(text, source), source)
    body = p.body()
    if p.peek().text == "." and p.peek().kind == PUNCT:
        p.advance()
    p.expect_end()
    return scope_aggregates(None, body)


class _Parser:
    def __init__(self, tokens: list[Token], source: str) -> None:
        self.tokens = tokens
        self.pos = 0
        self.source = source
        self._fresh = count(1)

    # -- token helpers -------------------------------------------------------------------
    def peek(self, k: int = 0) -> Token:
        return self.tokens[min(self.pos + k, len(self.tokens) - 1)]

    def advance(self) -> Token:
        tok = self.tokens[self.pos]
        if tok.kind != EOF:
            self.pos += 1
        return tok

    def error(self, tok: Token, message: str) -> RoflSyntaxError:
        return RoflSyntaxError(self.source, tok.line, tok.col, message)

    def expect(self, text: str, what: str | None = None) -> Token:
        tok = self.peek()
        if tok.kind == PUNCT and tok.text == text:
            return self.advance()
        raise self.error(tok, f"expected {what or repr(text)}, found {tok.describe()}")

    def at(self, text: str) -> bool:
        tok = self.peek()
        return tok.kind == PUNCT and tok.text == text

    def expect_end(self) -> None:
        tok = self.peek()
        if tok.kind != EOF:
            raise self.error(tok, f"expected end of input, found {tok.describe()}")

    # -- grammar ---------------------------------------------------------------------------
    def program(self) -> list[Clause]:
        clauses: list[Clause] = []
        while self.peek().kind != EOF:
            clauses.append(self.clause())
        return clauses

    def clause(self) -> Clause:
        self._fresh = count(1)
        start = self.peek()
        want = bridge = False
        if start.kind == ATOM and start.text in ("want", "bridge") and self.peek(1).kind == ATOM:
            self.advance()
            want, bridge = start.text == "want", start.text == "bridge"
        head = self.literal()
        if head.temporal == "async":
            raise self.error(start, "@async is not in v0; use @now or @next")
        if self.at(":-"):
            self.advance()
            body = self.body()
            self.expect(".", "'.' at the end of the rule")
            if head.temporal == INIT:
                raise self.error(start, "@init is not allowed on a rule head; mark facts @init, or use @next")
            for lit, _ in body_literals(body):
                if lit.temporal == NEXT:
                    raise self.error(start, "@next is not allowed in a rule body; it marks conclusions only")
            return Clause(head, scope_aggregates(head, body), want, bridge, start.line, start.col)
        self.expect(".", "'.' or ':-' after the literal")
        if want or bridge:
            raise self.error(start, f"'{start.text}' needs a rule: {start.text} head :- body.")
        if not _ground_literal(head):
            raise self.error(start, "a fact must be ground (no variables); write a rule with ':-' instead")
        if head.temporal == NEXT:
            raise self.error(start, "@next marks rule conclusions; a fact may be @init or @now")
        return Clause(head, (), False, False, start.line, start.col)

    def body(self) -> tuple:
        items = [self.item()]
        while self.at(","):
            self.advance()
            items.append(self.item())
        return tuple(items)

    def item(self) -> BodyItem:
        tok = self.peek()
        if tok.kind == ATOM and tok.text == "not" and self.peek(1).kind == ATOM:
            self.advance()
            start, lit = self.peek(), self.literal()
            return self.call_builtin(start, lit, "not ") or Negated(lit)
        if tok.kind == ATOM and self.peek(1).kind == PUNCT and self.peek(1).text in ("(", "["):
            # a literal, unless a comparison operator follows (then it was a term)
            save = self.pos
            lit = self.literal()
            call = self.call_builtin(tok, lit, "")
            if call is not None:
                return call
            if self.peek().kind == PUNCT and self.peek().text in COMPARISONS or self.peek().text == "is":
                if lit.persp == DEFAULT_PERSP and lit.temporal == NOW and self.tokens[save + 1].text == "(":
                    self.pos = save
                    return self.builtin()
            return lit
        return self.builtin()

    def call_builtin(self, tok: Token, lit: Literal, prefix: str) -> Builtin | None:
        """``matches(T, R)`` / ``glob(T, P)`` (``prefix`` "not " when negated) as a builtin; None for a literal.
        A constant pattern is compiled here, so a refused one names its line."""
        if lit.rel not in text_builtins.CALLS:
            return None
        if lit.persp != DEFAULT_PERSP or lit.temporal != NOW or len(lit.args) != 2:
            raise self.error(tok, f"{lit.rel} is a builtin: write {lit.rel}(Text, Pattern), with no perspective or @")
        try:
            text_builtins.check(lit.rel, lit.args[1])
        except text_builtins.PatternError as exc:
            raise self.error(tok, str(exc)) from None
        return Builtin(prefix + lit.rel, lit.args[0], lit.args[1])

    def builtin(self) -> Builtin | Aggregate:
        left = self.expr()
        tok = self.peek()
        op = (
            tok.text
            if (tok.kind == PUNCT and tok.text in COMPARISONS) or (tok.kind == ATOM and tok.text == "is")
            else None
        )
        if op is None:
            raise self.error(tok, f"expected a literal or a comparison (= != < <= > >= is), found {tok.describe()}")
        self.advance()
        if op == "=":
            agg = self.aggregate(tok, left)
            if agg is not None:
                return agg
        right = self.expr()
        return Builtin(op, left, right)

    def aggregate(self, eq: Token, left: Term) -> Aggregate | None:
        """``count : { body }`` or ``sum|min|max Expr : { body }`` after ``Left =``; None (nothing
        consumed) when what follows is a term, such as the atom ``count``."""
        tok = self.peek()
        if tok.kind != ATOM or tok.text not in AGGREGATE_OPS:
            return None
        save = self.pos
        self.advance()
        value: Term = 1
        if tok.text != "count":
            nxt = self.peek()
            if nxt.kind == PUNCT and nxt.text == ":":
                raise self.error(nxt, f"{tok.text} needs a value: {tok.text} X : {{ p(X), ... }}")
            if nxt.kind == PUNCT and nxt.text in (",", ".", ")", "(", "}"):
                self.pos = save
                return None
            value = self.expr()
        if not self.at(":"):
            self.pos = save
            return None
        self.advance()
        if isinstance(left, tuple) and left and left[0] == ARITH:
            raise self.error(eq, "the left of an aggregate is a variable or a value, not arithmetic")
        self.expect("{", f"'{{' opening the body of {tok.text}")
        if self.at("}"):
            raise self.error(self.peek(), f"{tok.text} needs a body: {tok.text} : {{ p(X), ... }}")
        body = self.body()
        for item in body:
            if isinstance(item, Aggregate):
                raise self.error(tok, "an aggregate cannot hold another aggregate; name the inner one with a rule")
        self.expect("}", "',' or '}' closing the aggregate's body")
        return Aggregate(tok.text, left, value, body)

    def literal(self, allow_var_names: bool = False) -> Literal:
        tok = self.peek()
        if tok.kind != ATOM:
            raise self.error(tok, f"expected a relation name (lowercase), found {tok.describe()}")
        self.advance()
        persp: Term = DEFAULT_PERSP
        if self.at("["):
            self.advance()
            p = self.peek()
            if p.kind == ATOM:
                persp = p.text
            elif p.kind == VAR:
                persp = self.variable(p)
            else:
                raise self.error(p, f"expected a perspective name or variable, found {p.describe()}")
            self.advance()
            self.expect("]")
        if not self.at("("):
            raise self.error(self.peek(), f"expected '(' after '{tok.text}': every relation has at least one argument")
        self.advance()
        args = self.arguments()
        temporal = NOW
        if self.at("@"):
            self.advance()
            t = self.peek()
            if t.kind == ATOM and t.text == "async":
                self.advance()
                raise self.error(t, "@async is not in v0; use @now or @next")
            if t.kind != ATOM or t.text not in _TEMPORALS:
                raise self.error(t, f"expected init, now or next after '@', found {t.describe()}")
            self.advance()
            temporal = _TEMPORALS[t.text]
        return Literal(tok.text, persp, tuple(args), temporal)

    def variable(self, tok: Token) -> tuple:
        if tok.text == "_":
            return var(f"{WILDCARD_PREFIX}{next(self._fresh)}")
        return var(tok.text)

    def arguments(self) -> list:
        """Terms separated by commas up to and including the closing parenthesis."""
        args = [self.term()]
        while self.at(","):
            self.advance()
            args.append(self.term())
        self.expect(")", "',' or ')'")
        return args

    def term(self) -> Term:
        tok = self.peek()
        if tok.kind == VAR:
            self.advance()
            return self.variable(tok)
        if tok.kind == INT:
            self.advance()
            return tok.value
        if tok.kind == STRING:
            self.advance()
            return tok.value
        if tok.kind == PUNCT and tok.text == "-" and self.peek(1).kind == INT:
            self.advance()
            return -self.advance().value
        if tok.kind == ATOM:
            self.advance()
            if self.at("("):
                self.advance()
                return compound(tok.text, *self.arguments())
            return (tok.text,)
        raise self.error(tok, f"expected a term (variable, number, string, atom or f(...)), found {tok.describe()}")

    # -- arithmetic ---------------------------------------------------------------------------
    def expr(self) -> Term:
        left = self.product()
        while self.peek().kind == PUNCT and self.peek().text in ("+", "-"):
            op = self.advance().text
            left = (ARITH, op, left, self.product())
        return left

    def product(self) -> Term:
        left = self.factor()
        while (self.peek().kind == PUNCT and self.peek().text in ("*", "/")) or (
            self.peek().kind == ATOM and self.peek().text == "mod"
        ):
            op = self.advance().text
            left = (ARITH, op, left, self.factor())
        return left

    def factor(self) -> Term:
        tok = self.peek()
        if tok.kind == PUNCT and tok.text == "-":
            if self.peek(1).kind == INT:
                return self.term()
            self.advance()
            return (ARITH, "-", 0, self.factor())
        if tok.kind == PUNCT and tok.text == "(":
            self.advance()
            inner = self.expr()
            self.expect(")")
            return inner
        return self.term()


def _ground_literal(lit: Literal) -> bool:
    from .terms import is_ground

    return type(lit.persp) is str and all(is_ground(a) for a in lit.args)

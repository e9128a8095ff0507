"""The interactive session: one command per line over a live kernel; errors print one line and the session goes on."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from rofl.engine.base.errors import RoflError
from rofl.engine.clauses import Literal
from rofl.engine.kernel import Kernel
from rofl.engine.parse import parse_literal, parse_program
from rofl.engine.terms import format_fact, format_term, is_ground, sort_key
from rofl.engine.vocabulary import ANY_PERSP, NAMESPACES

HELP = """\
commands:
  ? Q                 all answers to Q: a literal or a conjunction (p(X), not q(X), X > 1),
                      from the perspectives main sees (imports, bridges, [boot] and [audit])
  ?? Q                the same from every perspective
  why L | whynot L    explain a fact that holds / does not hold
  excise F            facts lost and gained without base fact F
  budget N { CMD }    run CMD with a budget of N derivation steps
  load FILE           load a program file (asserted by the current who)
  who NAME            assert what follows as NAME (`who -` for nobody)
  retract F           remove a base fact
  tick | run [N]      close the tick / run up to N ticks (default: until quiet)
  save FILE | restore FILE
  facts [REL]         facts that hold now
  help | quit
  anything ending in '.' is asserted as program text"""

_BUDGET = re.compile(r"^budget\s+(\d+)\s*\{(.*)\}\s*$", re.S)
ASKER = "main"  # the perspective a question of the session is asked from
_PERSP_VAR = "$persp"  # a name source text cannot spell: an anonymous perspective variable, named to be checked


def visible(kernel: Kernel, asker: str) -> frozenset[str]:
    """The perspectives ``asker`` sees (kernel.md §5): itself and what it imports, transitively (boot's
    ``sees``), each perspective a declared bridge names as its source and reads into one of those (a
    bridge with a variable source perspective names none), and the kernel's own
    namespaces ([boot], [audit]), which anyone may read."""
    seen = {asker, *NAMESPACES}
    try:
        seen |= {q[0] for (q,) in kernel.query(f"sees[boot]({asker}, Q)").rows if type(q) is tuple}
        bridges = [
            (a[0], b[0])
            for _, a, b in kernel.query("bridge_decl(R, A, B)").rows
            if type(a) is tuple and type(b) is tuple and a[0] != ANY_PERSP  # a variable source names none
        ]
    except RoflError:  # a session without boot (or no bridge yet): nothing more to see
        bridges = []
    grew = True
    while grew:
        grew = False
        for source, target in bridges:
            if target in seen and source not in seen:
                seen.add(source)
                grew = True
    return frozenset(seen)


def _perspectives_named(items: tuple) -> tuple[tuple, list]:
    """The question's items with each anonymous perspective variable of a positive literal named, and
    the perspective (a name, or a variable term) of every positive literal."""
    out: list = []
    persps: list = []
    for item in items:
        if isinstance(item, Literal):
            persp = item.persp
            if type(persp) is tuple and persp[1].startswith("_"):
                persp = ("$var", f"{_PERSP_VAR}{len(persps)}")
                item = replace(item, persp=persp)
            persps.append(persp)
        out.append(item)
    return tuple(out), persps


def _row_key(row: tuple) -> tuple:
    return tuple(sort_key(t) for t in row)


class Repl:
    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.who: str | None = None

    def execute(self, line: str) -> str | None:
        """Run one line; return the text to print, or None to end the session."""
        line = line.strip()
        if not line or line.startswith("--"):
            return ""
        try:
            return self._dispatch(line)
        except RoflError as exc:
            return f"error: {exc}".splitlines()[0] if not getattr(exc, "trace", "") else f"error: {exc}"
        except RecursionError:
            return "error: nested too deeply to evaluate or explain; reduce term or proof depth"
        except (OSError, ValueError) as exc:  # a bad number or path in a command line
            return f"error: {exc}; type help for the commands"

    def _dispatch(self, line: str) -> str | None:
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        if line in ("quit", "exit"):
            return None
        if line == "help":
            return HELP
        m = _BUDGET.match(line)
        if m:
            saved = self.kernel.budget
            self.kernel.budget = int(m.group(1))
            self.kernel.invalidate()
            try:
                return self._dispatch(m.group(2).strip())
            finally:
                self.kernel.budget = saved
                self.kernel.invalidate()
        if line.startswith("??"):
            return self._ask(line[2:].strip(), everywhere=True)
        if line.startswith("?"):
            return self._ask(line[1:].strip())
        if word == "why":
            return self._why(rest)
        if word == "whynot":
            lit = self._ground(rest)
            return "\n".join(self.kernel.whynot(lit.rel, lit.persp, lit.args).lines())
        if word == "excise":
            lit = self._ground(rest)
            removed, added = self.kernel.excise(lit.rel, lit.persp, lit.args)
            return "\n".join([f"- {f}" for f in removed] + [f"+ {f}" for f in added]) or "no change"
        if word == "load":
            self.kernel.load_sources([(Path(rest), self.who)])
            return f"loaded {rest}"
        if word == "who":
            self.who = None if rest in ("", "-") else rest
            return f"asserting as {self.who or 'nobody'}"
        if word == "retract":
            lit = self._ground(rest)
            ok = self.kernel.retract(lit.rel, lit.persp, lit.args)
            return "retracted" if ok else "no such base fact"
        if word == "tick":
            report = self.kernel.tick()
            return f"tick {report.tick}: installed {len(report.installed)} fact(s)" + (
                " (partial)" if report.partial else ""
            )
        if word == "run":
            if rest and not rest.isdigit():
                raise RoflError(f"run {rest}: give a number of ticks, or nothing to run until quiet")
            ran = self.kernel.run(int(rest) if rest else None)
            end = "quiescent" if ran.quiescent else "partial" if ran.partial else "tick limit"
            return f"ran {ran.ticks} tick(s), {end}; now at tick {self.kernel.store.tick}"
        if word == "save":
            size = self.kernel.save(rest)
            return f"saved {rest} ({size} bytes)"
        if word == "restore":
            self.kernel = Kernel.restore(rest, budget=self.kernel.budget)
            return f"restored {rest} at tick {self.kernel.store.tick}"
        if word == "facts":
            facts = self.kernel.facts(rest or None)
            return "\n".join(format_fact(r, w[0], w[1:]) for r, w in facts) or "no facts"
        if line.endswith("."):
            clauses = parse_program(line, "<repl>")
            self.kernel.add_clauses(clauses, self.who, "<repl>")
            return "ok"
        raise RoflError(f"unknown command '{word}'; type help")

    def _ground(self, text: str) -> Literal:
        lit = parse_literal(text, "<repl>")
        if not (isinstance(lit.persp, str) and all(is_ground(a) for a in lit.args)):
            raise RoflError("give a ground fact (no variables)")
        return lit

    def _ask(self, text: str, everywhere: bool = False) -> str:
        """The answers to ``text`` (kernel.md §5): only those whose every positive literal reads a
        perspective visible to the asker (main), unless ``everywhere``; a line says how many more the
        other perspectives hold."""
        question = self.kernel.question(text)
        items, persps = _perspectives_named(question.items)
        answers = self.kernel.query(items, goals=question.goals)  # over a scan: only what it needs
        rows = answers.rows
        hidden = 0
        if not everywhere:
            seen = visible(self.kernel, ASKER)
            at = {v: i for i, v in enumerate(answers.variables)}
            if any(type(p) is str and p not in seen for p in persps):  # a literal names a hidden one
                kept: tuple = ()
            else:
                wanted = [at[p[1]] for p in persps if type(p) is tuple]
                kept = tuple(r for r in rows if all(r[i][0] in seen for i in wanted))
            hidden = len({self._project(r, question.variables, at) for r in rows}) - len(
                {self._project(r, question.variables, at) for r in kept}
            )
            rows = kept
        at = {v: i for i, v in enumerate(answers.variables)}
        rows = tuple(sorted({self._project(r, question.variables, at) for r in rows}, key=_row_key))
        if not rows:
            out = "no"
        elif not question.variables:
            out = "yes"
        else:
            out = "\n".join(", ".join(f"{v} = {format_term(t)}" for v, t in zip(question.variables, r)) for r in rows)
        if hidden:
            out += f"\n-- {hidden} more from perspectives {ASKER} does not see (imports, bridges): ?? {text}"
        return out + ("\n-- partial: the budget ran out" if answers.partial else "")

    @staticmethod
    def _project(row: tuple, variables: tuple, at: dict) -> tuple:
        return tuple(row[at[v]] for v in variables)

    def _why(self, text: str) -> str:
        lit = self._ground(text)
        node = self.kernel.why(lit.rel, lit.persp, lit.args)
        return "\n".join(node.lines()) if node else f"{text} does not hold"

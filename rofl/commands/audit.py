"""`rofl audit`: every non-empty audit relation (facts in perspective [audit]); exit 1 on findings.

The command line's side of the audit question (``rofl.questions.audit``): its options, the answer rendered
as text, JSON or a CI format, the exit code, and ``--write-baseline``'s file (the question writes nothing)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from ..exits import asked, fail, user_errors
from ..options import PUBLIC_KEY, adapter_options, ci_format_option, examples, path_option, program_options

if TYPE_CHECKING:  # pragma: no cover
    from ..questions.audit import AuditAnswer

EPILOG = examples(
    "rofl audit --facts facts/generated --rules examples/shop/layers.rofl",
    "rofl audit --facts facts/generated --rules examples/ci/rules.rofl --baseline examples/ci/baseline.json --format sarif > rofl.sarif",
    "rofl audit --facts facts/generated --public-key ci/rofl-scan.pub --write-baseline ci/baseline.json",
    exit_codes="Exit codes: 0 no finding at or above --fail-on (default error), 1 such findings, 2 user error, "
    "3 partial (the budget ran out).",
)


@click.command("audit", epilog=EPILOG)
@program_options
@path_option("--src", "With --facts: also report fact files stale against this source folder.", folder=True)
@click.option(
    "--reextract",
    is_flag=True,
    help="With --facts and --src: scan SRC again into a temporary folder and report every fact file that differs.",
)
@click.option(
    "--fail-on",
    "fail_on",
    type=click.Choice(["error", "warn", "info"]),
    default="error",
    show_default=True,
    help="Exit 1 when a finding of this severity or a more severe one is reported.",
)
@ci_format_option()
@path_option(
    "--baseline",
    "Ignore the findings this baseline file lists; report the new ones, and the listed ones that no longer hold as fixed.",
    dest="baseline_file",
)
@path_option(
    "--write-baseline",
    "Write the findings to this baseline file (with --baseline: only the still-known ones, so it shrinks).",
)
@path_option(
    "--depcruise-config",
    "Translate this dependency-cruiser config's rules (default: a .dependency-cruiser.{json,js,cjs,mjs} at the scan's source root).",
)
@click.option(
    "--allow-config-js",
    "allow_config_js",
    is_flag=True,
    help="Let Node evaluate a JS dependency-cruiser config (code from the repository); without it only an object literal is read.",
)
@PUBLIC_KEY
@adapter_options
@user_errors
def command(**params: Any) -> None:
    """Run boot's audits, the presets turned on and any [audit] rules; exit 1 on findings at --fail-on or above."""
    from ..formats import NAMES as FORMAT_NAMES
    from ..questions import baseline as baselines
    from ..questions.answer import answer_json
    from ..questions.audit import AuditOptions, audit
    from ..questions.jsonout import emit_json
    from ..rounds import draw

    options = AuditOptions.from_params(params)
    answer = asked(audit, options)
    draw(answer.run)
    write_baseline = params.get("write_baseline")
    if write_baseline is not None:
        if answer.partial:
            fail(
                "rofl audit: the budget ran out, so the findings are incomplete; no baseline written (raise --budget)",
                3,
            )
        written = baselines.write(write_baseline, list(answer.known_findings))
        click.echo(f"rofl audit: {written} finding{'s' if written != 1 else ''} written to {write_baseline}", err=True)
        if options.baseline_file is None:  # everything just written is known: nothing to report
            raise SystemExit(0)
    if options.output_format in FORMAT_NAMES:
        click.echo(render_format(options.output_format, answer, options.facts, options.src), nl=False)
    elif options.output_format == "json":
        emit_json(answer_json(answer))
    else:
        print_text(answer)
    raise SystemExit(answer.status())


def render_format(output_format: str, answer: AuditAnswer, facts: str | None, src: str | None) -> str:
    """The answer in one of the CI formats (SARIF, JUnit, Markdown, ...)."""
    from ..formats import Report, render, repository_paths

    baseline = answer.known is not None
    report = Report(
        command="audit",
        findings=answer.findings,
        known=answer.known_findings if baseline else (),
        fixed=answer.fixed or (),
        baseline=baseline,
        rules=answer.rules_run,
        paths=repository_paths([*answer.findings, *(answer.known_findings if baseline else ())], facts, src),
        fail_on=answer.fail_on,
        partial=answer.partial,
    )
    return render(output_format, report)


TEXT_ROWS = 200  # rows of one audit or rule the text output lists; --json lists them all


def _more(count: int) -> None:
    if count > TEXT_ROWS:
        click.echo(f"  ... and {count - TEXT_ROWS:,} more (--json lists them all)")


def print_text(answer: AuditAnswer) -> None:
    """Named rules grouped by rule (severity, message, file:line and the import); the other audits by
    relation, each with its count and at most ``TEXT_ROWS`` rows (a rule file can derive millions)."""
    found, reported, fixed, known = answer.audits, answer.findings, answer.fixed or (), answer.known
    spots = {f.fact: f.file + (f":{f.line}" if f.line else "") for f in reported if f.fact and f.file and not f.rule}
    named_facts = {f.fact for f in reported if f.rule}
    for rel in sorted(found):
        texts = [t for t in found[rel] if t not in named_facts]
        if not texts:
            continue
        click.echo(f"{rel}: {len(texts)}")
        for text in texts[:TEXT_ROWS]:
            click.echo(f"  {text}" + (f"  ({spots[text]})" if text in spots else ""))
        _more(len(texts))
    by_rule: dict[str, list] = {}
    for f in reported:
        if f.rule:
            by_rule.setdefault(f.rule, []).append(f)
    for rule, items in by_rule.items():
        click.echo(f"{items[0].severity} {rule}: {items[0].message}: {len(items)}")
        for f in items[:TEXT_ROWS]:
            at = f"{f.file}:{f.line}" if f.line else f.file
            click.echo(f"  {at}: imports {f.target}" if f.source != f.target else f"  {at}")
        _more(len(items))
    if known:
        click.echo(f"{known} known finding{'s' if known != 1 else ''} in the baseline not shown")
    for e in fixed:
        click.echo(f"fixed (no longer found; the baseline can drop it): {e['key'].replace(chr(9), ' ')}")
    if not found and not reported:
        click.echo("all audits are empty")

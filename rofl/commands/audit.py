"""`rofl audit`: every non-empty audit relation (facts in perspective [audit]); exit 1 on findings."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..adapting import adapter_options, rounds_ran_out, run_rounds
from ..exits import Exit, fail, user_errors, warn_partial
from ..formats import NAMES as FORMAT_NAMES
from ..formats import help_text
from ..jsonout import emit_json
from ..loading.kernel import build_kernel
from ..options import PUBLIC_KEY, examples, program_options
from ..questions.answer import answer_json

if TYPE_CHECKING:  # pragma: no cover
    from rofl.engine.kernel import Kernel

    from ..questions.audit import AuditAnswer, AuditOptions

FORMAT_HELP = help_text()
EPILOG = examples(
    "rofl audit --facts facts/generated --rules examples/shop/layers.rofl",
    "rofl audit --facts facts/generated --rules examples/ci/rules.rofl --baseline examples/ci/baseline.json --format sarif > rofl.sarif",
    "rofl audit --facts facts/generated --public-key ci/rofl-scan.pub --write-baseline ci/baseline.json",
    exit_codes="Exit codes: 0 no finding at or above --fail-on (default error), 1 such findings, 2 user error, "
    "3 partial (the budget ran out).",
)


@click.command("audit", epilog=EPILOG)
@program_options
@click.option(
    "--src",
    "src",
    type=click.Path(file_okay=False),
    default=None,
    help="With --facts: also report fact files stale against this source folder.",
)
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
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", *FORMAT_NAMES]),
    default=None,
    help=f"text (default); json: as --json; {FORMAT_HELP}.",
)
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Ignore the findings this baseline file lists; report the new ones, and the listed ones that no longer hold as fixed.",
)
@click.option(
    "--write-baseline",
    "write_baseline",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the findings to this baseline file (with --baseline: only the still-known ones, so it shrinks).",
)
@click.option(
    "--depcruise-config",
    "depcruise_config",
    type=click.Path(dir_okay=False),
    default=None,
    help="Translate this dependency-cruiser config's rules (default: a .dependency-cruiser.{json,js,cjs,mjs} at the scan's source root).",
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
def command(
    files: tuple,
    load_as: tuple,
    budget: int | None,
    as_json: bool,
    store: str | None,
    facts: str | None,
    rules: tuple,
    src: str | None,
    public_key: str | None = None,
    reextract: bool = False,
    allow: tuple = (),
    rounds: int | None = None,
    fail_on: str = "error",
    output_format: str | None = None,
    baseline_file: str | None = None,
    write_baseline: str | None = None,
    depcruise_config: str | None = None,
    allow_config_js: bool = False,
) -> None:
    """Run boot's audits, the presets turned on and any [audit] rules; exit 1 on findings at --fail-on or above."""
    from dataclasses import replace

    from .. import baseline as baselines
    from ..questions.audit import AuditOptions, audit

    if reextract and (src is None or facts is None):
        fail("rofl audit: --reextract needs --facts DIR and --src SRC (the scan and the sources it came from)")
    if src is not None and facts is None:
        fail("rofl audit: --src needs --facts DIR (the scan to compare)")
    if as_json and output_format not in (None, "json"):
        fail(f"rofl audit: --json and --format {output_format} disagree; give one of them")
    output_format = output_format or ("json" if as_json else "text")
    entries = baselines.read(baseline_file) if baseline_file is not None else None  # a bad baseline fails first
    options = AuditOptions(
        files=tuple(files),
        load_as=tuple(load_as),
        rules=tuple(rules),
        facts=facts,
        src=src,
        reextract=reextract,
        baseline=tuple(entries) if entries is not None else None,
    )
    reused = None
    if facts is not None and not store and not allow:
        reused = audit_reused(facts, files, load_as, rules, budget, src, depcruise_config, public_key, options)
    if reused is not None:
        kernel, answer = reused
        wants = None
    else:
        kernel = build_kernel(
            files, load_as, budget, store=store, facts=facts, rules=rules, use_cache=False, public_key=public_key
        )
        from ..loading.presets import load_presets, turned_on

        if facts is not None:
            for line in load_presets(kernel, facts, src, (*files, *rules)):
                click.echo(f"warning: {line}", err=True)
        elif turned_on(kernel):
            click.echo("warning: the presets (use, forbidden) judge a scan; give --facts DIR to run them", err=True)
        depcruise_names = load_depcruise(kernel, facts, src, depcruise_config, allow_config_js)
        wants = run_rounds(kernel, allow, rounds, (*files, *rules))  # a refusal names the FILE:LINE it is written at
        options = replace(
            options,
            depcruise_names=depcruise_names,
            wants=wants.as_json() if wants is not None else None,
            rounds_partial=bool(wants and wants.partial),
        )
        answer = audit(kernel, options)
    if write_baseline is not None:
        if answer.partial:
            fail(
                "rofl audit: the budget ran out, so the findings are incomplete; no baseline written (raise --budget)",
                3,
            )
        written = baselines.write(write_baseline, list(answer.known_findings))
        click.echo(f"rofl audit: {written} finding{'s' if written != 1 else ''} written to {write_baseline}", err=True)
        if entries is None:  # everything just written is known: nothing to report
            sys.exit(0)
    if output_format in FORMAT_NAMES:
        click.echo(render_format(output_format, answer, fail_on, facts, src), nl=False)
    elif output_format == "json":
        emit_json(answer_json(answer))
    else:
        print_text(answer)
    if warn_partial(kernel, "audit") | rounds_ran_out(wants):
        sys.exit(Exit.PARTIAL)  # an audit cut short is not clean, whatever it found so far
    sys.exit(1 if answer.failing(fail_on) else 0)


KERNEL_FREE = frozenset({"stale", "reextract"})  # findings the audit makes outside the kernel


def audit_reused(
    facts: str,
    files: tuple,
    load_as: tuple,
    rules: tuple,
    budget: int | None,
    src: str | None,
    depcruise_config: str | None,
    public_key: str | None,
    options: AuditOptions,
) -> tuple[Kernel, AuditAnswer] | None:
    """The audit over the scan's residue (``rofl.audit_store``) when it is the full audit: the folder
    verifies (and its signature, with ``public_key``), no preset, dependency-cruiser rule or adapter
    round is on, no rule the audits depend on reads the pure fact files, and the residue gives no
    finding (a finding is located and judged over the full load).  None otherwise: the caller loads
    every fact file."""
    from dataclasses import replace

    from rofl.engine.errors import RoflError

    from .. import audit_store
    from ..loading.kernel import CODE_BUDGET, who_name
    from ..loading.presets import turned_on
    from ..questions.audit import audit

    if depcruise_config is not None:
        return None
    found = audit_store.residue(Path(facts))
    if found is None:
        return None
    if public_key is not None:  # a scan that fails it loads as unverified: the full load reports it
        from ..loading.factdir import read_manifest
        from ..loading.signing import verify_folder

        try:
            if not verify_folder(Path(facts), read_manifest(Path(facts)), public_key).ok:
                return None
        except (RoflError, OSError):
            return None
    from .. import depcruise_config as dc

    if dc.find_config(src if src is not None else found.src) is not None:
        return None
    try:
        if any(who_name(w) == "scanner" for w, _ in load_as):
            return None  # refused by the full load, with its message
        kernel = audit_store.residue_kernel(found, rules, budget or CODE_BUDGET)
        sources = [(Path(f), None) for f in files] + [(Path(f), who_name(w)) for w, f in load_as]
        if sources:
            kernel.load_sources(sources, evaluate_now=False)
    except (RoflError, audit_store.Unsure):
        return None  # the full load says what is wrong, as it always did
    from rofl.adapters.wants import has_wants

    if turned_on(kernel) or has_wants(kernel) or not audit_store.covers(kernel, found):
        return None  # presets, adapter rounds or rules that read the scan's [code] facts: a full load
    judged = audit(kernel, replace(options, src=None, reextract=False))  # the kernel's findings alone first
    if judged.partial or any(f.audit not in KERNEL_FREE for f in (*judged.findings, *judged.known_findings)):
        return None
    return kernel, audit(kernel, options) if options.src is not None else judged


def render_format(output_format: str, answer: AuditAnswer, fail_on: str, facts: str | None, src: str | None) -> str:
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
        fail_on=fail_on,
        partial=answer.partial,
    )
    return render(output_format, report)


def load_depcruise(
    kernel, facts: str | None, src: str | None, config: str | None, allow_js: bool
) -> dict[str, tuple[str, str]]:
    """Translate a dependency-cruiser config (``--depcruise-config``, else one at the scan's source root)
    into rules over the scan and load them; dependency-cruiser's name and severity of each ``dc_N`` rule.
    What is not translated is one warning line per rule."""
    from .. import depcruise_config as dc
    from ..findings import code_rows
    from ..loading.factdir import read_manifest

    if facts is None:
        if config is not None:
            fail("rofl audit: --depcruise-config needs --facts DIR (the scan its rules judge)")
        return {}
    manifest = read_manifest(Path(facts))
    root = src if src is not None else manifest.get("src")
    path = Path(config) if config is not None else (dc.find_config(root) if isinstance(root, str) else None)
    if path is None:
        return {}
    if config is not None and not path.is_file():
        fail(f"{path}: no such dependency-cruiser config; give the file depcruise --config reads")
    value = dc.read_config(path, allow_js=allow_js)
    files = sorted(f for f in manifest.get("files", {}) if isinstance(f, str))
    translation = dc.translate(value, files, str(path))
    for line in translation.untranslated:
        click.echo(f"warning: {line}", err=True)
    packages = {str(p[0]) if isinstance(p, tuple) else str(p) for _, _, p in code_rows(kernel, "src_external", 3)}
    sources: list = [
        (path, None, translation.text + dc.package_paths(packages, dc.node_builtins())),
    ]
    if isinstance(root, str):
        from ..loading.packagefacts import package_facts

        listed = manifest.get("packages")
        made = package_facts(root, files, listed if isinstance(listed, dict) else {})
        if made.text:
            sources.append((Path(root) / "package.json", None, made.text))
    kernel.load_sources(sources, evaluate_now=False)
    return translation.names


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

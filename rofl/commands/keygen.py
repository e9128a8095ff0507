"""`rofl keygen --out PREFIX`: an Ed25519 key pair for signed scans (PREFIX.key 0600, PREFIX.pub)."""

from __future__ import annotations

import click

from ..exits import user_errors
from ..options import examples

EPILOG = examples(
    "rofl keygen --out ci/rofl-scan",
    "rofl scan . --out facts/generated --sign-key ROFL_SIGN_KEY",
    "rofl audit --facts facts/generated --public-key ci/rofl-scan.pub",
    exit_codes="Exit codes: 0 written, 2 user error (a file exists, no such folder).",
)


@click.command("keygen", epilog=EPILOG)
@click.option(
    "--out", "prefix", required=True, metavar="PREFIX", help="Write PREFIX.key (private, owner-only) and PREFIX.pub."
)
@user_errors
def command(prefix: str) -> None:
    """Write PREFIX.key (the private key in PEM, readable by its owner only; keep it secret, e.g. as a
    CI secret) and PREFIX.pub (the public key in PEM, to commit)."""
    from ..loading.signing import generate

    key_path, pub_path = generate(prefix)
    click.echo(f"wrote {key_path} (private, mode 0600) and {pub_path} (public)")

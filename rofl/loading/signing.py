"""Signed scans: the canonical content of a manifest, its Ed25519 signature file, keys, and the check.

The signature covers every fact file's path and digest (the preamble's and the entries file's too),
the extractor, resolver and grammar versions, and the source root's identity; since every fact file
is loaded only when its bytes match the digest, a valid signature vouches for every fact loaded as
the scanner's.  The private key comes from an environment variable as PEM text and is never printed,
logged or written anywhere; the signature lives in ``DIR/manifest.sig`` (written atomically).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rofl.engine.base.errors import RoflError
from rofl.engine.base.safe_write import UnsafePath, read_nofollow, read_regular, write_atomic

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

    from rofl.scanner.manifest import FactRecord, FileEntry, Manifest

SIG_NAME = "manifest.sig"
DOMAIN = b"rofl-scan-signature-1\n"  # so that a signature over anything else never verifies here
MAX_SIG_BYTES = 1 << 16


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of checking a scan's signature: ``ok``, or the reason it failed (one line)."""

    ok: bool
    reason: str


def _record(record: FactRecord | FileEntry | None) -> dict[str, str | None] | None:
    return None if record is None else {"facts": record.facts, "digest": record.digest}


def canonical_content(manifest: Manifest) -> bytes:
    """The bytes a scan's signature covers, in one canonical JSON encoding."""
    files = manifest.files
    grammars = manifest.grammar_versions
    content = {
        "format": manifest.format,
        "extractor_version": manifest.extractor_version,
        "resolver_version": manifest.resolver_version,
        "grammar_versions": None if grammars is None else dict(grammars),
        "src": manifest.src,
        "preamble": _record(manifest.preamble),
        "package_entries": _record(manifest.package_entries),
        "files": {path: _record(files[path]) for path in sorted(files)},
    }
    return DOMAIN + json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def private_key_from_env(env: str) -> Ed25519PrivateKey:
    """The Ed25519 private key whose PEM text is in environment variable ``env`` (never echoed)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    text = os.environ.get(env)
    if not text:
        raise RoflError(
            f"--sign-key: environment variable {env} is not set or empty; put the PEM text of `rofl keygen`'s .key file in it"
        )
    return _ed25519(
        lambda: load_pem_private_key(text.encode("utf-8"), password=None),
        Ed25519PrivateKey,
        f"--sign-key: environment variable {env} holds no unencrypted PEM private key; use the .key file `rofl keygen` writes",
        f"--sign-key: the key in {env} is not an Ed25519 key; make one with `rofl keygen`",
    )


def public_key_from_file(path: str | Path) -> Ed25519PublicKey:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    try:
        data = read_regular(path, MAX_SIG_BYTES)  # a PEM key is a few hundred bytes; a FIFO is refused
    except OSError as exc:
        raise RoflError(
            f"--public-key: {path}: cannot read ({exc.strerror}); give the .pub file `rofl keygen` wrote"
        ) from None
    return _ed25519(
        lambda: load_pem_public_key(data),
        Ed25519PublicKey,
        f"--public-key: {path}: not a PEM public key; give the .pub file `rofl keygen` wrote",
        f"--public-key: {path}: not an Ed25519 public key; make one with `rofl keygen`",
    )


def _ed25519(load: Callable[[], object], kind: type, not_pem: str, not_ed25519: str) -> Any:
    """The key ``load`` reads from PEM text, a ``kind`` (the caller's return type says which), refused in one
    line: with ``not_pem`` when the text holds no such key (a UnicodeError is a ValueError: text that is not
    UTF-8), with ``not_ed25519`` when it is a key of another kind."""
    try:
        key = load()
    except (ValueError, TypeError):
        raise RoflError(not_pem) from None
    if not isinstance(key, kind):
        raise RoflError(not_ed25519)
    return key


def _key_id(public_key: Ed25519PublicKey) -> str:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    raw = public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def sign_folder(root: Path, env: str) -> str:
    """Sign the manifest of the scan in ``root`` with the key in ``env``; return the key id."""
    from .factdir import read_manifest

    key = private_key_from_env(env)
    manifest = read_manifest(root)
    signature = key.sign(canonical_content(manifest))
    key_id = _key_id(key.public_key())
    body = {"algorithm": "ed25519", "key_id": key_id, "signature": base64.b64encode(signature).decode("ascii")}
    write_atomic(str(root / SIG_NAME), (json.dumps(body, sort_keys=True) + "\n").encode("ascii"))
    return key_id


def verify_folder(root: Path, manifest: Manifest, public_key_path: str | Path) -> Verdict:
    """Check ``root``'s signature against the public key in ``public_key_path``."""
    from cryptography.exceptions import InvalidSignature

    public_key = public_key_from_file(public_key_path)
    path = root / SIG_NAME
    try:
        try:
            data = read_nofollow(str(path), MAX_SIG_BYTES)
        except (FileNotFoundError, UnsafePath):
            data = None
        if data is None:  # absent, or a link, FIFO, device or huge file planted at the name
            return Verdict(False, f"{path}: no signature (the scan was not signed with --sign-key)")
        body = json.loads(data)
        signature = base64.b64decode(body["signature"], validate=True)
    except OSError as exc:
        return Verdict(False, f"{path}: cannot read the signature ({exc.strerror})")
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return Verdict(False, f"{path}: not a rofl signature file")
    if not isinstance(body, dict) or body.get("algorithm") != "ed25519":
        return Verdict(False, f"{path}: not an ed25519 rofl signature")
    if body.get("key_id") != _key_id(public_key):
        return Verdict(
            False, f"{path}: signed by another key (key id {str(body.get('key_id'))[:16]!s}), not by {public_key_path}"
        )
    try:
        public_key.verify(signature, canonical_content(manifest))
    except InvalidSignature:
        return Verdict(
            False, f"{path}: the signature does not match this manifest (edited, or taken from another scan)"
        )
    return Verdict(True, "")


def generate(prefix: str) -> tuple[Path, Path]:
    """Write PREFIX.key (private PEM, mode 0600) and PREFIX.pub (public PEM)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    public = key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    key_path, pub_path = Path(prefix + ".key"), Path(prefix + ".pub")
    for p in (key_path, pub_path):
        if p.exists() or p.is_symlink():
            raise RoflError(f"rofl keygen: {p} exists; choose another --out PREFIX or remove it")
    if not key_path.parent.is_dir():
        raise RoflError(f"rofl keygen: {key_path.parent} is not a folder; create it first")
    try:
        write_atomic(str(key_path), private, 0o600)
        try:
            write_atomic(str(pub_path), public, 0o644)
        except OSError:
            key_path.unlink(missing_ok=True)  # a private key without its public half is no use to anyone
            raise
    except OSError as exc:
        raise RoflError(
            f"rofl keygen: cannot write {exc.filename or key_path} ({exc.strerror}); choose another --out PREFIX"
        ) from None
    return key_path, pub_path


def drop_signature(out: str | Path) -> bool:
    """After an unsigned scan of ``out``: a signature of an earlier scan no longer matches its facts;
    drop it rather than leave a stale one.  True when there was one."""
    path = Path(out) / SIG_NAME
    existed = path.exists()
    path.unlink(missing_ok=True)
    return existed

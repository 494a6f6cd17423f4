"""Ed25519 keys for signing run seals: generate, load (file, environment variable), sign, verify.

The private key never enters the store: it is read from a file or an environment variable when a run is
sealed. The public key and its fingerprint are stored with the seal, but a stored key only proves the
seal is self-consistent; `auditor verify --pubkey KEY` proves it against a key the database writer never
had. Keys are PEM (PKCS#8 private, SubjectPublicKeyInfo public) as `auditor keys generate` writes them; a
public key may also be given as 64 hex digits (the raw key, as stored with a seal).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from auditor.errors import ConfigError

if TYPE_CHECKING:
    from auditor.config.models import AuditConfig

ALGORITHM = "ed25519"


def fingerprint(public_raw: bytes) -> str:
    """SHA-256 of the raw 32-byte public key, hex: reports show its first 16 digits."""
    return hashlib.sha256(public_raw).hexdigest()


def short(fp: str) -> str:
    return f"SHA256:{fp[:16]}"


@dataclass(frozen=True)
class Signer:
    """A loaded private key and where it came from (for messages; never the key itself)."""

    key: Ed25519PrivateKey
    origin: str

    @property
    def public_raw(self) -> bytes:
        return self.key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_raw)

    def sign(self, message: bytes) -> bytes:
        return self.key.sign(message)


def _private_from_text(data: bytes, origin: str) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(data.strip() + b"\n", password=None)
    except (ValueError, TypeError) as exc:
        raise ConfigError(
            f"{origin}: not an unencrypted PEM private key ({exc})",
            hint="create one with `auditor keys generate -o DIR`",
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(
            f"{origin}: not an Ed25519 key", hint="create one with `auditor keys generate -o DIR`"
        )
    return key


def load_signer(key_file: Path | None = None, key_env: str | None = None) -> Signer:
    """The signing key from a file, else from an environment variable holding the PEM text."""
    if key_file is not None:
        try:
            data = key_file.read_bytes()
        except OSError as exc:
            raise ConfigError(
                f"signing key {key_file}: cannot read it ({exc.strerror})",
                hint="point signing.key_file at the private key `auditor keys generate` wrote",
            ) from None
        return Signer(_private_from_text(data, str(key_file)), str(key_file))
    if key_env:
        value = os.environ.get(key_env)
        if not value:
            raise ConfigError(
                f"signing key: environment variable {key_env} is not set or empty",
                hint=f'export {key_env}="$(cat auditor-signing.key)", or remove the signing section',
            )
        return Signer(_private_from_text(value.encode(), f"${key_env}"), f"${key_env}")
    raise ConfigError("signing: neither key_file nor key_env is given", hint="set one of them")


def public_key_raw(text_or_path: str) -> bytes:
    """A public key given on the command line: a PEM file, PEM text, or 64 hex digits (raw key)."""
    value = text_or_path.strip()
    candidate = Path(value).expanduser()
    if len(value) < 4096 and "\n" not in value and candidate.is_file():
        value = candidate.read_text(encoding="utf-8", errors="replace").strip()
    if len(value) == 64:
        try:
            return bytes.fromhex(value)
        except ValueError:
            pass
    try:
        key = serialization.load_pem_public_key(value.encode() + b"\n")
    except (ValueError, TypeError):
        raise ConfigError(
            f"public key {text_or_path[:60]!r}: not a PEM public key file, PEM text or 64 hex digits",
            hint="give the .pub file `auditor keys generate` wrote",
        ) from None
    if not isinstance(key, Ed25519PublicKey):
        raise ConfigError(f"public key {text_or_path[:60]!r}: not an Ed25519 key")
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def signature_valid(public_raw: bytes, signature: bytes, message: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public_raw).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def generate_keypair(directory: Path, name: str = "auditor-signing") -> tuple[Path, Path, str]:
    """Write NAME.key (PKCS#8 PEM, mode 0600) and NAME.pub (PEM); refuse to overwrite a key."""
    directory.mkdir(parents=True, exist_ok=True)
    private_path, public_path = directory / f"{name}.key", directory / f"{name}.pub"
    for path in (private_path, public_path):
        if path.exists():
            raise ConfigError(
                f"{path} already exists",
                hint="choose another directory or --name; keys are never overwritten",
            )
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    public = key.public_key()
    public_path.write_bytes(
        public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return private_path, public_path, fingerprint(raw)


def signer_for(config: AuditConfig) -> Signer | None:
    """The signer a config asks for (None: seal unsigned). Loaded before collection, so a missing key
    stops the audit at once (exit 2) instead of producing an unsigned run nobody asked for."""
    s = config.signing
    if s is None or (s.key_file is None and s.key_env is None):
        return None
    return load_signer(config.resolve(s.key_file) if s.key_file is not None else None, s.key_env)


def pinned_key(pubkey: str | None, config: AuditConfig | None = None) -> bytes | None:
    """The key a verifier pins: --pubkey, else the config's signing.public_key, else none."""
    if pubkey:
        return public_key_raw(pubkey)
    if config is not None and config.signing is not None and config.signing.public_key is not None:
        return public_key_raw(str(config.resolve(config.signing.public_key)))
    return None

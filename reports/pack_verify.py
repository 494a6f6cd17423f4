"""`auditor verify PACK`: prove an evidence pack with nothing but the pack and a public key.

In order: the signature over manifest.json (against the pinned key when one is given), every file against
the manifest (a changed byte names its file), then, when all of that holds, the run is rebuilt in memory
and its findings re-derived from the captures (`reports.pack_rederive`): chain, seal, facts, findings and
the JSON and OSCAL reports must all come out as packed. No store is opened and nothing is fetched.
"""

from __future__ import annotations

import json
import stat
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from auditor.evidence.chain import sha256_hex
from auditor.evidence.signing import ALGORITHM, fingerprint, short, signature_valid
from reports.pack import MANIFEST, PACK_VERSION, SEAL_FILE, SIGNATURE, UNSIGNED, PackError
from reports.pack_rederive import Rederived, rederive

MAX_PACK_BYTES = 8 << 30  # a pack larger than this is refused rather than read into memory


@dataclass(frozen=True)
class PackMismatch:
    file: str
    detail: str

    def __str__(self) -> str:
        return f"{self.file}: {self.detail}"


@dataclass
class PackVerification:
    path: Path
    run_id: int | None = None
    chain_head: str | None = None
    files: int = 0
    signed: bool = False
    key_fingerprint: str | None = None
    pinned: bool = False
    mismatches: list[PackMismatch] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rederived: Rederived | None = None

    @property
    def ok(self) -> bool:
        return not self.mismatches and self.rederived is not None

    def bad(self, file: str, detail: str) -> None:
        self.mismatches.append(PackMismatch(file, detail))

    def signature_text(self) -> str:
        if not self.signed or self.key_fingerprint is None:
            return "UNSIGNED: nothing proves who made this pack"
        if self.pinned:
            return f"signed by the pinned key {short(self.key_fingerprint)}"
        return f"signed by key {short(self.key_fingerprint)} (not pinned: give --pubkey to prove who made it)"


def _member_parts(name: str, pack: Path) -> tuple[str, ...]:
    """A member's path, refused when it could escape (absolute, `..`)."""
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts:
        raise PackError(f"{pack}: member {name!r} is not a plain relative path", hint="this is not a pack")
    return path.parts


def _unwrap(files: dict[tuple[str, ...], bytes]) -> dict[str, bytes]:
    """Paths inside the pack: the one top directory every member shares (`auditor pack` writes one;
    a pack re-made with `tar czf x.tar.gz .` from inside it has none) is taken off."""
    tops = {parts[0] for parts in files}
    if len(tops) == 1 and all(len(parts) > 1 for parts in files) and (MANIFEST,) not in files:
        return {"/".join(parts[1:]): data for parts, data in files.items()}
    return {"/".join(parts): data for parts, data in files.items()}


def _once(parts: tuple[str, ...], files: dict[tuple[str, ...], bytes], pack: Path) -> None:
    """A member named twice is refused: the copy verified and the copy an unpacker keeps could differ."""
    if parts in files:
        raise PackError(f"{pack}: member {'/'.join(parts)!r} appears twice", hint="this is not a pack")


def _read_zip(path: Path) -> dict[tuple[str, ...], bytes]:
    """A .zip pack's regular files; links, devices and more than MAX_PACK_BYTES unpacked are refused."""
    files: dict[tuple[str, ...], bytes] = {}
    total = 0
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                parts = _member_parts(info.filename, path)
                if info.is_dir() or not parts:
                    continue
                kind = stat.S_IFMT(info.external_attr >> 16)  # 0: no unix type recorded (plain file)
                if kind and kind != stat.S_IFREG:
                    raise PackError(
                        f"{path}: member {info.filename!r} is not a regular file", hint="this is not a pack"
                    )
                total += info.file_size  # reading stops at the declared size, so this bounds memory
                if total > MAX_PACK_BYTES:
                    raise PackError(f"{path}: more than {MAX_PACK_BYTES >> 30} GiB unpacked")
                _once(parts, files, path)
                files[parts] = archive.read(info)
    except (OSError, EOFError, RuntimeError, zipfile.BadZipFile, ValueError) as exc:
        raise PackError(f"{path}: the archive is damaged ({exc})", hint="copy the pack again") from None
    return files


def _is_zip(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(4) in (b"PK\x03\x04", b"PK\x05\x06")
    except OSError as exc:
        raise PackError(
            f"{path}: not a readable pack archive ({exc.strerror or exc})",
            hint="give the .tar.gz or .zip `auditor pack` wrote",
        ) from None


def read_pack(path: Path) -> dict[str, bytes]:
    """Every file of a pack (the .tar.gz or .zip, or the directory it was unpacked into), by its path in
    the pack."""
    if path.is_dir():
        root = path
        if not (root / MANIFEST).is_file():
            inner = [d for d in root.iterdir() if (d / MANIFEST).is_file()]
            if len(inner) != 1:
                raise PackError(
                    f"{path}: no {MANIFEST} here",
                    hint="give the pack (.tar.gz or .zip) or its unpacked directory",
                )
            root = inner[0]
        return {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink()
        }
    if _is_zip(path):
        return _unwrap(_read_zip(path))
    try:
        tar = tarfile.open(path, "r:*")  # noqa: SIM115 - closed below; open errors are told apart
    except (OSError, tarfile.TarError) as exc:
        why = "not a .tar.gz, tar or .zip file" if isinstance(exc, tarfile.ReadError) else str(exc)
        raise PackError(
            f"{path}: not a readable pack archive ({why})",
            hint="give the .tar.gz or .zip `auditor pack` wrote",
        ) from None
    files: dict[tuple[str, ...], bytes] = {}
    total = 0
    with tar:
        try:
            for member in tar:
                parts = _member_parts(member.name, path)
                if member.isdir() or not parts:
                    continue
                if not member.isfile():
                    raise PackError(
                        f"{path}: member {member.name!r} is not a regular file", hint="this is not a pack"
                    )
                total += member.size
                if total > MAX_PACK_BYTES:
                    raise PackError(f"{path}: more than {MAX_PACK_BYTES >> 30} GiB unpacked")
                _once(parts, files, path)
                fh = tar.extractfile(member)
                files[parts] = fh.read() if fh is not None else b""
        except (OSError, EOFError, tarfile.TarError) as exc:
            raise PackError(f"{path}: the archive is damaged ({exc})", hint="copy the pack again") from None
    return _unwrap(files)


def check_signature(
    files: dict[str, bytes], manifest: dict[str, Any], pubkey: bytes | None, out: PackVerification
) -> bytes | None:
    """The pack's signer (raw public key) once its signature over manifest.json holds, else None."""
    declared = manifest.get("signature")
    raw = files.get(SIGNATURE)
    if raw is None:
        if declared != UNSIGNED:
            out.bad(SIGNATURE, "missing: manifest.json says the pack is signed")
        elif pubkey is not None:
            out.bad(
                SIGNATURE,
                "the pack is UNSIGNED, so it cannot be proven against the pinned key "
                f"{short(fingerprint(pubkey))}",
            )
        return None
    out.signed = True
    try:
        sig = json.loads(raw.decode("utf-8"))
        public = bytes.fromhex(sig["public_key"])
        signature = bytes.fromhex(sig["signature"])
        signed_sha, stated_fp, algorithm = str(sig["manifest_sha256"]), sig["fingerprint"], sig["algorithm"]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        out.bad(SIGNATURE, f"not a readable signature ({type(exc).__name__}: {exc})")
        return None
    fp = fingerprint(public)
    out.key_fingerprint = fp
    manifest_raw = files[MANIFEST]
    valid = signature_valid(public, signature, manifest_raw)
    if sha256_hex(manifest_raw) != signed_sha and not valid:
        out.bad(MANIFEST, "changed: its SHA-256 is not the one signature.json signed")
        return None
    if algorithm != ALGORITHM or stated_fp != fp or sha256_hex(manifest_raw) != signed_sha:
        out.bad(
            SIGNATURE, "its algorithm, fingerprint or manifest hash does not match its key and manifest.json"
        )
    if not valid:
        out.bad(SIGNATURE, "the signature does not match manifest.json and the public key")
        return None
    if not isinstance(declared, dict) or declared.get("fingerprint") != fp:
        out.bad(MANIFEST, f"names a signer other than the key of signature.json ({short(fp)})")
    if pubkey is not None:
        if public != pubkey:
            out.bad(
                SIGNATURE, f"signed by key {short(fp)}, not by the pinned key {short(fingerprint(pubkey))}"
            )
            return None
        out.pinned = True
    return public


def check_files(files: dict[str, bytes], manifest: dict[str, Any], out: PackVerification) -> None:
    listed = manifest.get("files")
    if not isinstance(listed, dict):
        out.bad(MANIFEST, "has no list of files")
        return
    for name, entry in sorted(listed.items()):
        data = files.get(name)
        if data is None:
            out.bad(name, "missing from the pack (manifest.json lists it)")
            continue
        expected = entry.get("sha256") if isinstance(entry, dict) else None
        actual = sha256_hex(data)
        if actual != expected:
            out.bad(name, f"changed: SHA-256 {actual[:16]}… is not {str(expected)[:16]}… in manifest.json")
    for name in sorted(set(files) - set(listed) - {MANIFEST, SIGNATURE}):
        out.bad(name, "not listed in manifest.json (added to the pack)")
    out.files = len(listed)


def _seal_signed(files: dict[str, bytes]) -> bool:
    seals = json.loads(files[SEAL_FILE].decode("utf-8"))
    return bool(seals and seals[-1].get("signature"))  # the latest seal proves the run


def verify_pack(
    path: Path, pubkey: bytes | None = None, *, rederive_findings: bool = True
) -> PackVerification:
    """Verify a pack; `pubkey` (raw Ed25519) pins the key the pack and the run's seal must be signed with."""
    out = PackVerification(path)
    files = read_pack(path)
    if MANIFEST not in files:
        out.bad(MANIFEST, "missing: this is not an evidence pack, or its manifest was removed")
        return out
    try:
        manifest = json.loads(files[MANIFEST].decode("utf-8"))
        if not isinstance(manifest, dict):
            raise ValueError("not a JSON object")
    except ValueError as exc:
        out.bad(MANIFEST, f"not readable ({exc})")
        check_signature(files, {}, pubkey, out)
        return out
    out.run_id, out.chain_head = manifest.get("run"), manifest.get("chain_head")
    signer = check_signature(files, manifest, pubkey, out)
    if any(m.file == MANIFEST for m in out.mismatches):
        out.notes.append("files not checked: manifest.json itself was changed since it was signed")
        return out
    if manifest.get("pack") != PACK_VERSION:
        out.bad(
            MANIFEST, f"unknown pack version {manifest.get('pack')!r} (this auditor reads {PACK_VERSION})"
        )
    check_files(files, manifest, out)
    if out.mismatches:
        out.notes.append("findings not re-derived: the pack's files do not match their signed manifest")
        return out
    if not rederive_findings:
        return out
    try:
        seal_signed = _seal_signed(files)
        seal_pin = (signer or pubkey) if seal_signed else None
        if not seal_signed:
            out.notes.append("the run's seal is unsigned: the pack's signature is the only one")
        result = rederive(files, seal_pin)
    except (KeyError, ValueError, TypeError) as exc:  # a well-formed manifest over malformed rows
        out.bad("run/", f"the packed rows cannot be read back ({type(exc).__name__}: {exc})")
        return out
    out.rederived = result
    out.notes += result.notes
    for d in result.differences:
        out.bad(d.file, d.detail)
    seal = result.seal
    if seal is not None:
        for m in seal.mismatches:
            where = f" capture #{m.seq} ({m.target}: {m.source})" if m.seq is not None else ""
            table = (
                f" [{m.table}{', row ' + m.row if m.row else ''}{', field ' + m.field if m.field else ''}]"
                if m.table
                else ""
            )
            out.bad(
                SEAL_FILE if m.what in ("seal", "signature") else "run/",
                f"{m.what}{where}{table}: {m.detail}",
            )
        if seal.chain_head and out.chain_head != seal.chain_head:
            out.bad(
                MANIFEST, f"chain head {str(out.chain_head)[:16]}… is not the run's {seal.chain_head[:16]}…"
            )
    return out

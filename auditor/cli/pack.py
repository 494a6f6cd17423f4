"""`auditor pack` (a run's signed evidence pack) and the pack side of `auditor verify PACK`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from auditor.cli.app import ConfigOpt, RunOpt, StoreOpt, app, resolve_run, store_engine
from auditor.cli.console import out
from auditor.cli.sealing import PubkeyOpt, pin_for
from auditor.errors import UsageError

if TYPE_CHECKING:
    from auditor.evidence.signing import Signer


def _signer(config: Path | None, signing_key: Path | None, key_env: str | None) -> Signer | None:
    """--signing-key FILE, else --signing-key-env NAME, else the config's `signing:`; None: unsigned."""
    from auditor.config.loader import load_config
    from auditor.evidence.signing import load_signer, signer_for

    if signing_key is not None:
        return load_signer(signing_key.expanduser(), None)
    if key_env:
        return load_signer(None, key_env)
    return signer_for(load_config(config)) if config is not None else None


@app.command("pack")
def pack(
    output: Annotated[
        Path,
        typer.Option("--output", "-o", help="directory to write the pack into, or its name (.zip, .tar.gz)"),
    ],
    run: RunOpt = None,
    config: ConfigOpt = None,
    store: StoreOpt = None,
    signing_key: Annotated[
        Path | None, typer.Option("--signing-key", help="sign with this Ed25519 private key (PEM)")
    ] = None,
    signing_key_env: Annotated[
        str | None,
        typer.Option("--signing-key-env", help="sign with the PEM text of this environment variable"),
    ] = None,
    pubkey: PubkeyOpt = None,
    archive: Annotated[
        str | None,
        typer.Option("--format", "-f", help="tar.gz or zip (default: from -o's name, else tar.gz)"),
    ] = None,
) -> None:
    """Write a run's evidence pack: reports, captures, rows and seal, a SHA-256 manifest, signed with the
    run's signing key (`signing:` of -c, or --signing-key). The run must verify first."""
    from auditor.evidence.signing import short
    from reports.pack import ARCHIVE_FORMATS, archive_format, build_pack

    if archive is not None and archive not in ARCHIVE_FORMATS:
        raise UsageError(
            f"--format {archive}: not a pack format", hint="give --format tar.gz or --format zip"
        )
    named = None if output.is_dir() else archive_format(output)
    if output.exists() and not output.is_dir() and named is None:
        raise UsageError(
            f"{output} exists and is not a directory", hint="name a directory, or a .zip or .tar.gz file"
        )
    if archive is not None and named is not None and archive != named:
        raise UsageError(f"{output}: the name says {named}, --format says {archive}", hint="drop --format")
    signer = _signer(config, signing_key, signing_key_env)
    engine = store_engine(config, store)
    run_id = resolve_run(engine, run)
    done = build_pack(engine, run_id, output, signer, pin_for(config, pubkey), fmt=archive)
    out.print(
        f"pack: {done.path}  (run {run_id}, {done.files} files, {done.captures} captures; run seal "
        f"{done.seal})",
        highlight=False,
        soft_wrap=True,
    )
    if signer is None:
        out.print(
            "[bold yellow]UNSIGNED pack[/]: nothing proves who made it; configure `signing:` or give "
            "--signing-key to sign it",
            highlight=False,
        )
        out.print(f"verify it with: auditor verify {done.path.name}", highlight=False, soft_wrap=True)
        return
    out.print(f"signed by key {short(signer.fingerprint)} ({signer.fingerprint})", highlight=False)
    out.print(
        f"verify it with: auditor verify {done.path.name} --pubkey "
        f"<the public key of {short(signer.fingerprint)}>",
        highlight=False,
        soft_wrap=True,
    )


def verify_pack_command(
    path: Path, pubkey: str | None, config: Path | None, *, run: str | None = None, store: str | None = None
) -> None:
    """Verify a pack with no store and no network; exit 1 naming every file that does not match."""
    from auditor.evidence.signing import pinned_key
    from reports.pack_verify import verify_pack

    if run is not None or store is not None:
        raise UsageError(
            f"{path}: a pack is verified on its own; --run and --store name a run in a store",
            hint="give either PACK or --run N, not both",
        )

    pin = pinned_key(pubkey, None)
    if pin is None and config is not None:
        from auditor.config.loader import load_config

        pin = pinned_key(None, load_config(config))
    if not path.exists():
        raise UsageError(
            f"{path}: no such pack", hint="give the .tar.gz or .zip `auditor pack` wrote, or its directory"
        )
    result = verify_pack(path, pin)
    name = escape(path.name)
    if result.ok and result.rederived is not None:
        r = result.rederived
        out.print(
            f"[green]pack {name} verified[/]: run {result.run_id}, {result.files} files match the manifest; "
            f"chain head {result.chain_head}; {r.rederived_captures} of {r.captures} captures re-derived "
            f"into {r.facts} facts and {r.findings} findings, the same as sealed and as in the reports",
            highlight=False,
            soft_wrap=True,
        )
    else:
        for m in result.mismatches:
            out.print(
                f"[bold red]pack {name} FAILED verification[/]: {escape(str(m))}",
                highlight=False,
                soft_wrap=True,
            )
    for note in result.notes:
        out.print(f"note: {escape(note)}", highlight=False, soft_wrap=True)
    style = "green" if result.pinned else "bold yellow"
    out.print(f"pack: [{style}]{escape(result.signature_text())}[/]", highlight=False, soft_wrap=True)
    if result.rederived is not None and result.rederived.seal is not None:
        out.print(
            f"run seal: {escape(result.rederived.seal.signature_text())}", highlight=False, soft_wrap=True
        )
    if not result.ok:
        raise typer.Exit(1)

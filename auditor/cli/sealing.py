"""The commands that prove a run: verify, report (marked verified only when verify passes), keys."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from auditor.cli.app import ConfigOpt, RunOpt, StoreOpt, app, resolve_run, store_engine
from auditor.cli.console import out
from auditor.errors import AuditorError

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from auditor.evidence.verify import Mismatch, VerifyResult

keys_app = typer.Typer(help="Ed25519 keys that sign run seals.", no_args_is_help=True)
app.add_typer(keys_app, name="keys")

PubkeyOpt = Annotated[
    str | None,
    typer.Option(
        "--pubkey",
        help="the public key the seal must be signed with (a .pub file, PEM text or 64 hex digits); "
        "default: the config's signing.public_key",
    ),
]


class UnverifiedRun(AuditorError):
    hint = "`auditor verify --run N` names every change; re-audit to get evidence that verifies"


def pin_for(config: Path | None, pubkey: str | None) -> bytes | None:
    from auditor.config.loader import load_config
    from auditor.evidence.signing import pinned_key

    return pinned_key(pubkey, load_config(config) if config is not None and not pubkey else None)


def verify_or_refuse(engine: Engine, run_id: int, pin: bytes | None, doing: str) -> VerifyResult:
    """Verify first; a run whose evidence, config or waivers do not match the seal is refused, and so is a
    run that is not sealed (still running, or interrupted: said so, with what it stored)."""
    from auditor.cli.runstate import run_state, unsealed_note
    from auditor.evidence.verify import verify_run

    note = unsealed_note(run_state(engine, run_id))
    if note:
        raise UnverifiedRun(
            f"{note}; {doing} refused until it is sealed", hint="a run proves nothing before its seal"
        )
    result = verify_run(engine, run_id, pin)
    if not result.ok:
        first = result.mismatches[0]
        more = f" (and {len(result.mismatches) - 1} more)" if len(result.mismatches) > 1 else ""
        raise UnverifiedRun(f"run {run_id} does not verify, {doing} refused: {describe(first)}{more}")
    return result


def describe(m: Mismatch) -> str:
    if m.seq is not None:
        where = f" capture #{m.seq} ({m.target}: {m.source})"
    else:
        parts = [
            p
            for p in (m.table, f"row {m.row}" if m.row else None, f"field {m.field}" if m.field else None)
            if p
        ]
        where = f" ({', '.join(parts)})" if parts else ""
    return f"{m.what}{where}: {m.detail}"


@app.command()
def verify(
    pack: Annotated[
        Path | None,
        typer.Argument(help="an evidence pack (`auditor pack`, or its unpacked directory): no store used"),
    ] = None,
    run: RunOpt = None,
    config: ConfigOpt = None,
    store: StoreOpt = None,
    pubkey: PubkeyOpt = None,
) -> None:
    """Recompute every capture hash, the chain, the seal document and its signature; name every change.
    A run that is not sealed does not verify; verify says whether it is running or interrupted.
    With PACK, the evidence pack is verified offline instead and its findings re-derived."""
    from auditor.cli.prune import verify_pruned
    from auditor.cli.runstate import run_state, unsealed_note
    from auditor.evidence.verify import verify_run

    if pack is not None:
        from auditor.cli.pack import verify_pack_command

        verify_pack_command(pack, pubkey, config, run=run, store=store)
        return

    engine = store_engine(config, store)
    if verify_pruned(engine, run, pin_for(config, pubkey)):  # a pruned run: its tombstone proves its seal
        return
    run_id = resolve_run(engine, run)
    note = unsealed_note(run_state(engine, run_id))
    if note:
        out.print(f"[bold red]not sealed[/]: {escape(note)}", highlight=False, soft_wrap=True)
    result = verify_run(engine, run_id, pin_for(config, pubkey))
    if result.ok:
        out.print(
            f"[green]run {run_id} verified[/]: {result.captures_checked} captures, "
            f"chain head {result.chain_head}; seal {result.signature_text()}",
            highlight=False,
            soft_wrap=True,
        )
        return
    for m in result.mismatches:
        if note and m.what == "chain head" and "never sealed" in m.detail:
            continue  # said above, better
        out.print(
            f"[bold red]run {run_id} FAILED verification[/]: {escape(describe(m))}",
            highlight=False,
            soft_wrap=True,
        )
    seal = "none (the run is not sealed)" if note else result.signature_text()
    out.print(f"seal: {seal}", highlight=False, soft_wrap=True)
    raise typer.Exit(1)


def report_settings(
    config: Path | None, formats: list[str] | None, output: Path | None
) -> tuple[list[str], Path]:
    """-f/-o when given; else the config's reports: and output: (relative to the config's directory, as
    `audit` writes them); without a config, pdf in ./audit-output."""
    if config is None:
        return formats or ["pdf"], output or Path("audit-output")
    from auditor.config.loader import load_config

    cfg = load_config(config)
    return formats or list(cfg.reports), output or cfg.resolve(cfg.output)


@app.command()
def report(
    run: RunOpt = None,
    report_format: Annotated[
        list[str] | None,
        typer.Option(
            "--format", "-f", help="pdf, json, csv, junit, ... (default: the config's reports:, else pdf)"
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="report directory (default: the config's output:, else audit-output)"
        ),
    ] = None,
    config: ConfigOpt = None,
    store: StoreOpt = None,
    pubkey: PubkeyOpt = None,
) -> None:
    """Render a stored run's reports. They say VERIFIED only when `verify` passes (against the pinned
    key, when one is given); otherwise they are still written, marked NOT VERIFIED, and the exit code is 1."""
    from auditor.cli.runstate import run_state, unsealed_note
    from auditor.evidence.verify import verify_run
    from reports.render import render_reports

    if report_format:
        from auditor.cli.catalogue import refuse_unknown_formats

        refuse_unknown_formats(report_format)
    engine = store_engine(config, store)
    run_id = resolve_run(engine, run)
    pin = pin_for(config, pubkey)
    formats, folder = report_settings(config, report_format, output)
    note = unsealed_note(run_state(engine, run_id))
    if note:
        out.print(f"[bold red]not sealed[/]: {escape(note)}", highlight=False, soft_wrap=True)
    result = verify_run(engine, run_id, pin)
    try:
        paths = render_reports(engine, run_id, formats, folder, pin, result)
    except (KeyError, ValueError, TypeError) as exc:
        if result.ok:
            raise
        paths = []  # forged rows the report cannot even read; verify's finding below says which
        out.print(
            f"[bold red]cannot render run {run_id}[/]: {escape(repr(exc))}", highlight=False, soft_wrap=True
        )
    from auditor.cli.console import is_quiet

    for path in [] if is_quiet() else paths:
        out.print(f"report: {path}", highlight=False, soft_wrap=True)
    if not result.ok:
        out.print(
            f"[bold red]run {run_id} NOT VERIFIED[/]: {escape(describe(result.mismatches[0]))}; "
            "the reports are marked NOT VERIFIED (`auditor verify` names every change)",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(1)


@keys_app.command("generate")
def keys_generate(
    output: Annotated[Path, typer.Option("--output", "-o", help="directory for the key pair")] = Path("."),
    name: Annotated[str, typer.Option("--name", help="file name stem")] = "auditor-signing",
) -> None:
    """Create an Ed25519 key pair: NAME.key (private, mode 0600; keep it off the database host), NAME.pub."""
    from auditor.evidence.signing import generate_keypair, short

    private, public, fp = generate_keypair(output, name)
    out.print(f"private key: {private}  (config: signing.key_file, or its PEM text in signing.key_env)")
    out.print(f"public key:  {public}  (give it to auditors: `auditor verify --pubkey {public.name}`)")
    out.print(f"fingerprint: {short(fp)}  ({fp})", highlight=False, soft_wrap=True)

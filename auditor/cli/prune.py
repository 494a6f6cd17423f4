"""`auditor runs prune` (retention) and `auditor runs pruned` (the tombstones it left); `verify` on a pruned
run goes through `verify_pruned` here. The work is in auditor/ops/retention.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from auditor.cli.app import ConfigOpt, StoreOpt, store_engine
from auditor.cli.commands import runs_app
from auditor.cli.console import out

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from auditor.evidence.signing import Signer


def _signer(config: Path | None, signing_key: Path | None) -> Signer | None:
    """--signing-key, else the config's signing key (the one its seals are signed with), else unsigned."""
    from auditor.evidence.signing import load_signer, signer_for

    if signing_key is not None:
        return load_signer(signing_key.resolve())
    if config is not None:
        from auditor.config.loader import load_config

        return signer_for(load_config(config))
    return None


@runs_app.command("prune")
def runs_prune(
    keep_days: Annotated[
        int, typer.Option("--keep-days", min=0, help="prune sealed runs sealed more than N days ago")
    ],
    keep_last: Annotated[
        int,
        typer.Option(
            "--keep-last", min=1, help="keep the newest N sealed runs of each scope, whatever their age"
        ),
    ] = 1,
    config: ConfigOpt = None,
    store: StoreOpt = None,
    scope: Annotated[str | None, typer.Option("--scope", help="only runs of this scope")] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="say what would be pruned; change nothing")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object, for scripts")] = False,
    signing_key: Annotated[
        Path | None,
        typer.Option(
            "--signing-key", help="sign the tombstones with this Ed25519 key (default: the config's)"
        ),
    ] = None,
) -> None:
    """Remove whole runs past retention as one recorded, signed operation: each leaves a tombstone with its
    seal (`auditor verify --run N` still proves it), never part of a run, never a running one."""
    from auditor.evidence.signing import short
    from auditor.ops.retention import Policy, prune
    from auditor.store.writer import operator_name

    policy = Policy(keep_days, keep_last, scope)
    signer = None if dry_run else _signer(config, signing_key)
    engine = store_engine(config, store)
    result = prune(engine, policy, operator=operator_name(), signer=signer, dry_run=dry_run)
    if as_json:
        print(
            json.dumps(
                {
                    "dry_run": dry_run,
                    "pruning_id": result.pruning_id,
                    "policy": policy.json(),
                    "signer": result.key_fingerprint,
                    "pruned": [d.json() for d in result.pruned],
                    "kept": [d.json() for d in result.kept],
                    "tombstones": [
                        {"run_id": t["run_id"], "digest": t["digest"], "seal_digest": t["seal_digest"]}
                        for t in result.tombstones
                    ],
                }
            )
        )
        return
    verb = "would prune" if dry_run else "pruned"
    for d in result.pruned:
        sealed = f"{d.sealed_at:%Y-%m-%d %H:%M}" if d.sealed_at else "-"
        out.print(
            f"{verb} run {d.run_id}\tscope {escape(d.scope)!r}\t{d.status}\tsealed {sealed}",
            highlight=False,
            soft_wrap=True,
        )
    signed = f"signed by key {short(result.key_fingerprint)}" if result.key_fingerprint else "unsigned"
    if dry_run:
        out.print(
            f"dry run: {len(result.pruned)} run(s) would be pruned, {len(result.kept)} kept", highlight=False
        )
    elif result.pruning_id is None:
        out.print(f"nothing to prune: {len(result.kept)} run(s) kept", highlight=False)
    else:
        out.print(
            f"pruning #{result.pruning_id}: {len(result.pruned)} run(s) pruned, each leaving a tombstone "
            f"({signed}); {len(result.kept)} kept",
            highlight=False,
            soft_wrap=True,
        )


@runs_app.command("pruned")
def runs_pruned(
    config: ConfigOpt = None,
    store: StoreOpt = None,
    limit: int = 50,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON array, for scripts")] = False,
) -> None:
    """The tombstones of pruned runs: when and by whom each was pruned, and the seal it keeps."""
    from auditor.evidence.signing import short
    from auditor.ops.retention import list_tombstones

    engine = store_engine(config, store)
    rows = list_tombstones(engine, limit)
    if as_json:
        print(
            json.dumps(
                [
                    {
                        "run_id": r.run_id,
                        "scope": r.scope,
                        "status": r.status,
                        "sealed_at": r.sealed_at.isoformat(),
                        "pruned_at": r.pruned_at.isoformat(),
                        "pruned_by": r.pruned_by,
                        "pruning_id": r.pruning_id,
                        "chain_head": r.chain_head,
                        "seal_digest": r.seal_digest,
                        "signer": r.key_fingerprint,
                    }
                    for r in rows
                ]
            )
        )
        return
    if not rows:
        out.print("no run has been pruned from this store")
        return
    for r in rows:
        signed = f"signed {short(r.key_fingerprint)}" if r.key_fingerprint else "unsigned"
        out.print(
            f"run {r.run_id}\tpruned {r.pruned_at:%Y-%m-%d %H:%M} by {escape(r.pruned_by)}"
            f"\t{r.status}, sealed {r.sealed_at:%Y-%m-%d %H:%M}\tchain head {r.chain_head[:16]}\t{signed}",
            highlight=False,
            soft_wrap=True,
        )


def verify_pruned(engine: Engine, run: str | None, pin: bytes | None) -> bool:
    """For `auditor verify --run N`: False when N (a run id) is not a pruned run; else print what its
    tombstone proves and return True (exit 0), or print every problem and exit 1."""
    from auditor.cli.runref import parse_run_ref
    from auditor.ops.tombstones import verify_tombstone

    run_id = parse_run_ref(run).run_id if run is not None else None
    check = verify_tombstone(engine, run_id, pin) if run_id is not None else None
    if check is None or run_id is None:
        return False
    if check.ok:
        out.print(f"[green]pruned[/]: {escape(check.summary())}", highlight=False, soft_wrap=True)
        return True
    for problem in check.problems:
        out.print(
            f"[bold red]run {run_id} (pruned) FAILED verification[/]: {escape(problem)}",
            highlight=False,
            soft_wrap=True,
        )
    out.print(escape(check.summary()), highlight=False, soft_wrap=True)
    raise typer.Exit(1)

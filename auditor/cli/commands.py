"""The inspection commands: checks, runs, facts, check, db (verify, report and keys: sealing.py)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Annotated

import typer
from rich.table import Table

from auditor.cli.app import ConfigOpt, RunOpt, StoreOpt, app, resolve_run, store_engine
from auditor.cli.console import out
from auditor.cli.sealing import PubkeyOpt
from auditor.enums import FactKind, Status
from auditor.errors import UsageError

checks_app = typer.Typer(help="The check catalogue.", no_args_is_help=True)
runs_app = typer.Typer(help="Stored audit runs.", no_args_is_help=True)
db_app = typer.Typer(help="The store's schema.", no_args_is_help=True)
app.add_typer(checks_app, name="checks")
app.add_typer(runs_app, name="runs")
app.add_typer(db_app, name="db")


@checks_app.command("list")
def checks_list(
    as_json: Annotated[bool, typer.Option("--json", help="one JSON array on stdout, for scripts")] = False,
    controls: Annotated[
        bool, typer.Option("--controls", help="the framework requirements each check evidences")
    ] = False,
) -> None:
    """Every registered check, built-in or plugin, with its tier and severity."""
    from auditor.cli.catalogue import check_catalogue
    from auditor.cli.controls import controls_json, controls_text

    metas = check_catalogue()
    if as_json:
        print(
            json.dumps([{**m, **({"controls": controls_json(m["id"])} if controls else {})} for m in metas])
        )
        return
    table = Table(title="Checks")
    for col in ("id", "tier", "severity", "title", *(["controls"] if controls else [])):
        table.add_column(col, overflow="fold")
    for m in metas:
        extra = [controls_text(m["id"])] if controls else []
        table.add_row(m["id"], m["tier"], m["severity"], m["title"], *extra)
    out.print(table)


@runs_app.command("list")
def runs_list(
    config: ConfigOpt = None,
    store: StoreOpt = None,
    limit: int = 20,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON array, for scripts")] = False,
) -> None:
    """The latest runs with their status, chain head and who signed the seal ("unsigned" if nobody). A run
    whose process died is shown as interrupted, with the counts of what it stored."""
    from auditor.cli.runstate import run_states, unsealed_note
    from auditor.evidence.signing import short
    from auditor.store.reader import list_runs, seal_signers

    engine = store_engine(config, store)
    runs = list_runs(engine, limit)
    states = run_states(engine, runs)
    signers = seal_signers(engine, [r.id for r in runs])
    if as_json:
        print(json.dumps([{**s.json(), "signer": signers.get(s.row.id)} for s in states]))
        return
    table = Table(title="Runs")
    for col in ("id", "status", "started (UTC)", "captures", "facts", "findings", "chain head", "seal"):
        table.add_column(col)
    notes = []
    for s in states:
        r = s.row
        seal = "-" if r.sealed_at is None else "no seal record" if r.id not in signers else "unsigned"
        if signers.get(r.id):
            seal = f"signed {short(signers[r.id] or '')}"
        table.add_row(
            str(r.id),
            s.status,
            r.started_at.strftime("%Y-%m-%d %H:%M:%S"),
            str(s.captures),
            str(s.facts),
            str(s.findings),
            (r.chain_head or "-")[:16],
            seal,
        )
        note = unsealed_note(s)
        if note:
            notes.append(note)
    out.print(table)
    for note in notes:
        out.print(note, highlight=False, soft_wrap=True)
    from auditor.ops.retention import count_tombstones

    if pruned := count_tombstones(engine):  # pruned runs are not listed; their tombstones are
        out.print(f"{pruned} run(s) pruned; `auditor runs pruned` lists their tombstones", highlight=False)


@runs_app.command("show")
def runs_show(
    run: RunOpt = None,
    config: ConfigOpt = None,
    store: StoreOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object, for scripts")] = False,
) -> None:
    """One run: its status as shown (a dead writer's run is interrupted), counts of what is stored, who
    writes or wrote it (host, pid, last heartbeat) and how often it was resumed."""
    from auditor.cli.runstate import run_state, unsealed_note

    engine = store_engine(config, store)
    state = run_state(engine, resolve_run(engine, run))
    data = state.json()
    if as_json:
        print(json.dumps(data))
        return
    for key, value in data.items():
        if value is not None:
            out.print(f"{key}: {value}", highlight=False, soft_wrap=True)
    note = unsealed_note(state)
    if note:
        out.print(note, highlight=False, soft_wrap=True)


@app.command()
def facts(
    kind: Annotated[str, typer.Option("--kind", "-k", help="fact kind, e.g. vrf, route, k8s_network_policy")],
    run: RunOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines for scripts")] = False,
    config: ConfigOpt = None,
    store: StoreOpt = None,
) -> None:
    """The normalized facts of a run, for auditors and scripts."""
    from auditor.store.reader import RunReader

    try:
        fact_kind = FactKind(kind)
    except ValueError:
        raise UsageError(
            f"unknown fact kind {kind!r}", hint=f"one of: {', '.join(k.value for k in FactKind)}"
        ) from None
    engine = store_engine(config, store)
    rows = RunReader(engine, resolve_run(engine, run)).raw_facts(fact_kind)
    if as_json:
        for r in rows:
            print(
                json.dumps(
                    {
                        "id": r.id,
                        "kind": r.kind,
                        "target": r.target,
                        "subject": r.subject,
                        "evidence": {"seq": r.seq, "sha256": r.content_sha256},
                        "data": r.data,
                    },
                    sort_keys=True,
                )
            )
        return
    table = Table(title=f"{fact_kind.value} facts ({len(rows)})")
    table.add_column("id")
    table.add_column("subject", overflow="fold")
    table.add_column("data", overflow="fold")
    for r in rows:
        table.add_row(str(r.id), r.subject, json.dumps(r.data, sort_keys=True))
    out.print(table)


@app.command("check")
def check_again(
    run: RunOpt = None,
    check_id: Annotated[list[str] | None, typer.Option("--check", help="only these check ids")] = None,
    show_all: Annotated[bool, typer.Option("--all", help="show PASS findings too")] = False,
    config: ConfigOpt = None,
    store: StoreOpt = None,
    pubkey: PubkeyOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="one JSON object per finding and line, full texts, for scripts")
    ] = False,
) -> None:
    """Re-run checks on a stored run's facts (nothing is written); same facts, same findings. A run that
    does not verify (its facts, stored intent or waivers changed since the seal) is refused (exit 2)."""
    from dataclasses import asdict

    from auditor.cli.console import is_quiet
    from auditor.cli.render import print_findings, print_waiver_notes
    from auditor.cli.sealing import pin_for, verify_or_refuse
    from auditor.config.loader import load_config
    from auditor.pipeline.checking import evaluate_run, exit_code, to_rows
    from auditor.pipeline.waivers import apply_waivers, run_date, waivers_for
    from checks.base import check_registry

    engine = store_engine(config, store)
    run_id = resolve_run(engine, run)
    verify_or_refuse(engine, run_id, pin_for(config, pubkey), "re-checking")
    registry = check_registry()
    unknown = [cid for cid in check_id or [] if cid not in registry]
    if unknown:
        raise UsageError(
            f"--check: no check named {', '.join(map(repr, unknown))}",
            hint="`auditor checks list` names every installed check",
        )
    verdicts = evaluate_run(
        engine, run_id, [c for _, c in registry.items()], set(check_id) if check_id else None
    )
    waivers = waivers_for(engine, run_id, load_config(config) if config else None)
    waived = apply_waivers(to_rows(verdicts), waivers, run_date(engine, run_id))
    code = exit_code(waived.exit_statuses(), True)
    if as_json:
        for row in waived.rows:
            if show_all or row.status not in (Status.PASS, Status.NOT_APPLICABLE):
                print(json.dumps({"run": run_id, **asdict(row)}, sort_keys=True))
    elif is_quiet():
        counts = Counter(row.status for row in waived.rows)
        text = ", ".join(f"{counts.get(s, 0)} {s.value}" for s in Status)
        out.print(f"run {run_id} re-checked: {text}", highlight=False, soft_wrap=True)
    else:
        where = f"`auditor check --run {run_id} --json`"
        print_findings(waived.rows, only_problems=not show_all, where=where)
        print_waiver_notes(waived.notes)
    raise typer.Exit(code)


@db_app.command("upgrade")
def db_upgrade(config: ConfigOpt = None, store: StoreOpt = None) -> None:
    """Create or migrate the store's schema to the current version."""
    from auditor.store.engine import current_revision

    engine = store_engine(config, store, migrate=True, create=True)
    out.print(f"store at revision {current_revision(engine)}")


__all__ = ["Status"]

"""The store's write guards (triggers), installed by migration 0003 and re-installed by any later migration
that recreates a guarded table (SQLite batch mode copies a table and loses its triggers).

What they enforce, in the database itself so that raw SQL meets them too:
- evidence rows (captures, facts, findings, problems) are insert-only, and only into a run still running;
- a target's identity is fixed at insert; its outcome (status, reason, notes, finish time) may be written
  while its run is running; targets are never deleted;
- a run row is inserted as `running`, unsealed; while running only its progress fields change; it moves
  from `running` to a final status together with its seal, and is frozen from then on; runs are never
  deleted;
- resume (revision 0004, `auditor audit --resume`): a run sealed `interrupted` may go back to `running`,
  unsealed, only by counting one more resume (`resumes` + 1) and only when the seal of its interruption is
  stored; every other way out of a final status is refused, and `resumes` never changes otherwise;
- a seal record is inserted once per sealing (key: run and its `resumes`), for a sealed run, and never
  changed;
- retention (revision 0005, `auditor runs prune`): a run's rows (the run, its targets, evidence and seals)
  may be deleted only once the run has a tombstone, and a tombstone is inserted only for a sealed run in a
  final status that still exists; tombstones and prunings are insert-only. A run is pruned whole or not at
  all: on PostgreSQL a deferred check refuses to commit a tombstone whose run still exists (and its rows
  cannot outlive the run row: their foreign keys); on SQLite, which has no deferred triggers, a run's rows
  may be deleted only once its run row is gone, which the prune does first with foreign keys deferred to
  the commit, so a row left behind fails the commit (connections with foreign keys on, as the auditor's).

No upsert form gets around them. On SQLite, `INSERT OR REPLACE`/`REPLACE INTO` delete the conflicting row
without firing delete triggers (unless recursive_triggers is on), so every guarded table has a BEFORE
INSERT trigger that refuses a row whose key already exists; `INSERT ... ON CONFLICT DO UPDATE` meets the
same insert trigger first. On PostgreSQL, ON CONFLICT DO UPDATE and MERGE fire the UPDATE triggers, rows
inserted into a run are checked once per statement (bulk inserts stay fast), and TRUNCATE has its own
statement trigger on every table.

The triggers stop accidents and anyone without schema rights. Whoever owns the database can drop them;
`auditor verify` (the signed seal) is what catches that.
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import inspect

EVIDENCE = ("captures", "facts", "findings", "problems")
GUARDED = ("runs", "targets", *EVIDENCE, "seals")
RETENTION = ("prunings", "tombstones")

# Unique keys besides the primary key that a REPLACE could collide with.
_OTHER_KEYS = {"captures": ("run_id", "seq"), "targets": ("run_id", "kind", "name")}
# Set at insert and never changed afterwards.
_TARGET_FROZEN = ("id", "run_id", "kind", "name", "platform", "tier", "role", "started_at")
_RUN_FROZEN = ("id", "started_at", "scope", "tool_version", "operator", "config_sha256", "config")
_FINAL = ("complete", "partial", "failed", "interrupted")

# The 0001/0002 trigger names, all replaced here.
_LEGACY_SQLITE = (
    *(f"{t}_no_{a}" for t in EVIDENCE for a in ("update", "delete")),
    "runs_sealed_no_update",
    "runs_sealed_no_delete",
)


def _dialect() -> str:
    return str(op.get_context().dialect.name)


def install(*, resumable: bool = True, prunable: bool = True) -> None:
    """Create every guard (drops any earlier version first, so it is safe to call again).

    `resumable=False` installs them as revision 0003 had them (no `resumes` column yet); `prunable=False`
    as before revision 0005 (no tombstones table: runs are never deleted)."""
    remove()
    if _dialect() == "postgresql":
        _install_postgresql(resumable, prunable)
    else:
        _install_sqlite(resumable, prunable)


def _has_table(name: str) -> bool:
    return bool(inspect(op.get_bind()).has_table(name))


def remove() -> None:
    if _dialect() == "postgresql":
        for table in (*GUARDED, *(t for t in RETENTION if _has_table(t))):
            for trig in (
                "append_only",
                "no_truncate",
                "insert_guard",
                "update_guard",
                "no_delete",
                "sealed",
                "whole_run",
            ):
                op.execute(f"DROP TRIGGER IF EXISTS {table}_{trig} ON {table}")
        for fn in (
            "auditor_append_only",
            "auditor_sealed_run",
            "auditor_no_truncate",
            "auditor_no_delete",
            "auditor_insert_guard",
            "auditor_rows_guard",
            "auditor_runs_update",
            "auditor_targets_update",
            "auditor_delete_guard",
            "auditor_runs_delete_guard",
            "auditor_tombstone_guard",
            "auditor_tombstone_whole",
        ):
            op.execute(f"DROP FUNCTION IF EXISTS {fn}()")
        return
    for name in _LEGACY_SQLITE:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    for table in (*GUARDED, *RETENTION):
        for trig in ("insert_guard", "no_update", "no_delete", "update_guard", "sealed_no_update"):
            op.execute(f"DROP TRIGGER IF EXISTS {table}_{trig}")


# --- SQLite -------------------------------------------------------------------------------------------


def _raise(message: str) -> str:
    return f"SELECT RAISE(ABORT, '{message}');"


def _changed_sqlite(cols: tuple[str, ...]) -> str:
    return " OR ".join(f"NEW.{c} IS NOT OLD.{c}" for c in cols)


def _exists_sqlite(table: str) -> str:
    clauses = [f"EXISTS (SELECT 1 FROM {table} WHERE id = NEW.id)"]
    if table in _OTHER_KEYS:
        cond = " AND ".join(f"{c} = NEW.{c}" for c in _OTHER_KEYS[table])
        clauses.append(f"EXISTS (SELECT 1 FROM {table} WHERE {cond})")
    return " OR ".join(clauses)


def _resume_sqlite() -> str:
    """A sealed interrupted run goes back to running, unsealed, counting one more resume; its seal stays."""
    return (
        "(OLD.status = 'interrupted' AND OLD.sealed_at IS NOT NULL AND NEW.status = 'running' "
        "AND NEW.sealed_at IS NULL AND NEW.chain_head IS NULL AND NEW.resumes = OLD.resumes + 1 "
        "AND EXISTS (SELECT 1 FROM seals WHERE run_id = OLD.id AND resume = OLD.resumes))"
    )


def _unpruned_sqlite(prunable: bool, run_id: str = "OLD.run_id") -> str:
    """The WHEN clause of a delete guard: always refused, or (0005) refused unless the run has a tombstone,
    and for a run's rows also while the run row is still there. A prune deletes the run row first, with
    foreign keys deferred to the commit (PRAGMA defer_foreign_keys), then its rows; the commit fails if any
    row of it is left, so on SQLite too a run goes whole or not at all."""
    if not prunable:
        return ""
    clause = f"WHEN NOT EXISTS (SELECT 1 FROM tombstones WHERE run_id = {run_id}) "
    if run_id != "OLD.id":
        clause += f"OR EXISTS (SELECT 1 FROM runs WHERE id = {run_id}) "
    return clause


def _install_sqlite(resumable: bool = True, prunable: bool = True) -> None:
    running = "(SELECT sealed_at IS NULL AND status = 'running' FROM runs WHERE id = NEW.run_id)"
    final = ", ".join(f"'{s}'" for s in _FINAL)
    for table in ("targets", *EVIDENCE):
        op.execute(
            f"CREATE TRIGGER {table}_insert_guard BEFORE INSERT ON {table} "
            f"WHEN ({_exists_sqlite(table)}) OR {running} IS NOT 1 "
            f"BEGIN {_raise(f'auditor: {table} row refused (existing key, or its run is not running)')} END"
        )
        op.execute(
            f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} {_unpruned_sqlite(prunable)}"
            f"BEGIN {_raise(f'auditor: {table} is append-only (DELETE refused; runs are pruned whole)')} END"
        )
    for table in EVIDENCE:
        op.execute(
            f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
            f"BEGIN {_raise(f'auditor: {table} is append-only (UPDATE refused)')} END"
        )
    op.execute(
        "CREATE TRIGGER targets_update_guard BEFORE UPDATE ON targets "
        f"WHEN {_changed_sqlite(_TARGET_FROZEN)} "
        "OR (SELECT sealed_at IS NULL AND status = 'running' FROM runs WHERE id = OLD.run_id) IS NOT 1 "
        f"BEGIN {_raise('auditor: targets: only the outcome of a target of a running run may change')} END"
    )
    pruned_id = "OR EXISTS (SELECT 1 FROM tombstones WHERE run_id = NEW.id) " if prunable else ""
    op.execute(
        "CREATE TRIGGER runs_insert_guard BEFORE INSERT ON runs "
        f"WHEN EXISTS (SELECT 1 FROM runs WHERE id = NEW.id) {pruned_id}OR NEW.status IS NOT 'running' "
        "OR NEW.sealed_at IS NOT NULL OR NEW.chain_head IS NOT NULL "
        f"BEGIN {_raise('auditor: runs: a run starts new, running and unsealed')} END"
    )
    resume = f"AND NOT {_resume_sqlite()} " if resumable else ""
    op.execute(
        "CREATE TRIGGER runs_sealed_no_update BEFORE UPDATE ON runs WHEN (OLD.sealed_at IS NOT NULL "
        f"OR OLD.status IS NOT 'running') {resume}"
        f"BEGIN {_raise('auditor: run is sealed (UPDATE refused)')} END"
    )
    # `resumes` moves only up by one, only into `running` (a resume, or a dead run taken over).
    resumes = (
        "OR (NEW.resumes IS NOT OLD.resumes "
        "AND NOT (NEW.resumes = OLD.resumes + 1 AND NEW.status = 'running')) "
        if resumable
        else ""
    )
    op.execute(
        "CREATE TRIGGER runs_update_guard BEFORE UPDATE ON runs "
        f"WHEN {_changed_sqlite(_RUN_FROZEN)} {resumes}"
        f"OR (OLD.genesis IS NOT '{'0' * 64}' AND NEW.genesis IS NOT OLD.genesis) "
        f"OR NOT ((NEW.status = 'running' AND NEW.sealed_at IS NULL AND NEW.chain_head IS NULL) "
        f"OR (NEW.status IN ({final}) AND NEW.sealed_at IS NOT NULL AND NEW.chain_head IS NOT NULL)) "
        f"BEGIN {_raise('auditor: runs: refused (a running run may only progress, then seal once)')} END"
    )
    op.execute(
        f"CREATE TRIGGER runs_no_delete BEFORE DELETE ON runs {_unpruned_sqlite(prunable, 'OLD.id')}"
        f"BEGIN {_raise('auditor: runs are never deleted (only pruned whole, under a tombstone)')} END"
    )
    same_seal = "run_id = NEW.run_id AND resume = NEW.resume" if resumable else "run_id = NEW.run_id"
    sealed = "sealed_at IS NOT NULL AND resumes = NEW.resume" if resumable else "sealed_at IS NOT NULL"
    op.execute(
        "CREATE TRIGGER seals_insert_guard BEFORE INSERT ON seals "
        f"WHEN EXISTS (SELECT 1 FROM seals WHERE {same_seal}) "
        f"OR (SELECT {sealed} FROM runs WHERE id = NEW.run_id) IS NOT 1 "
        f"BEGIN {_raise('auditor: seals: one seal per sealed run (INSERT refused)')} END"
    )
    for action in ("UPDATE", "DELETE"):
        when = _unpruned_sqlite(prunable) if action == "DELETE" else ""
        op.execute(
            f"CREATE TRIGGER seals_no_{action.lower()} BEFORE {action} ON seals {when}"
            f"BEGIN {_raise(f'auditor: seals never change ({action} refused)')} END"
        )
    if prunable:
        _install_retention_sqlite(final)


def _install_retention_sqlite(final: str) -> None:
    op.execute(
        "CREATE TRIGGER tombstones_insert_guard BEFORE INSERT ON tombstones "
        "WHEN EXISTS (SELECT 1 FROM tombstones WHERE run_id = NEW.run_id) "
        f"OR (SELECT sealed_at IS NOT NULL AND status IN ({final}) FROM runs WHERE id = NEW.run_id) IS NOT 1 "
        f"BEGIN {_raise('auditor: tombstones: only a sealed run that still exists may be pruned')} END"
    )
    op.execute(
        "CREATE TRIGGER prunings_insert_guard BEFORE INSERT ON prunings "
        "WHEN EXISTS (SELECT 1 FROM prunings WHERE id = NEW.id) "
        f"BEGIN {_raise('auditor: prunings are insert-only (existing key)')} END"
    )
    for table in RETENTION:
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                f"BEGIN {_raise(f'auditor: {table} never change ({action} refused)')} END"
            )


# --- PostgreSQL ---------------------------------------------------------------------------------------


def _changed_pg(cols: tuple[str, ...]) -> str:
    return " OR ".join(f"NEW.{c} IS DISTINCT FROM OLD.{c}" for c in cols)


def _install_postgresql(resumable: bool = True, prunable: bool = True) -> None:
    final = ", ".join(f"'{s}'" for s in _FINAL)
    op.execute(
        """
        CREATE FUNCTION auditor_no_truncate() RETURNS trigger AS $$
        BEGIN
          RAISE EXCEPTION 'auditor: % is append-only (TRUNCATE refused)', TG_TABLE_NAME;
        END $$ LANGUAGE plpgsql
        """
    )
    op.execute(
        """
        CREATE FUNCTION auditor_append_only() RETURNS trigger AS $$
        BEGIN
          RAISE EXCEPTION 'auditor: % is append-only (% refused)', TG_TABLE_NAME, TG_OP;
        END $$ LANGUAGE plpgsql
        """
    )
    # Inserting: a run starts running and unsealed; a seal only for a sealed run. Upserts over an existing
    # key meet the UPDATE triggers (ON CONFLICT DO UPDATE and MERGE fire them), so no key check is needed.
    op.execute(
        f"""
        CREATE FUNCTION auditor_insert_guard() RETURNS trigger AS $$
        DECLARE ok boolean;
        BEGIN
          IF TG_TABLE_NAME = 'seals' THEN
            SELECT sealed_at IS NOT NULL {"AND resumes = NEW.resume" if resumable else ""}
              INTO ok FROM runs WHERE id = NEW.run_id;
          ELSE
            ok := NEW.status = 'running' AND NEW.sealed_at IS NULL AND NEW.chain_head IS NULL
              {"AND NOT EXISTS (SELECT 1 FROM tombstones WHERE run_id = NEW.id)" if prunable else ""};
          END IF;
          IF ok IS NOT TRUE THEN
            RAISE EXCEPTION 'auditor: % row refused (its run is not in the right state)', TG_TABLE_NAME;
          END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql
        """
    )
    # Rows of a run (targets, evidence) go only into a running run. Checked once per statement over the
    # inserted rows (a transition table), so bulk inserts of facts pay one query, not one per row.
    op.execute(
        """
        CREATE FUNCTION auditor_rows_guard() RETURNS trigger AS $$
        BEGIN
          IF EXISTS (
            SELECT 1 FROM new_rows n LEFT JOIN runs r ON r.id = n.run_id
            WHERE r.id IS NULL OR r.sealed_at IS NOT NULL OR r.status IS DISTINCT FROM 'running'
          ) THEN
            RAISE EXCEPTION 'auditor: % row refused (its run is not running)', TG_TABLE_NAME;
          END IF;
          RETURN NULL;
        END $$ LANGUAGE plpgsql
        """
    )
    op.execute(
        f"""
        CREATE FUNCTION auditor_targets_update() RETURNS trigger AS $$
        DECLARE ok boolean;
        BEGIN
          SELECT sealed_at IS NULL AND status = 'running' INTO ok FROM runs WHERE id = OLD.run_id;
          IF {_changed_pg(_TARGET_FROZEN)} OR ok IS NOT TRUE THEN
            RAISE EXCEPTION 'auditor: targets: only the outcome of a target of a running run may change';
          END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql
        """
    )
    # See _resume_sqlite: the one way out of a final status, and `resumes` moves only with it.
    resume = (
        "AND NOT (OLD.status = 'interrupted' AND OLD.sealed_at IS NOT NULL AND NEW.status = 'running' "
        "AND NEW.sealed_at IS NULL AND NEW.chain_head IS NULL AND NEW.resumes = OLD.resumes + 1 "
        "AND EXISTS (SELECT 1 FROM seals WHERE run_id = OLD.id AND resume = OLD.resumes))"
        if resumable
        else ""
    )
    resumes = (
        "OR (NEW.resumes IS DISTINCT FROM OLD.resumes "
        "AND NOT (NEW.resumes = OLD.resumes + 1 AND NEW.status = 'running'))"
        if resumable
        else ""
    )
    op.execute(
        f"""
        CREATE FUNCTION auditor_runs_update() RETURNS trigger AS $$
        BEGIN
          IF (OLD.sealed_at IS NOT NULL OR OLD.status IS DISTINCT FROM 'running') {resume} THEN
            RAISE EXCEPTION 'auditor: run % is sealed (% refused)', OLD.id, TG_OP;
          END IF;
          IF {_changed_pg(_RUN_FROZEN)} {resumes}
             OR (OLD.genesis <> '{"0" * 64}' AND NEW.genesis IS DISTINCT FROM OLD.genesis)
             OR NOT ((NEW.status = 'running' AND NEW.sealed_at IS NULL AND NEW.chain_head IS NULL)
                  OR (NEW.status IN ({final}) AND NEW.sealed_at IS NOT NULL AND NEW.chain_head IS NOT NULL))
          THEN
            RAISE EXCEPTION 'auditor: runs: refused (a running run may only progress, then seal once)';
          END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql
        """
    )
    if prunable:
        _retention_functions_postgresql(final)
    for table in GUARDED:
        if table in ("runs", "seals"):
            op.execute(
                f"CREATE TRIGGER {table}_insert_guard BEFORE INSERT ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION auditor_insert_guard()"
            )
        else:
            op.execute(
                f"CREATE TRIGGER {table}_insert_guard AFTER INSERT ON {table} "
                "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION auditor_rows_guard()"
            )
        op.execute(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION auditor_no_truncate()"
        )
        if prunable:  # refused unless the run has a tombstone (auditor runs prune)
            guard = "auditor_runs_delete_guard" if table == "runs" else "auditor_delete_guard"
            op.execute(
                f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION {guard}()"
            )
        else:
            op.execute(
                f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION auditor_append_only()"
            )
    if prunable:
        _retention_triggers_postgresql()
    for table in (*EVIDENCE, "seals"):
        op.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION auditor_append_only()"
        )
    op.execute(
        "CREATE TRIGGER targets_update_guard BEFORE UPDATE ON targets "
        "FOR EACH ROW EXECUTE FUNCTION auditor_targets_update()"
    )
    op.execute(
        "CREATE TRIGGER runs_update_guard BEFORE UPDATE ON runs "
        "FOR EACH ROW EXECUTE FUNCTION auditor_runs_update()"
    )


def _retention_functions_postgresql(final: str) -> None:
    # Per row and BEFORE the delete: the refusal names the rule before any foreign key check speaks.
    for name, column in (("auditor_delete_guard", "run_id"), ("auditor_runs_delete_guard", "id")):
        op.execute(
            f"""
            CREATE FUNCTION {name}() RETURNS trigger AS $$
            BEGIN
              IF NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.run_id = OLD.{column}) THEN
                RAISE EXCEPTION 'auditor: % is append-only (DELETE refused; runs are pruned whole)',
                  TG_TABLE_NAME;
              END IF;
              RETURN OLD;
            END $$ LANGUAGE plpgsql
            """
        )
    op.execute(
        f"""
        CREATE FUNCTION auditor_tombstone_guard() RETURNS trigger AS $$
        DECLARE ok boolean;
        BEGIN
          SELECT sealed_at IS NOT NULL AND status IN ({final}) INTO ok FROM runs WHERE id = NEW.run_id;
          IF ok IS NOT TRUE THEN
            RAISE EXCEPTION 'auditor: tombstones: only a sealed run that still exists may be pruned (run %)',
              NEW.run_id;
          END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql
        """
    )
    # At commit: the run a tombstone stands for is gone (and with it, by their foreign keys, all its rows).
    op.execute(
        """
        CREATE FUNCTION auditor_tombstone_whole() RETURNS trigger AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM runs WHERE id = NEW.run_id) THEN
            RAISE EXCEPTION 'auditor: run % has a tombstone but was not pruned whole', NEW.run_id;
          END IF;
          RETURN NULL;
        END $$ LANGUAGE plpgsql
        """
    )


def _retention_triggers_postgresql() -> None:
    op.execute(
        "CREATE TRIGGER tombstones_insert_guard BEFORE INSERT ON tombstones "
        "FOR EACH ROW EXECUTE FUNCTION auditor_tombstone_guard()"
    )
    op.execute(
        "CREATE CONSTRAINT TRIGGER tombstones_whole_run AFTER INSERT ON tombstones "
        "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION auditor_tombstone_whole()"
    )
    for table in RETENTION:
        op.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION auditor_append_only()"
        )
        op.execute(
            f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION auditor_append_only()"
        )
        op.execute(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION auditor_no_truncate()"
        )

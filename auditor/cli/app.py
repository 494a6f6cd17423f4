"""Entry point and the commands that run audits."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from auditor.cli.console import console, set_quiet, setup_logging
from auditor.errors import AuditorError, UsageError

if TYPE_CHECKING:
    from sqlalchemy import Engine


def _flags_show_no_value_type() -> None:
    """typer's rich help prints a value type beside every boolean flag (`--quiet <bool>`, even `--help
    <bool>`), as if it took a value; it takes none. Flags (not counters) show no type, everywhere, including
    flags that commands added later declare."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich
    if getattr(shown, "_auditor_flags", False):
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        if self.is_flag and not self.count:
            return None
        return shown(self, ctx)

    display_type_rich._auditor_flags = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_flags_show_no_value_type()


def _unset_flags_need_no_coercion() -> None:
    """typer (0.29) coerces every option value through a pydantic TypeAdapter it builds on first use, even
    the root's unset --help flag (None) when a subcommand runs: that imports pydantic (about 0.1 s) for
    `auditor checks list`, which needs none. An unset, optional boolean flag has nothing to coerce."""
    from typer.core import _TyperParameter

    process = _TyperParameter.process_value
    if getattr(process, "_auditor_unset_flags", False):
        return

    def process_value(self: _TyperParameter, ctx: Any, value: Any) -> Any:
        descriptor = getattr(self, "type_descriptor", None)
        if value is None and not self.required and getattr(descriptor, "annotation", None) is bool:
            return self.callback(ctx, self, value) if self.callback is not None else value
        return process(self, ctx, value)

    process_value._auditor_unset_flags = True  # type: ignore[attr-defined]
    _TyperParameter.process_value = process_value  # type: ignore[method-assign]


_unset_flags_need_no_coercion()

app = typer.Typer(
    name="auditor",
    help="Audit and evidence the segmentation of AI cluster networks (OOB, frontend, backend RDMA).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

ConfigOpt = Annotated[Path | None, typer.Option("--config", "-c", help="the audit config (auditor.yaml)")]
StoreOpt = Annotated[
    str | None,
    typer.Option("--store", help="store URL; default: the config's, $AUDITOR_STORE, or ./auditor.db"),
]
SCOPE_BUSY_EXIT = 75  # EX_TEMPFAIL: another audit of the scope holds it; try again later (or --wait)


def _run_reference(value: str | None) -> str | None:
    """--run is checked when parsed (before any store is opened): an id, latest or latest~N."""
    if value is not None:
        from auditor.cli.runref import parse_run_ref

        try:
            parse_run_ref(value)
        except AuditorError as exc:
            raise typer.BadParameter(str(exc)) from None
    return value


RunOpt = Annotated[
    str | None,
    typer.Option(
        "--run",
        "-r",
        metavar="RUN",
        callback=_run_reference,
        help="run id, latest or latest~N (default: the latest run)",
    ),
]


DEFAULT_STORE = "sqlite:///auditor.db"
STORE_HINT = (
    "pass -c CONFIG (its store:), --store URL or set AUDITOR_STORE; `auditor audit -c CONFIG` creates it"
)


def _missing_sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL when it does not exist (opening it would create an empty store)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return None  # open_store names the bad URL
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database in ("", ":memory:") or database.startswith("file:"):
        return None
    path = Path(database)
    return None if path.exists() else path


def store_engine(
    config: Path | None, store: str | None, *, migrate: bool = True, create: bool = False
) -> Engine:
    """The store a command reads: --store, else the config's, else $AUDITOR_STORE, else ./auditor.db.
    A SQLite file that does not exist is refused unless `create` (db upgrade): a command that reads a
    store must not leave an empty ./auditor.db behind because -c was forgotten."""
    if store:
        url, origin = store, "--store"
    elif config is not None:
        from auditor.config.loader import load_config

        url, origin = load_config(config).store_url(), f"the store: of {config}"
    elif os.environ.get("AUDITOR_STORE"):
        url, origin = os.environ["AUDITOR_STORE"], "$AUDITOR_STORE"
    else:
        url, origin = DEFAULT_STORE, ""
    missing = None if create else _missing_sqlite_file(url)
    if missing is not None:
        if not origin:
            raise UsageError(f"no store given and there is no {missing.absolute()}", hint=STORE_HINT)
        raise UsageError(f"no store at {missing.absolute()} (from {origin})", hint=STORE_HINT)
    from auditor.store.engine import open_store

    return open_store(url, migrate=migrate)


def resolve_run(engine: Engine, run: str | int | None) -> int:
    """The run a --run value names (None: the latest): see auditor.cli.runref."""
    from auditor.cli.runref import resolve_run as resolve

    return resolve(engine, run)


def _version(value: bool) -> None:
    if value:
        from auditor import __version__

        print(f"auditor {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="debug logging")] = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="only errors and the final status line (every command)"),
    ] = False,
    version: Annotated[
        bool,
        typer.Option("--version", is_eager=True, callback=_version, help="print the version and exit"),
    ] = False,
) -> None:
    set_quiet(quiet)
    setup_logging(verbose)


@app.command()
def audit(
    config: Annotated[Path, typer.Option("--config", "-c", help="the audit config (auditor.yaml)")],
    store: StoreOpt = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="report directory")] = None,
    report_format: Annotated[
        list[str] | None, typer.Option("--format", "-f", help="report formats (default: the config's)")
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(min=1, max=512, help="concurrent collection workers (default: collection.workers, 16)"),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="only errors and the final status line: no progress bar or lines, no findings list",
        ),
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="one JSON summary object on stdout (run, status, counts, chain head, reports)"
        ),
    ] = False,
    signing_key: Annotated[
        Path | None,
        typer.Option(
            "--signing-key", help="sign the seal with this Ed25519 private key (PEM); overrides signing:"
        ),
    ] = None,
    resume: Annotated[
        int | None,
        typer.Option(
            "--resume",
            metavar="RUN",
            help="finish interrupted run RUN on its own chain (same config and options): finished targets "
            "are not collected again",
        ),
    ] = None,
    wait: Annotated[
        bool,
        typer.Option(
            "--wait", help="if an audit of the same scope is running, wait for it instead of exiting"
        ),
    ] = False,
    executor: Annotated[
        str,
        typer.Option(
            "--executor",
            help="local: threads in this process; celery: one task per target for `auditor worker`s "
            "(PostgreSQL store)",
        ),
    ] = "local",
    broker: Annotated[
        str | None,
        typer.Option("--broker", help="celery: amqp://... or redis://...; default $AUDITOR_BROKER"),
    ] = None,
    queue: Annotated[str, typer.Option("--queue", help="celery: the queue the workers consume")] = (
        "auditor.collect"
    ),
) -> None:
    """Collect evidence, check it, seal the run (signed when a key is given) and write the reports.

    One audit per scope runs at a time on a store; a second one exits with code 75 naming the run that
    holds the scope, or waits for it with --wait."""
    from auditor.cli.console import LiveProgress, is_quiet
    from auditor.cli.render import print_outcome
    from auditor.config.loader import load_config
    from auditor.pipeline.audit import run_audit
    from auditor.store.engine import open_store
    from auditor.store.scope_lock import ScopeBusy

    quiet = quiet or is_quiet()
    if quiet:
        set_quiet()
    if report_format:
        from auditor.cli.catalogue import refuse_unknown_formats

        refuse_unknown_formats(report_format)

    cfg = load_config(config)
    updates: dict[str, object] = {}
    if store:
        updates["store"] = store
    if output:
        updates["output"] = output.resolve()
    if report_format:
        updates["reports"] = report_format
    if signing_key:
        from auditor.config.models import SigningSettings

        pin = cfg.signing.public_key if cfg.signing else None
        updates["signing"] = SigningSettings(key_file=signing_key.resolve(), public_key=pin)
    cfg = cfg.model_copy(update=updates) if updates else cfg
    from auditor.distributed.executor import executor_for

    collect = executor_for(executor, cfg, broker, queue)
    engine = open_store(cfg.store_url())

    def waiting(holder: str) -> None:
        console.print(
            f"waiting: an audit of the same scope is running: {holder}", highlight=False, soft_wrap=True
        )

    try:
        with LiveProgress(enabled=not quiet and console.is_terminal, log_lines=not quiet) as progress:
            outcome = run_audit(
                cfg,
                engine=engine,
                progress=progress,
                workers=workers or cfg.collection.workers,
                resume=resume,
                wait=wait,
                on_wait=waiting,
                collect=collect,
            )
    except ScopeBusy as exc:
        console.print(f"[bold red]busy:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(SCOPE_BUSY_EXIT) from None
    if resume is not None:
        console.print(f"run {resume} resumed and finished on its own chain", highlight=False)
    if cfg.metrics is not None and cfg.metrics.textfile is not None:  # logged, never an exit code
        from auditor.ops.metrics_export import write_config_textfile

        write_config_textfile(cfg, config, engine)
    if as_json:
        import json

        from auditor.cli.render import outcome_json

        print(json.dumps(outcome_json(engine, outcome)))
    else:
        print_outcome(engine, outcome)
    raise typer.Exit(outcome.exit_code)


# Which modules register each top-level command, so `auditor checks list` imports only what it runs
# (issue 14: start at once). A module of this package not named here is always imported, so a command
# added as a new module works before it is listed (it only starts a little slower).
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "alerts": ("alerts",),
    "audit": (),
    "check": ("commands",),
    "checks": ("commands",),
    "controls": ("controls",),
    "db": ("commands",),
    "diff": ("diff",),
    "evidence": ("evidence",),
    "facts": ("commands",),
    "keys": ("sealing",),
    "pack": ("pack",),
    "permissions": ("permissions", "permissions_k8s"),
    "reach": ("reach",),
    "report": ("sealing",),
    "runs": ("commands", "prune"),
    "scheduler": ("scheduler",),
    "spot": ("spot",),
    "verify": ("sealing",),
    "worker": ("worker",),
}
# modules of this package that register no command
HELPER_MODULES = frozenset({"app", "catalogue", "console", "render", "runref", "runstate"})


def _command_name(argv: list[str]) -> str | None:
    """The top-level command of a command line (the root options are all flags, so it is the first
    word that is not an option); None for `auditor`, `auditor --help` or `auditor --version`."""
    return next((a for a in argv if not a.startswith("-")), None)


def load_commands(argv: list[str] | None = None) -> None:
    """Import the command modules of this package (each registers its commands on `app` when imported):
    all of them without `argv` (and for `auditor --help`), else only those the command needs plus any
    module COMMAND_MODULES does not know yet. `auditor --version` needs none."""
    import importlib
    import pkgutil

    import auditor.cli

    modules = {m.name for m in pkgutil.iter_modules(auditor.cli.__path__)} - HELPER_MODULES
    if argv is not None:
        command = _command_name(argv)
        if command is None and "--version" in argv and "--help" not in argv:
            modules = set()
        elif command in COMMAND_MODULES:
            known = {m for ms in COMMAND_MODULES.values() for m in ms}
            modules = set(COMMAND_MODULES[command]) | (modules - known)
    for name in sorted(modules):
        importlib.import_module(f"auditor.cli.{name}")


def _terminate_as_interrupt(signum: int, _frame: object) -> None:
    """SIGTERM (a supervisor, `kill`, a container stop) ends the run the way Ctrl-C does: sealed as
    interrupted with what was collected. A second SIGTERM is not caught: it ends the process at once."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise KeyboardInterrupt(f"signal {signum}")


def _interrupted() -> NoReturn:
    console.print(
        "[yellow]interrupted[/]: a run in progress is recorded as interrupted, collected evidence is kept"
    )
    if threading.active_count() > 1:
        # Workers left hanging on a device were abandoned (the run is sealed): finalising the interpreter
        # under them can abort it (SIGABRT, a daemon thread holding a stream's lock), losing what was
        # printed but not yet flushed and the exit code. Flush, then leave without finalising.
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    sys.exit(130)


def main() -> None:
    """Console-script entry: AuditorErrors become one clear line and exit code 2; Ctrl-C and SIGTERM seal
    a running audit as interrupted and exit 130."""
    if threading.current_thread() is not threading.main_thread():  # signal handlers: main thread only
        _main()
        return
    previous = signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    try:
        _main()
    finally:  # main() called in-process (tests, embedding) leaves the caller's handler as it was
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main() -> None:
    load_commands(sys.argv[1:])
    try:
        code = app(standalone_mode=False)
        if code == 130:  # typer turns Ctrl-C (and SIGTERM, above) into exit code 130 without a word
            _interrupted()
        sys.exit(code if isinstance(code, int) else 0)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except AuditorError as exc:
        for err in getattr(exc, "all_errors", [exc]):
            console.print(f"[bold red]error:[/] {err}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        _interrupted()
    except typer.Abort:
        sys.exit(130)
    except typer.TyperException as exc:  # usage errors (typer vendors click; this is its public base class)
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            console.print(f"[bold red]error:[/] {exc}", highlight=False)
        sys.exit(2)

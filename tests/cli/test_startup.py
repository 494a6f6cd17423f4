"""A CLI that starts at once (issue 14 item 6): `--help` and `--version` import none of the heavy
libraries, and a command imports only what it needs. Behaviour, not timing: each case runs the real
entry point in a fresh interpreter and reads sys.modules at exit (the timings are in
benchmarks/cli_startup.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import REPO

HEAVY = (
    "sqlalchemy",
    "alembic",
    "napalm",
    "netmiko",
    "boto3",
    "botocore",
    "kubernetes",
    "reportlab",
    "duckdb",
    "celery",
    "pydantic",
    "detect_secrets",
    "networkx",
    "auditor.pipeline",
    "auditor.store",
    "checks",
    "collectors",
    "reports",
)
SMALL_K8S = REPO / "tests" / "fixtures" / "k8s_semantics" / "engine" / "calico-networksets-profiles"

PROBE = """
import atexit, json, sys
dump = sys.argv[1]
def report():
    with open(dump, "w") as f:
        json.dump(sorted(sys.modules), f)
atexit.register(report)
sys.argv = ["auditor", *sys.argv[2:]]
from auditor.cli.app import main
main()
"""


def imported(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """The modules a fresh `auditor ARGS` has imported when it exits, and its completed process."""
    dump = tmp_path / "modules.json"
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(dump), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    return set(json.loads(dump.read_text())), result


def heavy(modules: set[str], wanted: tuple[str, ...] = HEAVY) -> list[str]:
    return sorted(h for h in wanted if h in modules or any(m.startswith(f"{h}.") for m in modules))


@pytest.mark.parametrize("args", [["--help"], ["--version"], []])
def test_help_and_version_import_no_heavy_library(tmp_path: Path, args: list[str]) -> None:
    modules, result = imported(tmp_path, *args)
    assert result.returncode in (0, 2), result.stderr  # `auditor` alone prints help (exit 2 in click)
    assert "Usage" in result.stdout or "auditor " in result.stdout
    assert heavy(modules) == []


def test_a_command_group_help_imports_no_store_or_client(tmp_path: Path) -> None:
    """Below the root, typer (0.29) coerces the root's unset --help flag through a pydantic adapter, so
    pydantic is allowed here; nothing else heavy is."""
    modules, result = imported(tmp_path, "runs", "--help")
    assert result.returncode == 0 and "prune" in result.stdout, result.stderr
    assert heavy(modules, tuple(h for h in HEAVY if h != "pydantic")) == []


def test_version_builds_no_command(tmp_path: Path) -> None:
    modules, result = imported(tmp_path, "--version")
    assert result.returncode == 0 and result.stdout.startswith("auditor ")
    assert not [
        m
        for m in modules
        if m.startswith("auditor.cli.") and m not in {"auditor.cli.app", "auditor.cli.console"}
    ]


def test_a_command_imports_only_its_modules(tmp_path: Path) -> None:
    """`reach k8s` reads a directory: no store, no report renderers, no clients, no other command."""
    modules, result = imported(tmp_path, "reach", "k8s", str(SMALL_K8S))
    assert result.returncode == 0, result.stderr
    assert " => " in result.stdout  # it did list connections
    no_store = (
        "sqlalchemy",
        "alembic",
        "duckdb",
        "reportlab",
        "boto3",
        "kubernetes",
        "napalm",
        "netmiko",
        "celery",
    )
    assert heavy(modules, no_store) == []
    assert "auditor.cli.reach" in modules
    assert not {"auditor.cli.sealing", "auditor.cli.diff", "auditor.cli.spot"} & modules
    # the fact package loads its modules on use: Kubernetes models only, not the AWS or network ones
    assert "auditor.facts.kubernetes" in modules
    assert not {"auditor.facts.aws", "auditor.facts.network"} & modules


def test_fact_models_of_every_kind_load_on_demand(tmp_path: Path) -> None:
    """The decoy of lazy fact modules: reading a stored fact of a kind whose module nobody imported yet
    still finds its model (record_from_json loads the modules it needs)."""
    probe = (
        "import sys\n"
        "from auditor.enums import FactKind\n"
        "from auditor.facts.base import fact_model\n"
        "assert 'auditor.facts.aws' not in sys.modules\n"
        "print(sorted(fact_model(k).__module__ for k in FactKind)[0])\n"
        "from auditor.facts import Acl\n"
        "print(Acl.__module__)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["auditor.facts.aws", "auditor.facts.network"]


def test_checks_list_from_a_current_catalogue_imports_no_check(tmp_path: Path) -> None:
    """Once the catalogue is cached (auditor/cli/catalogue.py), listing it loads no check module, no fact
    model, no store and no pydantic."""
    env = {**os.environ, "AUDITOR_CACHE_DIR": str(tmp_path / "cache")}
    cold, first = imported(tmp_path, "checks", "list", env=env)
    assert first.returncode == 0 and "checks.base" in cold  # built from the registry the first time
    modules, result = imported(tmp_path, "checks", "list", env=env)
    assert result.returncode == 0 and result.stdout == first.stdout
    assert heavy(modules) == []


def test_an_unknown_command_still_gets_every_command_to_name(tmp_path: Path) -> None:
    """The decoy: a command missing from COMMAND_MODULES loads every module, so typer can say so."""
    _, result = imported(tmp_path, "no-such-command")
    assert result.returncode == 2
    assert "No such command 'no-such-command'" in result.stdout + result.stderr


def _modules_of(info: object) -> set[str]:
    """The modules whose functions make up a registered command or group (its callbacks, recursively)."""
    found: set[str] = set()
    callback = getattr(info, "callback", None)
    if callback is not None:
        found.add(callback.__module__)
    sub = getattr(info, "typer_instance", None)
    if sub is not None:
        if sub.registered_callback is not None and sub.registered_callback.callback is not None:
            found.add(sub.registered_callback.callback.__module__)
        for item in [*sub.registered_commands, *sub.registered_groups]:
            found |= _modules_of(item)
    return found


def test_every_command_names_the_modules_that_make_it() -> None:
    """Lazy loading imports COMMAND_MODULES[name] for `auditor name ...`: every command and every
    subcommand of a group must come from those modules (a missing entry only starts slower, but a group
    whose subcommand lives in an unlisted known module would lose that subcommand)."""
    from auditor.cli.app import COMMAND_MODULES, app, load_commands

    load_commands()
    commands = {c.name or (c.callback.__name__ if c.callback else ""): c for c in app.registered_commands}
    groups = {g.name or "": g for g in app.registered_groups}
    assert set(commands) | set(groups) == set(COMMAND_MODULES), (
        "add each new command to COMMAND_MODULES in auditor/cli/app.py"
    )
    for name, info in [*commands.items(), *groups.items()]:
        wanted = {f"auditor.cli.{m}" for m in COMMAND_MODULES[name]} | {"auditor.cli.app"}
        ours = {m for m in _modules_of(info) if m.startswith("auditor.")}
        assert ours <= wanted, (name, ours - wanted)

"""--version, help that shows flags as flags, commands that read a store never creating one, and error
lines that carry the config prefix only for config errors."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from auditor import __version__
from auditor.cli.app import app, load_commands
from tests.e2e.conftest import run_cli


def test_version() -> None:
    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"auditor {__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", __version__)


@pytest.mark.parametrize("command", [["verify"], ["runs", "list"], ["report"], ["check"], ["diff", "1", "2"]])
def test_reading_without_a_store_refuses_and_creates_nothing(tmp_path: Path, command: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if k != "AUDITOR_STORE"}
    result = run_cli(*command, cwd=tmp_path, env=env)
    assert result.returncode == 2, result.stdout + result.stderr
    line = " ".join(result.stderr.split())
    assert f"error: no store given and there is no {tmp_path / 'auditor.db'}" in line
    assert "pass -c CONFIG" in line and "--store URL" in line and "AUDITOR_STORE" in line
    assert "<config>" not in line
    assert list(tmp_path.iterdir()) == []  # no ./auditor.db left behind


def test_a_named_store_that_does_not_exist_is_refused_by_name(tmp_path: Path) -> None:
    result = run_cli("verify", "--store", "sqlite:///gone.db", cwd=tmp_path)
    assert result.returncode == 2
    assert f"error: no store at {tmp_path / 'gone.db'} (from --store)" in " ".join(result.stderr.split())
    assert not (tmp_path / "gone.db").exists()
    cfg = tmp_path / "auditor.yaml"
    cfg.write_text("store: sqlite:///db/audit.db\n")
    by_config = run_cli("runs", "list", "-c", str(cfg), cwd=tmp_path)
    assert by_config.returncode == 2
    want = f"error: no store at {tmp_path / 'db' / 'audit.db'} (from the store: of {cfg})"
    assert want in " ".join(by_config.stderr.split())
    assert not (tmp_path / "db").exists()


def test_db_upgrade_still_creates_and_an_empty_store_says_so_without_config_prefix(tmp_path: Path) -> None:
    """The decoy: `db upgrade` is the one command meant to create a store."""
    url = "sqlite:///new.db"
    made = run_cli("db", "upgrade", "--store", url, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "new.db").exists()
    empty = run_cli("verify", "--store", url, cwd=tmp_path)
    assert empty.returncode == 2
    line = " ".join(empty.stderr.split())
    assert line.startswith("error: the store holds no run yet (run `auditor audit")
    bad_kind = run_cli("facts", "-k", "nope", "--store", url, cwd=tmp_path)
    assert bad_kind.returncode == 2
    assert " ".join(bad_kind.stderr.split()).startswith("error: unknown fact kind 'nope' (one of: coverage,")


def test_a_config_error_keeps_its_file_prefix(tmp_path: Path) -> None:
    cfg = tmp_path / "auditor.yaml"
    cfg.write_text("scope: x\nnot_a_key: 1\n")
    result = run_cli("runs", "list", "-c", str(cfg), cwd=tmp_path)
    assert result.returncode == 2
    assert f"{cfg}:" in " ".join(result.stderr.split())


def _commands(group: object, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for name, sub in getattr(group, "commands", {}).items():
        found += _commands(sub, (*path, name))
    return found


def test_help_of_every_command_shows_flags_without_a_value_type() -> None:
    load_commands()
    tree = typer.main.get_command(app)
    runner = CliRunner()
    paths = _commands(tree)
    assert len(paths) > 20
    for path in paths:
        result = runner.invoke(app, [*path, "--help"], terminal_width=200)
        assert result.exit_code == 0, (path, result.output)
        assert "<bool>" not in result.output, (path, result.output)
        assert "--help" in result.output
    audit_help = runner.invoke(app, ["audit", "--help"], terminal_width=200).output
    assert re.search(r"--workers\s+<int range>", audit_help)  # options that take values still say so
    assert re.search(r"--config\s+-c\s+<path>", audit_help)


def test_help_through_the_real_cli() -> None:
    result = run_cli("audit", "--help")
    assert result.returncode == 0
    assert "--quiet" in result.stdout and "--wait" in result.stdout and "<bool>" not in result.stdout


def test_errors_of_the_command_line_carry_no_config_prefix(tmp_path: Path) -> None:
    """A key that exists, an unknown framework: not the config's fault, so no '<config>:' before them."""
    assert run_cli("keys", "generate", "-o", "k", cwd=tmp_path).returncode == 0
    again = run_cli("keys", "generate", "-o", "k", cwd=tmp_path)
    assert again.returncode == 2
    assert " ".join(again.stderr.split()).startswith("error: k/auditor-signing.key already exists (")
    framework = run_cli("controls", "--framework", "nope", cwd=tmp_path)
    assert framework.returncode == 2
    assert " ".join(framework.stderr.split()).startswith("error: unknown framework 'nope' (one of: ")


@pytest.mark.parametrize(
    "args",
    [
        ["report", "-f", "json", "-f", "nope"],
        ["audit", "-c", "auditor.yaml", "-f", "nope"],
    ],
)
def test_an_unknown_report_format_is_a_usage_error_before_anything_runs(
    tmp_path: Path, args: list[str]
) -> None:
    result = run_cli(*args, cwd=tmp_path)
    assert result.returncode == 2
    line = " ".join(result.stderr.split())
    assert line.startswith("error: --format: no report format 'nope' (installed: csv, ")
    assert "json" in line and "pdf" in line and "plugin" not in line
    assert list(tmp_path.iterdir()) == []  # no store opened, nothing written

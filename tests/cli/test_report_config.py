"""`auditor report -c CONFIG` writes where the config says (output:) in the formats it names (reports:);
-o and -f still win; without a config the old defaults (pdf in ./audit-output) hold."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import AuditedLab
from tests.e2e.conftest import run_cli


def _config_with(lab: AuditedLab, name: str, output: str, reports: str) -> Path:
    text = lab.config.read_text()
    assert "output: out\n" in text and "reports: [json, pdf]\n" in text
    cfg = lab.root / name  # beside the original: the same relative store
    cfg.write_text(
        text.replace("output: out\n", f"output: {output}\n").replace("reports: [json, pdf]\n", reports)
    )
    return cfg


def test_report_uses_the_configs_output_and_formats(audited_lab: AuditedLab, tmp_path: Path) -> None:
    cfg = _config_with(audited_lab, "by-config.yaml", "by-config", "reports: [json, csv]\n")
    result = run_cli("report", "-c", str(cfg), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    folder = audited_lab.root / "by-config"  # relative to the config's directory, not the cwd
    assert sorted(p.name for p in folder.iterdir()) == ["run-1.csv", "run-1.json"]
    assert list(tmp_path.iterdir()) == []  # no ./audit-output
    assert f"report: {folder / 'run-1.json'}" in result.stdout
    assert json.loads((folder / "run-1.json").read_text())["verification"]


def test_flags_override_the_config(audited_lab: AuditedLab, tmp_path: Path) -> None:
    cfg = _config_with(audited_lab, "overridden.yaml", "never-written", "reports: [pdf]\n")
    result = run_cli("report", "-c", str(cfg), "-o", "here", "-f", "csv", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [p.name for p in (tmp_path / "here").iterdir()] == ["run-1.csv"]
    assert not (audited_lab.root / "never-written").exists()


def test_without_a_config_the_defaults_hold(audited_lab: AuditedLab, tmp_path: Path) -> None:
    store = f"sqlite:///{audited_lab.root / '.auditor' / 'auditor.db'}"
    result = run_cli("report", "--store", store, "-f", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [p.name for p in (tmp_path / "audit-output").iterdir()] == ["run-1.json"]

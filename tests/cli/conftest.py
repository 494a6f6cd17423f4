"""One audited copy of the example lab per test module: the CLI tests read it, they do not change it."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.conftest import LAB, run_cli


@dataclass(frozen=True)
class AuditedLab:
    root: Path
    config: Path
    audit: subprocess.CompletedProcess[str]

    @property
    def report(self) -> Path:
        return self.root / "out" / "run-1.json"


@pytest.fixture(scope="module")
def audited_lab(tmp_path_factory: pytest.TempPathFactory) -> AuditedLab:
    root = tmp_path_factory.mktemp("cli") / "lab"
    shutil.copytree(LAB, root, ignore=shutil.ignore_patterns(".auditor", "out"))
    config = root / "auditor.yaml"
    audit = run_cli("audit", "-c", str(config), "-o", str(root / "out"), "-f", "json", cwd=root)
    assert audit.returncode == 1, audit.stdout + audit.stderr  # the lab has planted violations
    return AuditedLab(root, config, audit)

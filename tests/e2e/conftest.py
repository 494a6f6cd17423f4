"""Fixtures for end-to-end runs of the CLI on copies of the example lab."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LAB = REPO / "examples" / "lab"


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The real console script path: `python -m auditor` in a subprocess, output captured."""
    return subprocess.run(
        [sys.executable, "-m", "auditor", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


@pytest.fixture
def lab(tmp_path: Path) -> Path:
    """A private copy of the example lab (its store and reports land in the copy)."""
    dest = tmp_path / "lab"
    shutil.copytree(LAB, dest, ignore=shutil.ignore_patterns(".auditor", "out"))
    return dest

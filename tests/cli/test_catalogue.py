"""`auditor checks list` reads the check metadata from a cache while nothing it was built from changed:
the same listing as the live registry, rebuilt when a provider's file changes, off with
AUDITOR_CACHE_DIR=off."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from auditor.cli import catalogue
from tests.e2e.conftest import run_cli


def test_cached_listing_is_the_live_registry(tmp_path: Path) -> None:
    env = {**os.environ, "AUDITOR_CACHE_DIR": str(tmp_path / "cache")}
    cold = run_cli("checks", "list", "--json", cwd=tmp_path, env=env)
    assert cold.returncode == 0, cold.stderr
    (cached,) = (tmp_path / "cache").glob("checks-*.json")
    warm = run_cli("checks", "list", "--json", cwd=tmp_path, env=env)
    assert warm.stdout == cold.stdout
    assert json.loads(cached.read_text()) == json.loads(cold.stdout) == catalogue._build()
    off = run_cli("checks", "list", "--json", cwd=tmp_path, env={**env, "AUDITOR_CACHE_DIR": "off"})
    assert off.stdout == cold.stdout


def test_the_listing_reads_the_cache_and_ignores_a_malformed_one(tmp_path: Path) -> None:
    env = {**os.environ, "AUDITOR_CACHE_DIR": str(tmp_path)}
    assert run_cli("checks", "list", "--json", cwd=tmp_path, env=env).returncode == 0
    (cached,) = tmp_path.glob("checks-*.json")
    rows = json.loads(cached.read_text())
    cached.write_text(json.dumps([{**rows[0], "title": "read from the cache"}]))
    shown = json.loads(run_cli("checks", "list", "--json", cwd=tmp_path, env=env).stdout)
    assert [r["title"] for r in shown] == ["read from the cache"]
    cached.write_text('[{"id": "half a file"')
    assert json.loads(run_cli("checks", "list", "--json", cwd=tmp_path, env=env).stdout) == rows


def test_any_change_to_a_provider_file_changes_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "h7_fake_checks"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    module = package / "sub" / "mod.py"
    module.write_text("TITLE = 'a'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = catalogue._package_files("h7_fake_checks")
    assert len(before) == 2 and not any("__pycache__" in f for f in before)
    module.write_text("TITLE = 'b'\n")
    os.utime(module, ns=(1, 1))
    assert catalogue._package_files("h7_fake_checks") != before
    assert catalogue._package_files("no_such_package_h7") == ["no_such_package_h7:missing"]
    assert catalogue.fingerprint() == catalogue.fingerprint()


def test_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("AUDITOR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert catalogue.cache_dir() == tmp_path / "auditor"
    monkeypatch.setenv("AUDITOR_CACHE_DIR", "OFF")
    assert catalogue.cache_dir() is None

"""Registries note their entry points and import each when first needed: asking for one report format
imports that renderer only (not reportlab for a JSON report); listing imports all; a broken plugin is
an error naming it when it is needed."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

import auditor.registry as registry_module
from auditor.errors import PluginError
from auditor.registry import Registry

PROBE = """
import json, sys
from reports.base import report_registry
registry = report_registry()
registry.get("json")
one = sorted(m for m in sys.modules if m.startswith(("reportlab", "reports.pdf", "reports.html")))
names = list(registry)
every = sorted(m for m in sys.modules if m.startswith(("reportlab", "reports.pdf")))
print(json.dumps({"one": one, "names": names, "every": bool(every)}))
"""


def test_one_report_format_imports_only_its_renderer() -> None:
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["one"] == []
    assert {"json", "pdf", "csv"} <= set(seen["names"])
    assert seen["every"]  # listing them imported the PDF renderer


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[EntryPoint]:
    (tmp_path / "h7_good_plugin.py").write_text("ENTRY = 'good'\nMANY = ['a', 'b']\n")
    (tmp_path / "h7_broken_plugin.py").write_text("raise RuntimeError('broken on import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    eps = [
        EntryPoint("good", "h7_good_plugin:ENTRY", "h7.test"),
        EntryPoint("broken", "h7_broken_plugin:ENTRY", "h7.test"),
    ]
    monkeypatch.setattr(registry_module, "entry_points", lambda group: eps if group == "h7.test" else [])
    for name in ("h7_good_plugin", "h7_broken_plugin"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return eps


def test_get_imports_one_entry_point_and_a_broken_one_fails_when_needed(plugins: list[EntryPoint]) -> None:
    reg = Registry[str]("h7.test").load_entry_points()
    assert reg.get("good") == "good"
    assert "good" in reg
    assert "h7_broken_plugin" not in sys.modules
    with pytest.raises(
        PluginError, match="cannot load 'broken' from h7_broken_plugin:ENTRY: broken on import"
    ):
        reg.get("broken")
    with pytest.raises(PluginError, match=r"no entry named 'other' \(known: good\)"):
        reg.get("other")


def test_listing_loads_every_entry_point(plugins: list[EntryPoint]) -> None:
    reg = Registry[str]("h7.test").load_entry_points()
    with pytest.raises(PluginError, match="cannot load 'broken'"):
        reg.items()


def test_a_keyed_registry_loads_all_at_first_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Entry points that provide several entries: any may hold the name asked for."""
    (tmp_path / "h7_many_plugin.py").write_text("MANY = ['alpha', 'beta']\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    eps = [EntryPoint("pack", "h7_many_plugin:MANY", "h7.keyed")]
    monkeypatch.setattr(registry_module, "entry_points", lambda group: eps)
    reg = Registry[str]("h7.keyed", key=str).load_entry_points()
    assert reg.get("beta") == "beta"
    assert list(reg) == ["alpha", "beta"] and len(reg) == 2

"""Normalizers are registered through entry points at start-up but imported only when a capture of their
format arrives, so `auditor audit` does not pay for every parser; a plugin that cannot be imported costs
the captures of its format (each gets a Problem naming it), not the run."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from importlib.metadata import EntryPoint, entry_points

import pytest

from auditor.capture import RawCapture
from auditor.errors import PluginError
from auditor.normalize import NormalizerRegistry, normalizer_registry
from auditor.pipeline.process import process_capture

PROBE = """
import sys
from auditor.normalize import normalizer_registry
registry = normalizer_registry()
assert "eos.running-config" in registry and len(registry) >= 20
assert "ciscoconfparse2" not in sys.modules and "textfsm" not in sys.modules, "imported at start-up"
registry.get("ios.show-text")
assert "textfsm" in sys.modules and "ciscoconfparse2" not in sys.modules
"""


def test_parsers_are_imported_when_their_format_arrives() -> None:
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_every_entry_point_is_listed_and_loads() -> None:
    """Formats come from the `auditor.normalizers` group and from each registered platform's record."""
    from collectors.platforms.registry import platforms

    registry = normalizer_registry()
    platform_formats = {fmt for _, p in platforms().items() for fmt in p.normalizers}
    names = sorted({ep.name for ep in entry_points(group="auditor.normalizers")} | platform_formats)
    assert platform_formats and "eos.running-config" in platform_formats
    assert list(registry) == names
    assert [name for name, fn in registry.items()] == names and all(
        callable(fn) for _, fn in registry.items()
    )


def _broken() -> NormalizerRegistry:
    registry = NormalizerRegistry()
    registry._pending["acme.config"] = EntryPoint(  # a third-party plugin whose module is gone
        name="acme.config", value="acme_auditor_plugin.missing:normalize", group="auditor.normalizers"
    )
    return registry


def test_a_broken_plugin_fails_its_captures_not_the_run() -> None:
    registry = _broken()
    assert "acme.config" in registry
    with pytest.raises(PluginError, match=r"acme\.config"):
        registry.get("acme.config")
    capture = RawCapture(
        target="sw1",
        format="acme.config",
        source="show config",
        origin="sw1:22",
        collected_at=datetime(2026, 1, 1, tzinfo=UTC),
        content=b"hostname sw1\n",
        meta={},
    )
    processed = process_capture(capture, registry)
    assert processed.capture.content == b"hostname sw1\n"  # the capture is still kept
    [problem] = processed.result.problems
    assert "acme.config" in problem.message and "acme_auditor_plugin" in problem.message

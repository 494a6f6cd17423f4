"""Exported evidence re-audits to the same facts: audit the lab, export run 1, audit the export.

This is the mechanism that proves a live audit lands the same facts as an offline audit of the same
captures: whatever the collector, the stored captures exported by `auditor evidence export` and read
back by the offline collector must normalize to identical facts, target by target and kind by kind.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from auditor.enums import FactKind
from auditor.store.engine import open_store
from auditor.store.reader import RunReader
from tests.e2e.conftest import run_cli


def _facts(db: Path, run_id: int = 1) -> dict[str, list[str]]:
    """`auditor facts`-style data per kind (target + record), ids and evidence pointers left out."""
    reader = RunReader(open_store(f"sqlite:///{db}"), run_id)
    out: dict[str, list[str]] = defaultdict(list)
    for kind in FactKind:
        for row in reader.raw_facts(kind):
            out[kind.value].append(json.dumps({"target": row.target, "data": row.data}, sort_keys=True))
    return {k: sorted(v) for k, v in out.items()}


def _targets(db: Path) -> list[tuple[Any, ...]]:
    reader = RunReader(open_store(f"sqlite:///{db}"), 1)
    return sorted((t.kind, t.name, t.platform, t.tier, t.role, t.status) for t in reader.targets())


def test_export_then_offline_audit_gives_identical_facts(lab: Path, tmp_path: Path) -> None:
    first = run_cli("audit", "-c", str(lab / "auditor.yaml"), "--quiet", "-f", "json")
    assert first.returncode == 1, first.stdout + first.stderr  # the lab has planted violations

    export_dir = tmp_path / "exported"
    exported = run_cli("evidence", "export", "--run", "1", str(export_dir), "-c", str(lab / "auditor.yaml"))
    assert exported.returncode == 0, exported.stdout + exported.stderr
    files = sorted(export_dir.rglob("*.captures.jsonl"))
    assert {f.parent.name for f in files} >= {"device", "aws", "kubernetes", "flow-logs"}
    assert "exported" in exported.stdout

    config = yaml.safe_load((lab / "auditor.yaml").read_text())
    config["sources"] = {"files": [str(export_dir)]}
    config["store"] = f"sqlite:///{tmp_path / 'replay.db'}"
    config["output"] = str(tmp_path / "replay-out")
    replay_cfg = tmp_path / "replay.yaml"
    replay_cfg.write_text(yaml.safe_dump(config))
    second = run_cli("audit", "-c", str(replay_cfg), "--quiet", "-f", "json")
    assert second.returncode == first.returncode, second.stdout + second.stderr

    original, replay = lab / ".auditor" / "auditor.db", tmp_path / "replay.db"
    assert _targets(replay) == _targets(original)
    want, got = _facts(original), _facts(replay)
    assert set(got) == set(want)
    for kind in want:
        assert got[kind] == want[kind], f"{kind} facts differ after the export round trip"
    assert sum(len(v) for v in want.values()) > 100

    # the replayed captures are the same bytes, and say where they were read from
    line = json.loads(files[0].read_text().splitlines()[0])
    assert set(line) >= {
        "format",
        "source",
        "origin",
        "collected_at",
        "meta",
        "content",
        "target",
        "target_kind",
    }
    replay_reader = RunReader(open_store(f"sqlite:///{replay}"), 1)
    original_reader = RunReader(open_store(f"sqlite:///{original}"), 1)
    a = sorted((c.format, c.source, c.content_sha256) for c in original_reader.captures(with_content=False))
    b = sorted((c.format, c.source, c.content_sha256) for c in replay_reader.captures(with_content=False))
    assert a == b
    origins = [c.origin for c in replay_reader.captures(with_content=False)]
    assert all(".captures.jsonl:" in o for o in origins)


def test_captures_file_lines_bad_and_binary(tmp_path: Path) -> None:
    """A bad line is a Problem naming the file and line; binary content comes back byte for byte."""
    from datetime import UTC, datetime

    from auditor.config.loader import load_config
    from collectors.export import capture_line, file_for
    from collectors.offline.collector import OfflineFilesCollector

    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    path = file_for(tmp_path / "ev", "device", "leaf/1")
    path.parent.mkdir(parents=True)
    good = capture_line(
        target="leaf/1",
        target_kind="device",
        fmt="sonic.config-db",
        source="show runningconfiguration all",
        origin="leaf1:22",
        collected_at=when,
        meta={"device": "leaf/1", "platform": "sonic"},
        content=b"{}",
        target_info={"platform": "sonic"},
    )
    binary = capture_line(
        target="leaf/1",
        target_kind="device",
        fmt="aws.flowlog",
        source="s3 get",
        origin="o",
        collected_at=when,
        meta={},
        content=b"\x1f\x8b\x00\xff",
    )
    path.write_text("\n".join([good, "{not json", binary, '{"target": "x"}']) + "\n")
    assert path.name == "leaf%2F1.captures.jsonl"
    cfg = tmp_path / "a.yaml"
    cfg.write_text(f"intent: {{tiers: {{}}}}\nsources: {{files: [{tmp_path / 'ev'}]}}\n")
    collector = OfflineFilesCollector()
    plan = collector.plan(load_config(cfg))
    assert (plan.problems[0].line, "not a JSON object" in plan.problems[0].message) == (2, True)
    assert plan.problems[1].line == 4 and "missing" in plan.problems[1].message
    assert all(p.origin.endswith("leaf%2F1.captures.jsonl") for p in plan.problems)
    [target] = plan.targets
    assert (target.kind.value, target.name, target.platform) == ("device", "leaf/1", "sonic")
    captures = list(collector.collect(target))
    assert [c.content for c in captures] == [b"{}", b"\x1f\x8b\x00\xff"]  # type: ignore[union-attr]
    first = captures[0]
    assert first.origin.endswith(".captures.jsonl:1") and first.collected_at == when  # type: ignore[union-attr]
    assert first.meta == {"device": "leaf/1", "platform": "sonic"}  # type: ignore[union-attr]

"""A live audit against moto gives the same facts as the offline audit of what it captured, and the
flow-log records read live are those the offline normalizer reads from the same objects."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from auditor.capture import RawCapture
from auditor.config.loader import load_config
from auditor.enums import FactKind
from auditor.evidence.verify import verify_run
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from auditor.store.reader import RunReader
from collectors.normalizers.flowlogs import normalize_flow_log
from tests.aws_live.scenario import REGION, Estate

AWS_KINDS = {k for k in FactKind if k.value.startswith("aws_")}


def _audit(tmp: Path, name: str, sources: dict[str, Any]) -> tuple[Any, int]:
    config = {
        "intent": {
            "tiers": {"frontend": {"cidrs": ["10.20.0.0/16"]}, "backend": {"cidrs": ["10.30.0.0/16"]}}
        },
        "sources": sources,
        "store": f"sqlite:///{tmp / (name + '.db')}",
        "output": str(tmp / name),
        "reports": ["json"],
    }
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    cfg = load_config(path)
    engine = open_store(cfg.store_url())
    outcome = run_audit(cfg, engine=engine, render=False)
    return engine, outcome.run_id


def _facts(engine: Any, run_id: int, kinds: set[FactKind]) -> dict[FactKind, list[str]]:
    out: dict[FactKind, list[str]] = defaultdict(list)
    for stored in RunReader(engine, run_id).facts(kinds):
        out[stored.record.kind].append(json.dumps(stored.record.to_json(), sort_keys=True))
    return {k: sorted(v) for k, v in out.items()}


def _coverage(engine: Any, run_id: int) -> set[tuple[str, str]]:
    return {
        (s.record.target, s.record.covers.value)
        for s in RunReader(engine, run_id).facts({FactKind.COVERAGE})
        if s.record.covers in AWS_KINDS
    }


def test_live_audit_equals_offline_audit(estate: Estate, moto_endpoint: str, tmp_path: Path) -> None:
    live = {"aws": [{"name": estate.account, "regions": [REGION], "endpoint_url": moto_endpoint}]}
    engine, run_id = _audit(tmp_path, "live", live)
    reader = RunReader(engine, run_id)
    (target,) = reader.targets()
    assert target.name == f"{estate.account}/{REGION}" and target.status in ("ok", "partial")
    # export what was captured, as a user would keep `aws ec2 describe-* --output json` files
    export = tmp_path / "evidence" / REGION
    export.mkdir(parents=True)
    captures = list(reader.captures())
    for cap in captures:
        if cap.format == "aws.describe":
            (export / f"{cap.seq:04d}.json").write_bytes(cap.content)
    offline = {"files": [{"path": str(tmp_path / "evidence"), "account": estate.account}]}
    off_engine, off_run = _audit(tmp_path, "offline", offline)
    live_facts = _facts(engine, run_id, AWS_KINDS)
    assert set(live_facts) == AWS_KINDS  # every kind of AWS fact came out of the estate
    assert live_facts == _facts(off_engine, off_run, AWS_KINDS)
    assert _coverage(engine, run_id) == _coverage(off_engine, off_run)
    # spot checks of what the estate holds
    by_kind = {k: [json.loads(x) for x in v] for k, v in live_facts.items()}
    (lock,) = [d for d in by_kind[FactKind.AWS_FLOW_LOG_DESTINATION] if d["destination_type"] == "s3"]
    assert (
        lock["object_lock_enabled"],
        lock["object_lock_mode"],
        lock["object_lock_days"],
        lock["versioning"],
    ) == (True, "COMPLIANCE", 400, "Enabled")
    (group,) = [
        d for d in by_kind[FactKind.AWS_FLOW_LOG_DESTINATION] if d["destination_type"] == "cloud-watch-logs"
    ]
    assert group["retention_days"] == 365
    (table,) = [
        t for t in by_kind[FactKind.AWS_TGW_ROUTE_TABLE] if t["route_table_id"] == estate.ids["tgw_rtb"]
    ]
    assert table["associations"] == [estate.ids["tgw_att_fe"]]
    assert table["propagations"] == [estate.ids["tgw_att_be"]]
    routes = {r["destination"]: r for r in table["routes"]}
    assert routes["10.250.0.0/16"]["state"] == "blackhole"
    assert (routes["10.30.0.0/16"]["type"], routes["10.30.0.0/16"]["state"]) == ("static", "active")
    # (moto leaves a route's TransitGatewayAttachments empty; the normalizer tests read real ones)
    attachments = {a["attachment_id"]: a for a in by_kind[FactKind.AWS_TGW_ATTACHMENT]}
    tables = {t["route_table_id"] for t in by_kind[FactKind.AWS_TGW_ROUTE_TABLE]}
    assert attachments[estate.ids["tgw_att_fe"]]["route_table_id"] in tables
    assert attachments[estate.ids["tgw_att_be"]]["resource_id"] == estate.ids["vpc_be"]
    eni = next(e for e in by_kind[FactKind.AWS_NETWORK_INTERFACE] if e["interface_id"] == estate.ids["eni"])
    assert eni["security_groups"] == [estate.ids["sg"]] and eni["subnet_id"] == estate.ids["subnet_fe"]
    # flow-log objects are chained by hash and URI only, and the run verifies
    objects = [c for c in captures if c.format == "aws.flowlog.object"]
    assert {c.content for c in objects} == {None}
    assert all(c.content_uri for c in objects)
    assert verify_run(engine, run_id).ok
    _flow_records_match_offline(estate, engine, run_id, objects)


def _flow_records_match_offline(estate: Estate, engine: Any, run_id: int, objects: list[Any]) -> None:
    """The S3 flow log's window, read live (one aggregate), equals the objects read offline one by one."""
    s3_objects = [c for c in objects if c.content_uri.startswith("s3://")]
    assert len(s3_objects) == len(estate.s3_objects)  # the object outside the window was not read
    for cap in s3_objects:
        key = cap.content_uri.split("/", 3)[3].split("?")[0]
        assert cap.content_sha256 == hashlib.sha256(estate.s3_objects[key]).hexdigest()
    totals: dict[tuple[Any, ...], dict[str, Any]] = {}
    stats: dict[str, int] = defaultdict(int)
    problems: list[tuple[str, int | None]] = []
    for key, body in estate.s3_objects.items():
        capture = RawCapture("t", "aws.flowlog", "file", key, collected_at=None, content=body)  # type: ignore[arg-type]
        result = normalize_flow_log(capture)
        problems += [(p.origin, p.line) for p in result.problems]
        for fact in result.facts:
            if fact.kind == FactKind.FLOW_LOG_STATS:
                for name in ("files", "records", "accepted", "rejected", "nodata", "skipdata", "malformed"):
                    stats[name] += getattr(fact, name)
                continue
            row = fact.to_json()
            k = (row["src_addr"], row["dst_addr"], row["dst_port"], row["protocol"], row["action"])
            if k not in totals:
                totals[k] = row
            else:
                t = totals[k]
                t["packets"] += row["packets"]
                t["bytes"] += row["bytes"]
                t["records"] += row["records"]
                t["first_seen"] = min(t["first_seen"], row["first_seen"])
                t["last_seen"] = max(t["last_seen"], row["last_seen"])
                if t["interface_id"] != row["interface_id"]:
                    t["interface_id"] = None
    live = [s.record.to_json() for s in RunReader(engine, run_id).facts({FactKind.FLOW_CONVERSATION})]
    live_s3 = {
        (r["src_addr"], r["dst_addr"], r["dst_port"], r["protocol"], r["action"]): r
        for r in live
        if r["source"].startswith("s3://")
    }
    assert set(live_s3) == set(totals)
    for k, row in totals.items():
        want = {f: row[f] for f in ("packets", "bytes", "records", "first_seen", "last_seen", "interface_id")}
        assert {f: live_s3[k][f] for f in want} == want
    (live_stats,) = [
        s.record
        for s in RunReader(engine, run_id).facts({FactKind.FLOW_LOG_STATS})
        if s.record.source.startswith("s3://")
    ]
    for name, value in stats.items():
        assert getattr(live_stats, name) == value, name
    assert live_stats.malformed == 3 and live_stats.nodata > 0 and live_stats.skipdata > 0
    assert live_stats.window_start is not None and live_stats.window_end is not None
    # malformed lines are named with their object and line, live as offline
    live_problems = {
        (p.location.rsplit(":", 1)[0].split("/", 3)[3].split("?")[0], int(p.location.rsplit(":", 1)[1]))
        for p in RunReader(engine, run_id).problems()
        if "not a flow record" in p.message and p.location.startswith("s3://")
    }
    assert live_problems == {(o, line) for o, line in problems if line is not None}
    (cw_stats,) = [
        s.record
        for s in RunReader(engine, run_id).facts({FactKind.FLOW_LOG_STATS})
        if s.record.source.startswith("cloudwatch")
    ]
    assert cw_stats.records + cw_stats.nodata + cw_stats.skipdata + cw_stats.malformed == len(
        estate.cw_messages
    )
    assert cw_stats.malformed == 1

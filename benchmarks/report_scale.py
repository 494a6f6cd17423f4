# ruff: noqa: PLC0415  (the measured child imports the report stack itself, so its start-up is its own)
"""The auditor's evidence pack at fleet size (benchmark, not a test): time, peak memory, PDF pages (body
and appendices) and the sizes of the PDF and of the pack, at 200 and 2,000 devices.

    python benchmarks/report_scale.py --sizes 200,2000

For each size a sealed run is written to a temporary SQLite store from the synthetic fleet
(benchmarks/synthetic_fleet.py: its device, AWS, Kubernetes and flow-log facts, one capture per target
holding its facts as JSON lines, the checks' findings) with two earlier, smaller runs of the same scope
for the trend. Then, in a fresh process, `build_pack` makes the pack as `auditor pack` does (verify the
run, build the report data, render PDF, JSON and OSCAL, write the archive); its wall time and peak RSS
are that process's alone. The body is the pages before the first appendix's bookmark.

Targets (issue 12): the 2,000-device pack in under 60 s on this machine, the body under 150 pages."""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

SCOPE = "synthetic fleet (benchmarks/report_scale.py)"


def build_fleet_of(devices: int) -> Any:
    """The synthetic fleet with `devices` switches (5% OOB, 15% frontend, 5% spines, 75% leaves) and
    clouds, clusters and flow logs in proportion (at 2,000: synthetic_fleet.build_fleet(1))."""
    from fleet_base import BE_NET, FE_NET, Addresses, Fleet
    from fleet_cloud import aws_accounts, flow_logs, kubernetes_clusters
    from fleet_devices import backend_fabric, frontend_leaves, oob_switches

    fleet = Fleet()
    fe_addrs, be_addrs = Addresses(FE_NET, 1 << 16), Addresses(BE_NET)  # type: ignore[arg-type]
    oob_switches(fleet, devices // 20)
    frontend_leaves(fleet, devices * 3 // 20, fe_addrs)
    backend_fabric(fleet, devices // 20, devices * 3 // 4, be_addrs)
    aws_accounts(fleet, max(1, devices // 200), 500)
    kubernetes_clusters(fleet, max(1, devices // 400), 200)
    flow_logs(fleet, max(1, devices // 200), 5000)
    return fleet


def write_run(engine: Any, fleet: Any) -> int:
    """One sealed run of the fleet: targets, a capture per target (its facts as JSON lines), findings."""
    from fleet_base import INTENT
    from synthetic_fleet import iter_by_target

    from auditor.capture import RawCapture
    from auditor.enums import RunStatus, TargetStatus
    from auditor.pipeline.checking import evaluate_run, to_rows
    from auditor.store.writer import RunWriter
    from checks.base import check_registry

    config = {"scope": SCOPE, "intent": INTENT.model_dump(mode="json")}
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()
    writer = RunWriter.start(engine, config=config, config_sha256=digest, scope=SCOPE)
    views = {t.name: t for t in fleet.targets}
    for name, records in iter_by_target(fleet):
        view = views[name]
        tid = writer.add_target(
            kind=view.kind,
            name=name,
            platform=view.platform,
            tier=view.tier.value if view.tier else None,
            role=view.role,
        )
        content = "".join(r.model_dump_json() + "\n" for r in records).encode()
        capture = RawCapture(
            name, "synthetic.facts", "synthetic facts (benchmark)", name, datetime.now(UTC), content, {}
        )
        writer.ingest(tid, capture, redactions=0, redaction_kinds={}, facts=records)
        writer.finish_target(tid, TargetStatus.OK)
    checks = [c for _, c in check_registry().items()]
    writer.add_findings(to_rows(evaluate_run(engine, writer.run_id, checks)))
    writer.seal(RunStatus.COMPLETE)
    return writer.run_id


def setup(devices: int, db: Path) -> dict[str, Any]:
    """Two earlier runs (a tenth of the size) and the measured run, in one store."""
    from auditor.store.engine import open_store

    engine = open_store(f"sqlite:///{db}")
    started = time.perf_counter()
    for _ in range(2):
        write_run(engine, build_fleet_of(max(40, devices // 10)))
    fleet = build_fleet_of(devices)
    run_id = write_run(engine, fleet)
    engine.dispose()
    return {
        "run_id": run_id,
        "facts": len(fleet.facts),
        "targets": len(fleet.targets),
        "setup_s": time.perf_counter() - started,
    }


def measure(db: Path, run_id: int, out: Path) -> dict[str, Any]:
    """Make the pack as `auditor pack` does, in this (fresh) process; wall time and peak RSS."""
    started = time.perf_counter()
    from auditor.store.engine import open_store
    from reports.pack import build_pack

    engine = open_store(f"sqlite:///{db}")
    outcome = build_pack(engine, run_id, out, signer=None)
    wall = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "pack_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,  # what the wall time would be on an idle machine
        "load": os.getloadavg()[0],
        "peak_rss_mb": usage.ru_maxrss / 1024,
        "pack": str(outcome.path),
    }


def pdf_figures(pack: Path) -> dict[str, Any]:
    from pypdf import PdfReader

    with tarfile.open(pack) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("report/report.pdf"))
        extracted = tar.extractfile(member)
        assert extracted is not None
        pdf = extracted.read()
    reader = PdfReader(io.BytesIO(pdf))
    marks = [m for m in reader.outline if not isinstance(m, list)]
    first_appendix = min(
        (reader.get_destination_page_number(m) or 0) + 1 for m in marks if str(m.title).startswith("Appendix")
    )
    return {
        "pages": len(reader.pages),
        "body_pages": first_appendix - 1,
        "pdf_mb": len(pdf) / 2**20,
        "pack_mb": pack.stat().st_size / 2**20,
    }


def child(mode: str, args: list[str]) -> None:
    if mode == "setup":
        print(json.dumps(setup(int(args[0]), Path(args[1]))))
    else:
        print(json.dumps(measure(Path(args[0]), int(args[1]), Path(args[2]))))


def run_child(*argv: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, __file__, "--child", *argv], capture_output=True, text=True, check=False
    )
    if proc.returncode:
        raise SystemExit(f"child {argv[0]} failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="200,2000", help="device counts, comma-separated")
    ap.add_argument("--keep", type=Path, help="keep the stores in this directory and reuse them")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.child:
        child(ns.child[0], ns.child[1:])
        return
    rows = []
    for size in (int(s) for s in ns.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="report-scale-") as tmp:
            db = (ns.keep or Path(tmp)) / f"store-{size}.db"
            made_file = db.with_suffix(".json")
            if ns.keep and made_file.exists():
                made = json.loads(made_file.read_text())
            else:
                db.parent.mkdir(parents=True, exist_ok=True)
                db.unlink(missing_ok=True)
                made = run_child("setup", str(size), str(db))
                made_file.write_text(json.dumps(made))
            out = Path(tmp) / "out"
            out.mkdir()
            packed = run_child("measure", str(db), str(made["run_id"]), str(out))
            figures = pdf_figures(Path(packed["pack"]))
            row = {"devices": size, **made, **packed, **figures}
            row.pop("pack")
            rows.append(row)
            print(json.dumps(row), flush=True)
    print()
    head = ["devices", "facts", "wall s", "CPU s", "load", "peak MB", "pages", "body", "PDF MB", "pack MB"]
    print(" ".join(f"{h:>8}" for h in head))
    for r in rows:
        cells = [
            f"{r['devices']:,}",
            f"{r['facts']:,}",
            f"{r['pack_s']:.1f}",
            f"{r['cpu_s']:.1f}",
            f"{r['load']:.1f}",
            f"{r['peak_rss_mb']:.0f}",
            f"{r['pages']:,}",
            f"{r['body_pages']:,}",
            f"{r['pdf_mb']:.1f}",
            f"{r['pack_mb']:.1f}",
        ]
        print(" ".join(f"{c:>8}" for c in cells))


if __name__ == "__main__":
    main()

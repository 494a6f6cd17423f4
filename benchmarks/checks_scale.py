"""How the whole check suite scales: time and peak memory of every registered check on a synthetic fleet
of 2,000 switches (100,000 interfaces), 50,000 security-group rules and 5,000 Kubernetes policies (plus
VRFs, routes, BGP neighbours, namespaces, pods, flows in proportion), at 1x and 4x that fleet; and,
separately, the store round trip of those facts (bulk insert, then read back as typed facts) on SQLite.

Usage: python benchmarks/checks_scale.py [--scales 1,4] [--no-store] [--no-tracemalloc] [--json out.json]

Each scale runs in its own process so peak RSS is that scale's. Targets: the suite under 10 s at 1x, and
at most 5x the 1x time for 4x the data (no worse than linear growth). Per-check times are printed so a
slow check is visible by name."""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from synthetic_fleet import INTENT, Fleet, build_fleet, counts, iter_by_target

from auditor.capture import RawCapture
from auditor.enums import RunStatus, TargetStatus
from auditor.facts import FactRecord
from auditor.store.engine import open_store
from auditor.store.reader import RunReader, StoredFact
from auditor.store.writer import RunWriter
from checks.base import Check, CheckContext, FactView, Finding, check_registry
from checks.runner import run_checks

TARGET_1X_SECONDS = 10.0
MAX_GROWTH = 5.0  # 4x data may take at most 5x the time


class TimedCheck(Check):
    """Wraps a registered check to time its evaluate(); the runner still does everything else."""

    def __init__(self, inner: Check, times: dict[str, float]) -> None:
        self.inner = inner
        self.meta = inner.meta  # type: ignore[misc]
        self.times = times

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        start = time.perf_counter()
        try:
            return list(self.inner.evaluate(ctx))
        finally:
            self.times[self.meta.id] = time.perf_counter() - start


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _stored(fleet: Fleet) -> list[StoredFact[FactRecord]]:
    sha = "0" * 64
    return [StoredFact(i, r.kind, t, 1, sha, r) for i, (t, r) in enumerate(fleet.facts, start=1)]


def run_suite(fleet: Fleet, trace: bool, skip: set[str]) -> dict[str, Any]:
    checks = [c for cid, c in check_registry().items() if cid not in skip]
    stored = _stored(fleet)
    t = time.perf_counter()
    ctx = CheckContext(intent=INTENT, facts=FactView(stored), targets=tuple(fleet.targets))
    factview_s = time.perf_counter() - t
    times: dict[str, float] = {}
    rss_before = _rss_mb()
    t = time.perf_counter()
    verdicts = run_checks(ctx, [TimedCheck(c, times) for c in checks])
    total_s = time.perf_counter() - t
    rss_after = _rss_mb()
    per_check: dict[str, dict[str, Any]] = {}
    for v in verdicts:
        entry = per_check.setdefault(v.meta.id, {"seconds": times.get(v.meta.id, 0.0), "statuses": Counter()})
        entry["statuses"][v.finding.status.value] += 1
    out: dict[str, Any] = {
        "checks": len(checks),
        "skipped": sorted(skip),
        "findings": len(verdicts),
        "factview_seconds": factview_s,
        "suite_seconds": total_s,
        "rss_peak_mb": rss_after,
        "rss_growth_mb": max(0.0, rss_after - rss_before),
        "per_check": {
            k: {"seconds": v["seconds"], "statuses": dict(v["statuses"])} for k, v in per_check.items()
        },
    }
    del verdicts
    if trace:  # a second pass: tracemalloc slows allocation, so it is never timed
        tracemalloc.start()
        run_checks(ctx, checks)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out["suite_peak_alloc_mb"] = peak / 2**20
    return out


def store_round_trip(fleet: Fleet) -> dict[str, Any]:
    """Facts bulk-inserted the way the pipeline does (one capture per target), then read back typed."""
    with tempfile.TemporaryDirectory() as tmp:
        engine = open_store(f"sqlite:///{Path(tmp) / 'bench.db'}")
        writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope="bench")
        t = time.perf_counter()
        for name, records in iter_by_target(fleet):
            tid = writer.add_target(kind="device", name=name)
            capture = RawCapture(name, "synthetic", "synthetic", name, datetime.now(UTC), name.encode(), {})
            writer.ingest(tid, capture, redactions=0, redaction_kinds={}, facts=records)
            writer.finish_target(tid, TargetStatus.OK)
        insert_s = time.perf_counter() - t
        t = time.perf_counter()
        seal = writer.seal(RunStatus.COMPLETE)
        seal_s = time.perf_counter() - t
        t = time.perf_counter()
        back = RunReader(engine, writer.run_id).facts()
        read_s = time.perf_counter() - t
        size_mb = (Path(tmp) / "bench.db").stat().st_size / 2**20
        engine.dispose()
    assert len(back) == len(fleet.facts) == seal.fact_count
    return {
        "rows": len(back),
        "insert_seconds": insert_s,
        "seal_seconds": seal_s,
        "read_seconds": read_s,
        "db_mb": size_mb,
    }


def child(scale: int, store: bool, trace: bool, skip: set[str]) -> dict[str, Any]:
    t = time.perf_counter()
    fleet = build_fleet(scale)
    result: dict[str, Any] = {
        "scale": scale,
        "build_seconds": time.perf_counter() - t,
        "counts": counts(fleet),
    }
    result["facts"] = len(fleet.facts)
    result["targets"] = len(fleet.targets)
    result["rss_after_build_mb"] = _rss_mb()
    result["suite"] = run_suite(fleet, trace, skip)
    if store:
        result["store"] = store_round_trip(fleet)
    return result


def report(results: list[dict[str, Any]]) -> None:
    base = results[0]
    c = base["counts"]
    print(
        f"fleet at 1x: {c['device']:,} switches, {c['interface']:,} interfaces, "
        f"{c['(security-group rules)']:,} SG rules, {c['k8s_network_policy']:,} k8s policies, "
        f"{base['facts']:,} facts in all"
    )
    print(f"{'scale':>5} {'facts':>10} {'suite s':>8} {'FactView s':>10} {'peak alloc MB':>13} {'RSS MB':>8}"
          f" {'insert s':>9} {'read s':>7} {'db MB':>7}")  # fmt: skip
    for r in results:
        s, st = r["suite"], r.get("store", {})
        print(
            f"{r['scale']:>4}x {r['facts']:>10,} {s['suite_seconds']:>8.2f} {s['factview_seconds']:>10.2f} "
            f"{s.get('suite_peak_alloc_mb', float('nan')):>13.0f} {s['rss_peak_mb']:>8.0f} "
            f"{st.get('insert_seconds', float('nan')):>9.1f} {st.get('read_seconds', float('nan')):>7.1f} "
            f"{st.get('db_mb', float('nan')):>7.0f}"
        )
    print("\nper check, slowest first (seconds):")
    ids = sorted(base["suite"]["per_check"], key=lambda i: -base["suite"]["per_check"][i]["seconds"])
    header = "".join(f"{str(r['scale']) + 'x':>10}" for r in results)
    print(f"{'check':34}{header}  growth  findings at 1x")
    for cid in ids:
        row = [r["suite"]["per_check"].get(cid, {}).get("seconds", float("nan")) for r in results]
        growth = row[-1] / row[0] if row[0] > 0.001 and len(row) > 1 else float("nan")
        statuses = base["suite"]["per_check"][cid]["statuses"]
        findings = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
        print(f"{cid:34}{''.join(f'{x:>10.3f}' for x in row)}  {growth:>6.1f}  {findings}")
    if base["suite"]["skipped"]:
        print(f"\nleft out (--skip): {', '.join(base['suite']['skipped'])}")
    one = base["suite"]["suite_seconds"]
    verdict = "OK" if one < TARGET_1X_SECONDS else "OVER"
    print(f"\n1x suite {one:.2f} s: {verdict} (target < {TARGET_1X_SECONDS} s)")
    for r in results[1:]:
        ratio = r["suite"]["suite_seconds"] / one
        data = r["facts"] / base["facts"]
        verdict = "OK" if ratio <= MAX_GROWTH * data / 4 else "WORSE THAN LINEAR"
        print(f"{r['scale']}x suite {r['suite']['suite_seconds']:.2f} s = {ratio:.1f}x the 1x time for "
              f"{data:.1f}x the facts: {verdict} (at most {MAX_GROWTH * data / 4:.1f}x)")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scales", default="1,4")
    ap.add_argument("--no-store", action="store_true", help="skip the SQLite round trip")
    ap.add_argument("--no-tracemalloc", action="store_true", help="skip the peak-allocation pass")
    ap.add_argument("--skip", default="", help="comma-separated check ids to leave out (named in the output)")
    ap.add_argument("--json", type=Path, help="write the raw results here")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        skip = {s for s in args.skip.split(",") if s}
        print(json.dumps(child(args.child, not args.no_store, not args.no_tracemalloc, skip)))
        return
    results = []
    for scale in (int(s) for s in args.scales.split(",")):
        cmd = [sys.executable, __file__, "--child", str(scale)]
        cmd += ["--no-store"] if args.no_store else []
        cmd += ["--no-tracemalloc"] if args.no_tracemalloc else []
        cmd += ["--skip", args.skip] if args.skip else []
        print(f"running {scale}x ...", file=sys.stderr, flush=True)
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            sys.exit(f"{scale}x failed:\n{proc.stderr[-4000:]}")
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        if args.json:  # after each scale, so a later failure keeps what was measured
            args.json.write_text(json.dumps(results, indent=2))
    report(results)


if __name__ == "__main__":
    main()

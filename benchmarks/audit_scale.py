"""The whole `auditor audit` at scale: time and peak memory per stage and in all, on SQLite and PostgreSQL.

Generates a fabric of N switches as offline files plus a config (audit_fabric.py), then runs the real
CLI command in-process (`auditor audit -c ... -q`, every report format, console output to a file) with
the pipeline's stages timed by wrapping the functions they call. Each (N, store) runs in its own process,
so peak memory is that run's. CPU seconds (the process's, all threads) are printed beside the wall time:
on a shared machine they say what the audit itself cost. Peak memory per stage is the process's peak
resident set during that stage (Linux: VmHWM, reset at each stage start through /proc/self/clear_refs).

Usage: python benchmarks/audit_scale.py [--sizes 200,2000] [--stores sqlite,postgresql] [--with-10k]
       [--profile STAGE] [--json out.json]

Stages: collect (offline reading, redaction, normalisation and store ingest, with the cumulative time of
its parts: process = redact + normalise in the workers, ingest = the store writes, digest = the running
facts digest), facts = reading the facts back for the checks, checks, findings = waivers and storing the
findings, seal, report = building the report data, one stage per format, console. Targets (issue 14): 2,000
switches under 60 s end to end; 10,000 under 5 minutes and 8 GiB; no worse than N log N from 2,000 to
10,000."""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import functools
import io
import json
import math
import pstats
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from audit_fabric import generate, split
from sqlalchemy import create_engine, text

import auditor.cli.render
import auditor.pipeline.audit as audit
import auditor.pipeline.checking as checking
import auditor.pipeline.collect as collect
import reports.base
import reports.render
from auditor.cli.app import app, load_commands
from auditor.store.engine import open_store
from auditor.store.running_digest import RunningFactsDigest
from auditor.store.writer import RunWriter

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
FORMATS = ["json", "csv", "junit", "oscal", "pdf", "html"]


def _hwm_mb() -> float:
    m = re.search(r"VmHWM:\s+(\d+)", Path("/proc/self/status").read_text())
    return int(m.group(1)) / 1024 if m else float("nan")


def _reset_hwm() -> None:
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


class Stages:
    """Top-level stages (time and peak RSS, in order) and cumulative parts (time only, any thread)."""

    def __init__(self, profile: str | None) -> None:
        self.stages: list[dict[str, Any]] = []
        self.parts: dict[str, float] = {}
        self._lock = threading.Lock()
        self._depth = 0
        self.profile_stage = profile
        self.profile_text = ""

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        if self._depth:  # nested in another stage: count it as a part
            with self.part(name):
                yield
            return
        self._depth += 1
        _reset_hwm()
        prof = cProfile.Profile() if name == self.profile_stage else None
        t, cpu = time.perf_counter(), time.process_time()
        try:
            if prof:
                prof.enable()
            yield
        finally:
            if prof:
                prof.disable()
                out = io.StringIO()
                pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(35)
                pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(25)
                self.profile_text += out.getvalue()
            self.stages.append(
                {
                    "stage": name,
                    "seconds": time.perf_counter() - t,
                    "cpu": time.process_time() - cpu,
                    "peak_mb": _hwm_mb(),
                }
            )
            self._depth -= 1

    @contextlib.contextmanager
    def part(self, name: str) -> Iterator[None]:
        t = time.perf_counter()
        try:
            yield
        finally:
            with self._lock:
                self.parts[name] = self.parts.get(name, 0.0) + time.perf_counter() - t


def _wrap(owner: Any, attr: str, ctx: Callable[[], Any]) -> None:
    inner = getattr(owner, attr)

    @functools.wraps(inner)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with ctx():
            return inner(*args, **kwargs)

    setattr(owner, attr, wrapper)


def instrument(st: Stages) -> None:
    _wrap(audit, "collect_targets", lambda: st.stage("collect"))
    _wrap(collect, "process_capture", lambda: st.part("collect.process"))
    _wrap(RunWriter, "ingest", lambda: st.part("collect.ingest"))
    _wrap(RunningFactsDigest, "advance", lambda: st.part("digest"))
    _wrap(checking, "load_context", lambda: st.stage("facts"))
    _wrap(checking, "run_checks", lambda: st.stage("checks"))
    _wrap(audit, "apply_waivers", lambda: st.stage("findings"))
    _wrap(RunWriter, "add_findings", lambda: st.stage("findings"))
    _wrap(RunWriter, "seal", lambda: st.stage("seal"))
    _wrap(reports.render, "build_report_data", lambda: st.stage("report"))
    _wrap(auditor.cli.render, "print_outcome", lambda: st.stage("console"))
    registry = reports.base.report_registry

    def timed_registry() -> Any:
        reg = registry()

        class Timed:
            def __init__(self, fmt: str) -> None:
                self.inner = reg.get(fmt)
                self.fmt = fmt
                self.extension = self.inner.extension

            def render(self, data: Any, path: Path) -> Path:
                with st.stage(f"report.{self.fmt}"):
                    return self.inner.render(data, path)

        class Proxy:
            def get(self, fmt: str) -> Any:
                return Timed(fmt)

        return Proxy()

    setattr(reports.render, "report_registry", timed_registry)  # noqa: B010


def _merge(stages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per stage name (findings is two calls), in first-seen order."""
    out: dict[str, dict[str, Any]] = {}
    for s in stages:
        row = out.setdefault(s["stage"], {"stage": s["stage"], "seconds": 0.0, "cpu": 0.0, "peak_mb": 0.0})
        row["seconds"] += s["seconds"]
        row["cpu"] += s["cpu"]
        row["peak_mb"] = max(row["peak_mb"], s["peak_mb"])
    return list(out.values())


def child(n: int, store: str, profile: str | None, keep: Path | None, formats: list[str]) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix=f"audit-scale-{n}-"))
    root = keep or tmp / "fabric"
    db_name = None
    if store == "sqlite":
        url = f"sqlite:///{tmp / 'store.db'}"
    else:
        db_name = f"h8_audit_scale_{uuid.uuid4().hex[:10]}"
        admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{db_name}"'))
        url = PG_ADMIN.rsplit("/", 1)[0] + f"/{db_name}"
    try:
        t = time.perf_counter()
        config = generate(root, n, url, formats)
        gen_s = time.perf_counter() - t
        files = sum(1 for p in (root / "evidence").rglob("*") if p.is_file())
        open_store(url).dispose()  # the schema, outside the measured run
        load_commands()
        st = Stages(profile)
        instrument(st)
        console_out = tmp / "console.txt"
        _reset_hwm()
        t, cpu = time.perf_counter(), time.process_time()
        with open(console_out, "w") as fh, contextlib.redirect_stdout(fh):
            code = app(["audit", "-c", str(config), "-q"], standalone_mode=False) or 0
        total_s, total_cpu = time.perf_counter() - t, time.process_time() - cpu
        peak = max([s["peak_mb"] for s in st.stages] + [_hwm_mb()])
        engine = create_engine(url)
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT check_id, status, count(*) FROM findings GROUP BY 1, 2"))
            findings = {f"{c} {s}": int(k) for c, s, k in rows}
            facts = int(conn.execute(text("SELECT count(*) FROM facts")).scalar_one())
        engine.dispose()
        return {
            "n": n,
            "store": store,
            "files": files,
            "generate_seconds": gen_s,
            "exit_code": code,
            "total_seconds": total_s,
            "total_cpu": total_cpu,
            "peak_mb": peak,
            "stages": _merge(st.stages),
            "parts": st.parts,
            "facts": facts,
            "findings": findings,
            "console_lines": sum(1 for _ in open(console_out)),
            "console_mb": console_out.stat().st_size / 2**20,
            "profile": st.profile_text,
        }
    finally:
        if db_name:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)'))
        shutil.rmtree(tmp, ignore_errors=True)


def report(results: list[dict[str, Any]]) -> None:
    for r in results:
        oob, fe, spines, leaves = split(r["n"])
        print(
            f"\n== {r['n']:,} switches ({oob} OOB, {fe} frontend, {spines} spines, {leaves} backend leaves; "
            f"{r['files']:,} files, generated in {r['generate_seconds']:.1f} s, {r['facts']:,} facts, "
            f"{sum(r['findings'].values()):,} findings) on {r['store']}: "
            f"{r['total_seconds']:.1f} s, peak {r['peak_mb']:.0f} MB, exit {r['exit_code']}; console "
            f"{r['console_lines']:,} lines ({r['console_mb']:.1f} MB)"
        )
        print(f"   {'stage':18}{'seconds':>9}{'CPU s':>9}{'peak MB':>9}")
        for s in r["stages"]:
            print(f"   {s['stage']:18}{s['seconds']:>9.2f}{s['cpu']:>9.2f}{s['peak_mb']:>9.0f}")
        print(f"   {'total':18}{r['total_seconds']:>9.2f}{r['total_cpu']:>9.2f}{r['peak_mb']:>9.0f}")
        fails = {k[:-5]: v for k, v in sorted(r["findings"].items()) if k.endswith(" FAIL")}
        print(f"   failing: {', '.join(f'{k} {v}' for k, v in fails.items())}")
        for name, secs in sorted(r["parts"].items()):
            print(f"   ({name}: {secs:.2f} s cumulative)")
        if r.get("profile"):
            print(r["profile"])
    by = {(r["n"], r["store"]): r for r in results}
    for store in ("sqlite", "postgresql"):
        two, ten = by.get((2000, store)), by.get((10000, store))
        if two:
            ok = "OK" if two["total_seconds"] < 60 else "OVER"
            print(f"{store}: 2,000 switches {two['total_seconds']:.1f} s: {ok} (target < 60 s)")
        if ten:
            ok = "OK" if ten["total_seconds"] < 300 and ten["peak_mb"] < 8192 else "OVER"
            print(f"{store}: 10,000 switches {ten['total_seconds']:.1f} s, {ten['peak_mb']:.0f} MB: {ok}")
        if two and ten:
            bound = 5 * math.log(10000) / math.log(2000)
            ratio = ten["total_seconds"] / two["total_seconds"]
            print(f"{store}: 10,000/2,000 time {ratio:.1f}x (N log N allows {bound:.1f}x)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="200,2000")
    ap.add_argument("--stores", default="sqlite,postgresql")
    ap.add_argument("--with-10k", action="store_true", help="add N = 10,000 (several minutes per store)")
    ap.add_argument("--profile", help="cProfile this stage (e.g. collect, checks, report.pdf)")
    ap.add_argument("--keep", type=Path, help="generate the fabric here and keep it (one size only)")
    ap.add_argument("--formats", default=",".join(FORMATS), help="report formats (default: all)")
    ap.add_argument("--json", type=Path, help="write the raw results here")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        n, store = args.child.split(":")
        print(json.dumps(child(int(n), store, args.profile, args.keep, args.formats.split(","))))
        return
    sizes = [int(s) for s in args.sizes.split(",")] + ([10000] if args.with_10k else [])
    results = []
    for n in sizes:
        for store in args.stores.split(","):
            cmd = [sys.executable, __file__, "--child", f"{n}:{store}"]
            cmd += ["--profile", args.profile] if args.profile else []
            cmd += ["--keep", str(args.keep)] if args.keep else []
            cmd += ["--formats", args.formats]
            print(f"running {n:,} switches on {store} ...", file=sys.stderr, flush=True)
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                sys.exit(f"{n} on {store} failed:\n{proc.stderr[-4000:]}")
            results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
            if args.json:
                args.json.write_text(json.dumps(results, indent=2))
    report(results)


if __name__ == "__main__":
    main()

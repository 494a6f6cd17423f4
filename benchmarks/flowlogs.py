"""Flow-log ingest benchmark: the auditor's engine against DuckDB and polars querying the same files.

    python benchmarks/flowlogs.py [--records 10000000] [--files 10] [--dir /tmp/flowlog-bench] [--runs 1]

Generates gzip files of default version-2 records (S3 layout: a header line, a realistic mix of hosts,
ports, NODATA/SKIPDATA), then, each in a fresh process so peak memory is its own:
  1. DuckDB direct (typed): one GROUP BY over read_csv of all files with the engine's typed column spec
     (sql.Layout.columns_sql: USMALLINT port, UTINYINT protocol, UBIGINT counts and times, ENUM action
     and status), the rows fetched into Python: the ceiling;
  2. DuckDB direct (sniffed): the same query with read_csv's own type detection (the earlier baseline);
  3. polars: read_csv of each file (separator ' ', '-' as null, the same typed schema), concatenated,
     the same group_by; its conversations and records are asserted equal to DuckDB's;
  4. the auditor: FlowLogEngine.aggregate + the facts it makes (totals_facts, what live collection
     runs), on all files;
  5. the auditor on the first file only (1/N of the records): memory must not grow with the records.
Prints wall and CPU seconds (CPU: every thread of the process, time.process_time), records/s, peak RSS,
and the auditor's throughput ratio to DuckDB direct (typed) and to polars, by wall time and by CPU time.
The machine is shared: CPU time is the steadier figure; `uptime` load is printed before and after.
Not a test: a measurement to report.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import polars as pl

from collectors.flowlogs.engine import FlowLogEngine, iter_objects
from collectors.flowlogs.facts import totals_facts
from collectors.flowlogs.fields import DEFAULT_FIELDS
from collectors.flowlogs.sql import Layout

HEADER = (
    "version account-id interface-id srcaddr dstaddr srcport dstport protocol packets bytes start end "
    "action log-status"
)


def generate(directory: Path, records: int, files: int, seed: int = 7) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / f"flows-{i:02d}.log.gz" for i in range(files)]
    marker = directory / f"done-v2-{records}-{files}"
    if marker.exists():
        return paths
    rng = random.Random(seed)
    # Clients talk to servers on their service ports: conversations saturate as records grow, as in a
    # real VPC (the ephemeral source port is not part of a conversation).
    clients = [
        f"10.{rng.randrange(20, 32)}.{rng.randrange(256)}.{rng.randrange(1, 255)}" for _ in range(2000)
    ]
    clients += ["203.0.113.7", "198.51.100.23", "2001:db8::5", "2001:db8::10"]
    servers = [
        (f"10.30.{rng.randrange(256)}.{rng.randrange(1, 255)}", rng.choice([22, 53, 443, 2049, 4791, 6443]))
        for _ in range(50)
    ]
    per_file = records // files
    # One file is generated; the others are copies (the same conversations recurring, as over a day).
    for index, path in enumerate(paths[:1]):
        with gzip.open(path, "wt", compresslevel=6) as out:
            out.write(HEADER + "\n")
            batch = []
            t0 = 1_700_000_000 + index * 600
            for i in range(per_file):
                t = t0 + i // 2000
                roll = rng.random()
                if roll < 0.01:
                    batch.append(
                        f"2 123456789012 eni-{rng.randrange(64):017x} - - - - - - - {t} {t + 60} - NODATA"
                    )
                elif roll < 0.012:
                    batch.append(
                        f"2 123456789012 eni-{rng.randrange(64):017x} - - - - - - - {t} {t + 60} - SKIPDATA"
                    )
                else:
                    server, port = rng.choice(servers)
                    batch.append(
                        f"2 123456789012 eni-{rng.randrange(64):017x} {rng.choice(clients)} {server} "
                        f"{rng.randrange(1024, 65535)} {port} {rng.choice((6, 17))} "
                        f"{rng.randrange(1, 200)} {rng.randrange(40, 200000)} {t} {t + rng.randrange(1, 60)} "
                        f"{'ACCEPT' if rng.random() < 0.8 else 'REJECT'} OK"
                    )
                if len(batch) >= 50_000:
                    out.write("\n".join(batch) + "\n")
                    batch = []
            if batch:
                out.write("\n".join(batch) + "\n")
    for path in paths[1:]:
        path.write_bytes(paths[0].read_bytes())
    marker.write_text("ok")
    return paths


# One scan, as the auditor does: conversations of OK records, and a row per NODATA/SKIPDATA status.
DIRECT_SQL = """SELECT log_status, srcaddr, dstaddr, dstport, protocol, action, count(*), sum(packets),
    sum(bytes), min(start), max("end"), min(interface_id), max(interface_id) FROM {source} GROUP BY ALL"""


def run_direct(paths: list[str], *, typed: bool = True) -> dict[str, float]:
    con = duckdb.connect()
    files = ", ".join(f"'{p}'" for p in paths)
    start, cpu = time.perf_counter(), time.process_time()
    if typed:  # the engine's typed column spec, enums included
        con.execute("CREATE TYPE fl_action AS ENUM ('ACCEPT', 'REJECT')")
        con.execute("CREATE TYPE fl_status AS ENUM ('OK', 'NODATA', 'SKIPDATA')")
        columns = Layout(DEFAULT_FIELDS, has_header=True).columns_sql()
        source = (
            f"read_csv([{files}], delim=' ', header=true, nullstr='-', auto_detect=false, columns={columns})"
        )
    else:  # read_csv's own detection (names as in the header, hence the renaming)
        renamed = ", ".join(f'"{f}" AS {f.replace("-", "_")}' for f in DEFAULT_FIELDS)
        source = f"(SELECT {renamed} FROM read_csv([{files}], delim=' ', header=true, nullstr='-'))"
    rows = con.execute(DIRECT_SQL.format(source=source)).fetchall()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "seconds": seconds,
        "cpu": cpu,
        "records": sum(r[6] for r in rows),
        "conversations": sum(1 for r in rows if r[0] == "OK"),
    }


def run_polars(paths: list[str]) -> dict[str, float]:
    types = {"dstport": pl.UInt16, "protocol": pl.UInt8, "packets": pl.UInt64, "bytes": pl.UInt64}
    types |= {"start": pl.UInt64, "end": pl.UInt64}
    schema = pl.Schema({f: types.get(f, pl.String) for f in DEFAULT_FIELDS})
    used = ["interface-id", "srcaddr", "dstaddr", "dstport", "protocol", "packets", "bytes", "start", "end"]
    used += ["action", "log-status"]
    keys = ["log-status", "srcaddr", "dstaddr", "dstport", "protocol", "action"]
    start, cpu = time.perf_counter(), time.process_time()
    frames = [
        pl.read_csv(
            p, separator=" ", null_values="-", schema=schema, has_header=True, quote_char=None, columns=used
        )
        for p in paths
    ]
    out = (
        pl.concat(frames)
        .group_by(keys)
        .agg(
            pl.len().alias("n"),
            pl.col("packets").sum(),
            pl.col("bytes").sum(),
            pl.col("start").min(),
            pl.col("end").max(),
            pl.col("interface-id").min().alias("i0"),
            pl.col("interface-id").max().alias("i1"),
        )
    )
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "seconds": seconds,
        "cpu": cpu,
        "records": int(out["n"].sum()),
        "conversations": int((out["log-status"] == "OK").sum()),
    }


def run_auditor(paths: list[str]) -> dict[str, float]:
    start, cpu = time.perf_counter(), time.process_time()
    with FlowLogEngine() as engine:
        totals = engine.aggregate(list(iter_objects([Path(p) for p in paths])))
    facts = totals_facts(totals, "bench")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    records = totals.records + totals.nodata + totals.skipdata + totals.malformed
    return {"seconds": seconds, "cpu": cpu, "records": records, "conversations": len(facts) - 1}


def child(mode: str, paths: list[str]) -> None:
    runners = {
        "direct": run_direct,
        "sniffed": lambda p: run_direct(p, typed=False),
        "polars": run_polars,
        "auditor": run_auditor,
    }
    result = runners[mode](paths)
    result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def measure(mode: str, paths: list[Path]) -> dict[str, float]:
    # the engine of this checkout (a worktree of an older commit measures that commit), not whichever
    # one an editable install points to
    root = str(Path(__file__).resolve().parents[1])
    env = os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH"))))}
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, *map(str, paths)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=10_000_000)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/flowlog-bench"))
    parser.add_argument("--runs", type=int, default=1, help="measure this many times (the machine is shared)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1:])
        return
    t = time.perf_counter()
    paths = generate(args.dir, args.records, args.files)
    print(
        f"{args.records:,} records in {args.files} gzip files "
        f"({sum(p.stat().st_size for p in paths) / 2**20:.0f} MiB), ready in {time.perf_counter() - t:.0f} s"
    )
    print(f"load before: {_load()}")
    names = {
        "direct": "DuckDB typed",
        "sniffed": "DuckDB sniffed",
        "polars": "polars",
        "auditor": "auditor",
        "one": "auditor, 1 file",
    }
    for run in range(1, args.runs + 1):
        results = {mode: measure(mode, paths) for mode in ("direct", "sniffed", "polars", "auditor")}
        results["one"] = measure("auditor", paths[:1])
        direct, polars, auditor = results["direct"], results["polars"], results["auditor"]
        for other in ("sniffed", "polars", "auditor"):  # every contender found the same
            got = results[other]
            assert (got["conversations"], got["records"]) == (direct["conversations"], direct["records"]), (
                other,
                got,
                direct,
            )
        print(f"run {run} of {args.runs}")
        for mode, r in results.items():
            print(
                f"  {names[mode]:16} {r['records']:>12,.0f} records {r['seconds']:7.2f} s wall "
                f"{r['cpu']:7.2f} s CPU {r['records'] / r['seconds']:>12,.0f} records/s  "
                f"peak RSS {r['peak_rss_mib']:6.0f} MiB  {r['conversations']:,.0f} conversations"
            )
        for label, base, target in (("DuckDB typed", direct, "1.0x"), ("polars", polars, f"{1 / 1.2:.2f}x")):
            wall = base["seconds"] / auditor["seconds"]
            cpu = base["cpu"] / auditor["cpu"]
            print(
                f"  auditor / {label}: {wall:.2f}x by wall time, {cpu:.2f}x by CPU time (target >= {target})"
            )
        print(
            f"  peak memory {results['one']['records']:,.0f} -> {auditor['records']:,.0f} records: "
            f"{results['one']['peak_rss_mib']:.0f} -> {auditor['peak_rss_mib']:.0f} MiB "
            "(target < 2048 MiB, flat)"
        )
    print(f"load after: {_load()}")


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min) on {os.cpu_count()} CPUs"


if __name__ == "__main__":
    main()

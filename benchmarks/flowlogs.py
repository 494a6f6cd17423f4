"""Flow-log ingest benchmark: the auditor's engine against DuckDB querying the same files directly.

    python benchmarks/flowlogs.py [--records 10000000] [--files 10] [--dir /tmp/flowlog-bench]

Generates gzip files of default version-2 records (S3 layout: a header line, a realistic mix of hosts,
ports, NODATA/SKIPDATA), then, each in a fresh process so peak memory is its own:
  1. DuckDB direct: one GROUP BY over read_csv of all files (the ceiling);
  2. the auditor: FlowLogEngine.aggregate + the facts it makes (what live collection runs), on all files;
  3. the auditor on the first file only (1/N of the records): memory must not grow with the records.
Prints records/s, the ratio to DuckDB direct, and peak RSS. Not a test: a measurement to report.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from collectors.flowlogs.engine import FlowLogEngine, iter_objects
from collectors.flowlogs.facts import totals_facts

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


def run_direct(paths: list[str]) -> dict[str, float]:
    con = duckdb.connect()
    files = ", ".join(f"'{p}'" for p in paths)
    start = time.perf_counter()
    # One scan, as the auditor does: conversations of OK records, and a row per NODATA/SKIPDATA status.
    rows = con.execute(
        f"""SELECT "log-status", srcaddr, dstaddr, dstport, protocol, action, count(*), sum(packets),
                   sum(bytes), min(start), max("end"), min("interface-id"), max("interface-id")
            FROM read_csv([{files}], delim=' ', header=true, nullstr='-') GROUP BY ALL"""
    ).fetchall()
    seconds = time.perf_counter() - start
    records = sum(r[6] for r in rows)
    return {"seconds": seconds, "records": records, "conversations": sum(1 for r in rows if r[0] == "OK")}


def run_auditor(paths: list[str]) -> dict[str, float]:
    start = time.perf_counter()
    with FlowLogEngine() as engine:
        totals = engine.aggregate(list(iter_objects([Path(p) for p in paths])))
    facts = totals_facts(totals, "bench")
    seconds = time.perf_counter() - start
    records = totals.records + totals.nodata + totals.skipdata + totals.malformed
    return {"seconds": seconds, "records": records, "conversations": len(facts) - 1}


def child(mode: str, paths: list[str]) -> None:
    result = run_direct(paths) if mode == "direct" else run_auditor(paths)
    result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def measure(mode: str, paths: list[Path]) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, *map(str, paths)],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=10_000_000)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/flowlog-bench"))
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
    direct = measure("direct", paths)
    auditor = measure("auditor", paths)
    one = measure("auditor", paths[:1])
    assert direct["conversations"] == auditor["conversations"], (direct, auditor)
    for name, r in (("DuckDB direct", direct), ("auditor", auditor), ("auditor, 1 file", one)):
        print(
            f"{name:16} {r['records']:>12,.0f} records {r['seconds']:7.2f} s "
            f"{r['records'] / r['seconds']:>12,.0f} records/s  peak RSS {r['peak_rss_mib']:7.0f} MiB  "
            f"{r['conversations']:,.0f} conversations"
        )
    ratio = (auditor["records"] / auditor["seconds"]) / (direct["records"] / direct["seconds"])
    print(f"auditor / DuckDB direct throughput: {ratio:.2f}x (target >= 0.8x)")
    print(
        f"peak memory {one['records']:,.0f} -> {auditor['records']:,.0f} records: "
        f"{one['peak_rss_mib']:.0f} -> {auditor['peak_rss_mib']:.0f} MiB (target < 2048 MiB, flat)"
    )


if __name__ == "__main__":
    main()

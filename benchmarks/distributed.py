# ruff: noqa: PLC0415  (each process imports its own stack lazily, so start-up is measured apart)
"""Distributed collection against the local executor (benchmark, not a test).

    python benchmarks/distributed.py --devices 1000 --delay 0.05 --slots 16 --workers 1,2,4

One server process (tests.devsim.serve) emulates N EOS switches over eAPI, each adding `--delay` to every
command. Every mode audits the whole fleet into a fresh PostgreSQL database of its own:

  local        `run_audit` with the local thread executor at `--slots` threads (one process)
  celery-W     `run_audit --executor celery`: W `auditor worker` processes of `--slots` threads each,
               on the broker (RabbitMQ by default; `--broker redis://...` for Redis)

Each run is its own process (the coordinator) and its workers are processes of their own; all of them,
the device server, PostgreSQL and the broker share this machine. Start-up (imports, NAPALM) is paid
before timing, by the coordinator and by each worker, as `auditor audit` pays it once.

Figures: collection wall time (from the first task sent to the last target stored), whole-audit wall
time (plus checks and seal), devices/s, and the broker's overhead per task: the coordinator's time to
publish one task, and the extra slot-seconds per task of Celery with one worker against the local
executor at the same number of slots: (wall_celery1 - wall_local) x slots / N.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
PASSWORD = "audit-pass"
PG_ADMIN = os.environ.get("AUDITOR_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _warm_up() -> None:
    """What the first device costs a fresh process (imports of NAPALM's EOS driver and the registries)."""
    import napalm.eos  # noqa: F401

    from auditor.normalize import normalizer_registry
    from auditor.pipeline.audit import run_audit  # noqa: F401
    from checks.base import check_registry
    from collectors.base import collector_registry
    from collectors.network import session  # noqa: F401

    normalizer_registry(), collector_registry(), check_registry()


def _config(fleet: dict[str, Any], store: str, tmp: Path) -> Any:
    from auditor.config.models import AuditConfig

    devices = [
        {
            "host": "127.0.0.1",
            "name": d["name"],
            "port": d["port"],
            "platform": fleet["platform"],
            "ca_file": fleet["ca_file"],
            "credentials": {"username": d["username"], "password_env": "BENCH_PASSWORD"},
        }
        for d in fleet["devices"]
    ]
    return AuditConfig.model_validate(
        {
            "sources": {"devices": devices},
            "collection": {"connect_timeout": 60, "command_timeout": 120, "retries": 0},
            "store": store,
            "reports": ["json"],
            "output": str(tmp / "out"),
        }
    ).model_copy(update={"base_dir": tmp})


def child(args: argparse.Namespace) -> None:
    """The coordinator of one mode, in a fresh process: warm up, then one timed audit; prints JSON."""
    os.environ["BENCH_PASSWORD"] = PASSWORD
    from auditor.pipeline import collect as collect_module
    from auditor.pipeline.audit import run_audit
    from auditor.store.engine import open_store

    _warm_up()
    fleet = json.loads(Path(args.fleet).read_text())
    engine = open_store(args.store)
    timed: dict[str, float] = {}
    executor: Any = None
    if args.mode != "local":
        from auditor.distributed.coordinator import CeleryCollect

        executor = CeleryCollect(args.broker, args.queue, Path(args.tmp))
    inner = executor or collect_module.collect_targets

    def timed_collect(*a: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return inner(*a, **kw)
        finally:
            timed["collect_s"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    outcome = run_audit(
        _config(fleet, args.store, Path(args.tmp)),
        engine=engine,
        render=False,
        workers=args.slots,
        collect=timed_collect,
    )
    wall = time.perf_counter() - t0
    statuses: dict[str, int] = {}
    with engine.connect() as conn:
        from sqlalchemy import text

        for status, n in conn.execute(
            text("SELECT status, count(*) FROM targets WHERE run_id = :r GROUP BY status"),
            {"r": outcome.run_id},
        ):
            statuses[str(status)] = int(n)
    print(
        json.dumps(
            {
                "audit_s": wall,
                "collect_s": timed["collect_s"],
                "publish_s": getattr(executor, "published_s", 0.0),
                "captures": outcome.seal.capture_count,
                "facts": outcome.seal.fact_count,
                "status": outcome.seal.status.value,
                "targets": statuses,
            }
        )
    )


def worker_main(args: argparse.Namespace) -> None:
    """One `auditor worker`, warmed up first (as a long-running worker is after its first target)."""
    os.environ["BENCH_PASSWORD"] = PASSWORD
    _warm_up()
    from auditor.distributed.worker import run_worker

    print("warm", flush=True)
    sys.exit(run_worker(args.broker, args.store, concurrency=args.slots, queue=args.queue))


def _database() -> tuple[str, Any]:
    from sqlalchemy import create_engine, text

    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    name = f"auditor_bench_{uuid.uuid4().hex[:10]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = admin.url.set(database=name).render_as_string(hide_password=False)

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url, drop


def measure(mode: str, workers: int, fleet_file: Path, args: argparse.Namespace) -> dict[str, Any] | None:
    from auditor.store.engine import open_store

    store, drop = _database()
    open_store(store).dispose()  # migrated before timing, as a team's store is
    queue = f"auditor-bench-{uuid.uuid4().hex[:8]}"
    procs: list[subprocess.Popen[str]] = []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for i in range(workers):
                log = Path(tmp) / f"worker-{i}.log"
                procs.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            __file__,
                            "--as-worker",
                            "--broker",
                            args.broker,
                            "--store",
                            store,
                            "--queue",
                            queue,
                            "--slots",
                            str(args.slots),
                        ],
                        stdout=subprocess.PIPE,
                        stderr=log.open("w"),
                        text=True,
                        cwd=REPO,
                        env=env,
                    )
                )
            for p in procs:  # each prints "warm" once its imports are done
                assert p.stdout is not None
                if p.stdout.readline().strip() != "warm":
                    raise RuntimeError(f"worker failed: {(Path(tmp) / 'worker-0.log').read_text()[-2000:]}")
            time.sleep(2 if workers else 0)  # connected to the broker and consuming
            cmd = [sys.executable, __file__, "--child", mode, "--fleet", str(fleet_file), "--store", store]
            cmd += ["--tmp", tmp, "--slots", str(args.slots), "--broker", args.broker, "--queue", queue]
            proc = subprocess.run(
                cmd, check=False, capture_output=True, text=True, cwd=REPO, env=env, timeout=7200
            )
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
            drop()
            _delete_queue(args.broker, queue)
    if proc.returncode != 0:
        print(f"{mode} failed:\n{proc.stderr[-3000:]}", file=sys.stderr)
        return None
    fig: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    fig.update(mode=mode, worker_processes=workers, slots=args.slots * max(1, workers))
    return fig


def _delete_queue(broker: str, queue: str) -> None:
    """Leave no queue behind on the broker (RabbitMQ keeps a durable queue, and what is left in it)."""
    from kombu.connection import Connection

    with Connection(broker) as conn:  # type: ignore[no-untyped-call]
        conn.default_channel.queue_delete(queue)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", type=int, default=1000)
    ap.add_argument("--delay", type=float, default=0.05, help="seconds each emulated command takes")
    ap.add_argument("--slots", type=int, default=16, help="threads of the local executor and of each worker")
    ap.add_argument("--workers", default="1,2,4", help="worker processes of each Celery mode")
    ap.add_argument(
        "--broker", default=os.environ.get("AUDITOR_BROKER", "amqp://guest:guest@127.0.0.1:5672//")
    )
    ap.add_argument("--no-local", action="store_true")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--as-worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--fleet", help=argparse.SUPPRESS)
    ap.add_argument("--store", help=argparse.SUPPRESS)
    ap.add_argument("--tmp", help=argparse.SUPPRESS)
    ap.add_argument("--queue", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        args.mode = args.child
        child(args)
        return
    if args.as_worker:
        worker_main(args)
        return
    from collect_fleet import start_fleet, stop_fleet

    modes = ([] if args.no_local else [("local", 0)]) + [
        (f"celery-{w}", int(w)) for w in args.workers.split(",") if w
    ]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        fleet_file = Path(tmp) / "fleet.json"
        t0 = time.perf_counter()
        server = start_fleet("eos", args.devices, args.delay, fleet_file)
        print(f"{args.devices} emulated EOS devices up in {time.perf_counter() - t0:.1f} s", flush=True)
        try:
            for mode, workers in modes:
                fig = measure(mode, workers, fleet_file, args)
                if fig is None:
                    continue
                fig["devices_per_s"] = args.devices / fig["collect_s"]
                rows.append(fig)
                print(
                    f"{mode:9s} processes={workers or 1} slots={fig['slots']:3d} "
                    f"collect={fig['collect_s']:7.1f}s audit={fig['audit_s']:7.1f}s "
                    f"{fig['devices_per_s']:6.1f} dev/s "
                    f"publish={fig['publish_s'] * 1000 / args.devices:.2f} ms/task "
                    f"captures={fig['captures']} targets={fig['targets']}",
                    flush=True,
                )
        finally:
            stop_fleet(server)
    local = next((r for r in rows if r["mode"] == "local"), None)
    one = next((r for r in rows if r["mode"] == "celery-1"), None)
    if local and one:
        ratio = one["collect_s"] / local["collect_s"]
        overhead = (one["collect_s"] - local["collect_s"]) * args.slots / args.devices
        print(
            f"celery-1 / local = {ratio:.2f}x (target <= 1.2x); broker overhead "
            f"{overhead * 1000:.0f} ms of a slot per task, publishing "
            f"{one['publish_s'] * 1000 / args.devices:.2f} ms per task"
        )
    print(json.dumps({"devices": args.devices, "delay": args.delay, "broker": args.broker, "rows": rows}))


if __name__ == "__main__":
    main()

# ruff: noqa: PLC0415, PLW1510  (each mode imports its own stack lazily, so start-up is measured apart)
"""Live collection at fleet scale, against emulated devices on loopback (benchmark, not a test).

    python benchmarks/collect_fleet.py --sizes 50,200,500 --delay 0.5 --platform eos

One server process (tests.devsim.serve) emulates N devices of one NAPALM platform (EOS over eAPI by
default; `--platform ios` or `nxos_ssh` for SSH), each adding a fixed delay to every command. Each mode
runs in its own client process, so its peak memory (ru_maxrss) is its own:

  sequential   the auditor's collector, one device after another (measured on a sample, extrapolated)
  auditor-16   `run_audit` (collect, redact, hash-chain, normalize, store, check) at the default 16
  auditor-64   the same at 64 workers
  collector-64 the collection layer alone at 64 workers (no redaction, normalizers or store)
  nornir-64    Nornir + nornir_napalm at 64 workers, same getters and show commands, no store

Ideal = N x commands-per-device x delay / workers (commands counted by the device server), and never
less than one device's commands one after another (commands-per-device x delay): a device's commands
are serial, so with fewer devices than workers the run cannot end before its slowest device.

Start-up (imports, plugin registries: what `auditor audit` does before its first connection; Nornir's
and NAPALM's imports for Nornir) is measured apart; `total` = start-up + wall is the whole command.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PASSWORD = "audit-pass"


def start_fleet(platform: str, count: int, delay: float, out: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.devsim.serve",
            "--platform",
            platform,
            "--count",
            str(count),
            "--delay",
            str(delay),
            "--out",
            str(out),
        ],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line.strip() != "ready":
        raise RuntimeError(f"device server failed: {line}")
    return proc


def stop_fleet(proc: subprocess.Popen[str]) -> int:
    out, _ = proc.communicate("", timeout=60)
    last = [ln for ln in out.splitlines() if ln.startswith("{")]
    return int(json.loads(last[-1])["commands_received"]) if last else 0


def _config(fleet: dict[str, Any], tmp: Path, workers: int) -> Any:
    from auditor.config.models import AuditConfig

    devices = [
        {
            "host": "127.0.0.1",
            "name": d["name"],
            "port": d["port"],
            "platform": fleet["platform"],
            "known_hosts": fleet["known_hosts"],
            "ca_file": fleet["ca_file"],
            "credentials": {"username": d["username"], "password_env": "BENCH_PASSWORD"},
        }
        for d in fleet["devices"]
    ]
    return AuditConfig.model_validate(
        {
            "sources": {"devices": devices},
            "collection": {"workers": workers, "connect_timeout": 30, "command_timeout": 60, "retries": 0},
            "store": f"sqlite:///{tmp / 'bench.db'}",
            "reports": ["json"],
            "output": str(tmp / "out"),
        }
    )


def run_sequential(fleet: dict[str, Any], tmp: Path, workers: int) -> dict[str, Any]:
    from collectors.network.collector import DeviceCollector

    collector = DeviceCollector()
    failed = 0
    sample = int(os.environ.get("BENCH_SEQUENTIAL_SAMPLE", "0")) or len(fleet["devices"])
    fleet = {**fleet, "devices": fleet["devices"][:sample]}
    for target in collector.plan(_config(fleet, tmp, 1)).targets:
        try:
            for _ in collector.collect(target):
                pass
        except Exception:
            failed += 1
    return {"failed": failed}


def run_collector(fleet: dict[str, Any], tmp: Path, workers: int) -> dict[str, Any]:
    """The collection layer alone (guarded sessions in a pool, no redaction, normalizing or store)."""
    from concurrent.futures import ThreadPoolExecutor

    from collectors.network.collector import DeviceCollector

    collector = DeviceCollector()

    def one(target: Any) -> int:
        return sum(1 for _ in collector.collect(target))

    with ThreadPoolExecutor(workers) as pool:
        captures = sum(pool.map(one, collector.plan(_config(fleet, tmp, workers)).targets))
    return {"captures": captures}


def run_auditor(fleet: dict[str, Any], tmp: Path, workers: int) -> dict[str, Any]:
    from auditor.pipeline.audit import run_audit

    cfg = _config(fleet, tmp, workers)
    outcome = run_audit(cfg, workers=workers, render=False)
    return {
        "run_id": outcome.run_id,
        "captures": outcome.seal.capture_count,
        "facts": outcome.seal.fact_count,
    }


def run_nornir(fleet: dict[str, Any], tmp: Path, workers: int) -> dict[str, Any]:
    import yaml
    from nornir import InitNornir
    from nornir.core.task import Result, Task
    from nornir_napalm.plugins.tasks import napalm_cli, napalm_get

    from collectors.network.commands import NAPALM_DRIVER, NAPALM_GETTERS, commands_for

    platform = fleet["platform"]
    hosts = {
        d["name"]: {
            "hostname": "127.0.0.1",
            "port": d["port"],
            "username": d["username"],
            "password": PASSWORD,
            "platform": NAPALM_DRIVER[platform],
        }
        for d in fleet["devices"]
    }
    (tmp / "hosts.yaml").write_text(yaml.safe_dump(hosts))
    (tmp / "defaults.yaml").write_text(
        yaml.safe_dump(
            {
                "connection_options": {
                    "napalm": {
                        "extras": {
                            "timeout": 60,
                            "optional_args": {
                                "ssh_strict": True,
                                "alt_host_keys": True,
                                "alt_key_file": fleet["known_hosts"],
                            },
                        }
                    }
                }
            }
        )
    )
    (tmp / "groups.yaml").write_text("{}\n")
    nr = InitNornir(
        runner={"plugin": "threaded", "options": {"num_workers": workers}},
        inventory={
            "plugin": "SimpleInventory",
            "options": {
                "host_file": str(tmp / "hosts.yaml"),
                "group_file": str(tmp / "groups.yaml"),
                "defaults_file": str(tmp / "defaults.yaml"),
            },
        },
        logging={"enabled": False},
    )
    cmds = ["show running-config", *(c.command for c in commands_for(platform))]

    def collect(task: Task) -> Result:
        task.run(task=napalm_get, getters=list(NAPALM_GETTERS))
        task.run(task=napalm_cli, commands=cmds)
        return Result(host=task.host)

    result = nr.run(task=collect)
    nr.close_connections()
    return {"failed": len(result.failed_hosts)}


MODES = {
    "sequential": (run_sequential, 1),
    "auditor-16": (run_auditor, 16),
    "auditor-64": (run_auditor, 64),
    "collector-64": (run_collector, 64),
    "nornir-64": (run_nornir, 64),
}


def child(mode: str, fleet_file: Path) -> None:
    """Runs one mode in this (fresh) process and prints its figures as JSON."""
    os.environ["BENCH_PASSWORD"] = PASSWORD
    fleet = json.loads(fleet_file.read_text())
    fn, workers = MODES[mode]
    t0 = time.perf_counter()
    _warm_up(mode)  # imports and plugin registries: a fixed start-up cost, reported apart
    startup = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        extra = fn(fleet, Path(tmp), workers)
        wall = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_SELF)
    peak, cpu = usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime  # cpu: start-up included
    print(
        json.dumps(
            {
                "mode": mode,
                "workers": workers,
                "wall_s": wall,
                "startup_s": startup,
                "cpu_s": cpu,
                "peak_mb": peak,
                **extra,
            }
        )
    )


def _warm_up(mode: str) -> None:
    if mode.startswith("nornir"):
        import nornir  # noqa: F401
        import nornir_napalm.plugins.tasks  # noqa: F401
    else:
        from auditor.normalize import normalizer_registry
        from auditor.pipeline.audit import run_audit  # noqa: F401
        from checks.base import check_registry
        from collectors.base import collector_registry

        # As `auditor audit` does: normalizers are registered, and imported when their captures arrive.
        normalizer_registry(), collector_registry(), check_registry()
    import napalm.ios  # noqa: F401


def measure(mode: str, n: int, args: argparse.Namespace) -> dict[str, Any] | None:
    """Serve n devices, run `mode` against them in a fresh process, return its figures."""
    with tempfile.TemporaryDirectory() as tmp:
        fleet_file = Path(tmp) / "fleet.json"
        server = start_fleet(args.platform, n, args.delay, fleet_file)
        env = {**os.environ, "BENCH_SEQUENTIAL_SAMPLE": str(args.sequential_sample)}
        try:
            proc = subprocess.run(
                [sys.executable, __file__, "--child", mode, "--fleet", str(fleet_file)],
                capture_output=True,
                text=True,
                cwd=REPO,
                timeout=3600,
                env=env,
            )
        finally:
            commands = stop_fleet(server)
    if proc.returncode != 0:
        print(f"{mode} N={n} failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
        return None
    fig: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    fig["commands"] = commands
    return fig


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="50,200,500")
    ap.add_argument("--delay", type=float, default=0.5, help="seconds each emulated command takes")
    ap.add_argument("--platform", default="eos")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument(
        "--sequential-sample",
        type=int,
        default=10,
        help="sequential runs this many devices once; its rate is extrapolated to each N",
    )
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--fleet", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.fleet)
        return
    rows = []
    modes = args.modes.split(",")
    sizes = [int(x) for x in args.sizes.split(",")]
    seq = measure("sequential", args.sequential_sample, args) if "sequential" in modes else None
    for n in sizes:
        for mode in modes:
            if mode == "sequential":
                if seq is None:
                    continue
                fig = dict(seq)
                per_device = seq["commands"] / args.sequential_sample
                fig["wall_s"] = seq["wall_s"] * n / args.sequential_sample
                fig["extrapolated_from"] = args.sequential_sample
            else:
                got = measure(mode, n, args)
                if got is None:
                    continue
                fig = got
                per_device = fig["commands"] / n
            ideal = max(n * per_device * args.delay / fig["workers"], per_device * args.delay)
            fig.update(
                n=n,
                commands_per_device=round(per_device, 1),
                ideal_s=ideal,
                x_ideal=fig["wall_s"] / ideal,
                devices_per_s=n / fig["wall_s"],
                total_s=fig["wall_s"] + fig["startup_s"],
            )
            rows.append(fig)
            note = (
                f" (rate of {args.sequential_sample} devices, extrapolated)"
                if "extrapolated_from" in fig
                else ""
            )
            print(
                f"N={n:4d} {mode:12s} workers={fig['workers']:3d} wall={fig['wall_s']:7.1f}s "
                f"ideal={ideal:6.1f}s ({fig['x_ideal']:.2f}x) {fig['devices_per_s']:6.2f} dev/s "
                f"peak={fig['peak_mb']:5.0f} MB  cmds/dev={per_device:.0f}  "
                f"start-up {fig['startup_s']:.1f}s total {fig['total_s']:.1f}s cpu {fig['cpu_s']:.1f}s{note}",
                flush=True,
            )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()

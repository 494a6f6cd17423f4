"""Serve N emulated devices from their own process (benchmarks): `python -m tests.devsim.serve
--platform ios --count 500 --delay 0.05 --out fleet.json`. Writes the ports, the known_hosts file and
the CA file to --out, then serves until stdin closes."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from tests.devsim import profiles
from tests.devsim.sim import DevSim


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--platform", default="ios")
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, DevSim(Path(tmp)) as sim:
        build = profiles.BUILDERS[args.platform]
        devices = [sim.add(build(f"dev{i:04d}", delay=args.delay)) for i in range(args.count)]
        known = args.out.with_suffix(".known_hosts")
        known.write_text(sim.known_hosts().read_text())
        ca = args.out.with_suffix(".ca.pem")
        ca.write_bytes(sim.ca_file.read_bytes())
        args.out.write_text(
            json.dumps(
                {
                    "devices": [{"name": d.name, "port": d.port, "username": d.username} for d in devices],
                    "known_hosts": str(known),
                    "ca_file": str(ca),
                    "platform": args.platform,
                }
            )
        )
        print("ready", flush=True)
        sys.stdin.read()  # serve until the benchmark closes our stdin
        commands = sum(1 for _, c in sim.log.entries if c not in ("", "enable"))  # the ones that wait
        print(json.dumps({"commands_received": commands}), flush=True)
        os._exit(0)  # the benchmark is done with us: no need to close hundreds of servers one by one


if __name__ == "__main__":
    main()

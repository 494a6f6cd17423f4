"""How fast the CLI starts (issue 14 item 6: `--help`, `--version`, `checks list` and `reach k8s` on a
small directory in under 0.3 s): per command, the wall and CPU time of `python -m auditor ...` (best of
N fresh interpreters), the total import time `python -X importtime` reports, whether the heavy
libraries were imported, and the top cumulative top-level imports.

    python benchmarks/cli_startup.py [--repeat 7] [--top 8] [--repo PATH]

--repo measures another checkout of the project (e.g. an older commit unpacked with `git archive`), with
the installed dependencies: its directory goes first on PYTHONPATH. Wall time depends on the machine's
load (other processes on 2 cores); CPU time and import time much less, so all three are printed, with
`python -c pass` as the floor."""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SMALL_K8S = str(REPO / "tests" / "fixtures" / "k8s_semantics" / "engine" / "calico-networksets-profiles")
COMMANDS: dict[str, list[str]] = {
    "--help": ["--help"],
    "--version": ["--version"],
    "checks list": ["checks", "list"],
    "reach k8s": ["reach", "k8s", SMALL_K8S],
}
HEAVY = (
    "sqlalchemy",
    "alembic",
    "napalm",
    "netmiko",
    "boto3",
    "kubernetes",
    "reportlab",
    "duckdb",
    "celery",
    "pydantic",
    "detect_secrets",
    "networkx",
)
TARGET_S = 0.3
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float
    imports_ms: float
    top: list[tuple[str, float]]
    heavy: list[str]
    code: int


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(argv: list[str], repo: Path, importtime: bool) -> Sample:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")])}
    env.pop("AUDITOR_STORE", None)
    cmd = [sys.executable, *(["-X", "importtime"] if importtime else []), *argv]
    cpu0, wall0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, check=False, cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    wall, cpu = time.perf_counter() - wall0, _children_cpu() - cpu0
    rows = [m for m in map(_LINE.match, proc.stderr.splitlines()) if m]
    top_level = [(m[4], int(m[2]) / 1000) for m in rows if len(m[3]) == 1]
    names = {m[4] for m in rows}
    heavy = [h for h in HEAVY if h in names]
    top = sorted(top_level, key=lambda t: -t[1])
    return Sample(wall, cpu, sum(ms for _, ms in top_level), top, heavy, proc.returncode)


def measure(argv: list[str], repo: Path, repeat: int) -> tuple[Sample, Sample]:
    """(best wall/CPU without importtime, one importtime run for the import figures)."""
    timed = [run_once(argv, repo, importtime=False) for _ in range(repeat)]
    best = min(timed, key=lambda s: s.wall)
    cpu = min(s.cpu for s in timed)
    traced = run_once(argv, repo, importtime=True)
    return Sample(best.wall, cpu, 0.0, [], [], best.code), traced


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="fresh interpreters per command (best is kept)")
    parser.add_argument("--top", type=int, default=8, help="top cumulative imports shown per command")
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout to measure")
    args = parser.parse_args()
    repo = args.repo.resolve()
    floor, _ = measure(["-c", "pass"], repo, args.repeat)
    print(f"repo {repo}; load average {os.getloadavg()[0]:.2f}; best of {args.repeat}")
    print(f"python -c pass: wall {floor.wall:.3f} s, cpu {floor.cpu:.3f} s (the floor)")
    print(
        f"{'command':14} {'wall s':>7} {'cpu s':>7} {'imports ms':>10}  {'<0.3s':5}  heavy modules imported"
    )
    details = []
    for name, argv in COMMANDS.items():
        timed, traced = measure(["-m", "auditor", *argv], repo, args.repeat)
        ok = "yes" if timed.wall < TARGET_S else "no"
        print(
            f"{name:14} {timed.wall:7.3f} {timed.cpu:7.3f} {traced.imports_ms:10.0f}  {ok:5}  "
            f"{', '.join(traced.heavy) or '-'}  (exit {timed.code})"
        )
        details.append((name, traced))
    for name, traced in details:
        print(f"\n{name}: top cumulative imports (ms)")
        for module, ms in traced.top[: args.top]:
            print(f"  {ms:8.1f}  {module}")


if __name__ == "__main__":
    main()

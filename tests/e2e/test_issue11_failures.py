"""Failures named in issue 11 that had no test of their own.

- Crashes: SIGKILL or SIGTERM while the reports are rendered (after the seal) must leave a complete,
  verifiable run, and `auditor report --run N` must regenerate the reports it did not finish.
- Hostile input: redaction of a secret-heavy capture grows linearly with its size (1x against 8x, so a
  loaded machine cannot fail it: linear is about 8, quadratic about 64); a NetworkPolicy (not only a
  Secret) made of YAML aliases is refused fast instead of expanding into a huge fact.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from auditor.evidence.redact import REDACTED, RedactionRefused, redact
from auditor.evidence.redact_struct import MAX_EXPANDED
from auditor.store.engine import open_store
from tests.pipeline.test_crash_resume import BACKENDS, cli, small_lab, store_for, stored_counts, wait_for

REPO = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("report_crash_driver.py")


def _start(cfg: Path, tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    mark = tmp_path / "mark-reports"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p),
        "CRASH_STAGE": "reports",
        "CRASH_MARK": str(mark),
        "CRASH_STALL_SECONDS": "60",
        "CRASH_RELEASE": str(tmp_path / "release"),
    }
    proc = subprocess.Popen(
        [sys.executable, str(DRIVER), "audit", "-c", str(cfg), "-q", "--workers", "1"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return proc, mark


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_killed_while_rendering_reports_leaves_a_verifiable_run_and_report_regenerates(
    how: str, backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store = store_for(backend, tmp_path, request)
    cfg = small_lab(tmp_path, store)
    data = yaml.safe_load(cfg.read_text())
    data["reports"] = ["json", "csv"]
    cfg.write_text(yaml.safe_dump(data, sort_keys=False))
    out = Path(data["output"])
    proc, mark = _start(cfg, tmp_path)
    try:
        wait_for(mark, proc)
        assert (out / "run-1.json").exists() and not (out / "run-1.csv").exists()  # stalled mid-rendering
        first = json.loads((out / "run-1.json").read_text())
        proc.send_signal(signal.SIGKILL if how == "SIGKILL" else signal.SIGTERM)
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode != 0, output
    engine = open_store(store, migrate=False)
    captures, facts, findings = stored_counts(engine, 1)
    engine.dispose()
    listed = json.loads(cli("runs", "list", "--store", store, "--json").stdout)
    assert len(listed) == 1
    run = listed[0]
    assert run["status"] == first["run"]["status"] and run["status"] != "interrupted", run  # sealed before
    assert run["sealed"] is True
    assert (run["captures"], run["facts"], run["findings"]) == (captures, facts, findings)
    verified = cli("verify", "--store", store, "--run", "1")
    assert verified.exit_code == 0, verified.stdout
    again = tmp_path / "again"
    reported = cli("report", "--store", store, "--run", "1", "-f", "json", "-f", "csv", "-o", str(again))
    assert reported.exit_code == 0, reported.stdout
    assert (again / "run-1.csv").exists()
    second = json.loads((again / "run-1.json").read_text())
    assert second["findings"] == first["findings"]
    assert second["run"]["status"] == first["run"]["status"]
    assert "NOT VERIFIED" not in json.dumps(second["verification"])


def _secret_heavy(copies: int) -> bytes:
    """An EOS-like config dense with secrets of many kinds, a block repeated `copies` times."""
    block = "\n".join(
        [
            "username admin secret sha512 $6$abcdefgh$" + "A1b2C3d4" * 10,
            "snmp-server user ops grp v3 auth sha 0x1a2b3c4d5e6f7a8b9c0d priv aes 0x9f8e7d6c5b4a39281706",
            "tacacs-server host 10.0.0.9 key 7 070C285F4D06485744",
            "radius-server host 10.0.0.10 key 0 Pl4inRadius!",
            " neighbor 10.1.1.1 password 7 0822455D0A16544541",
            " ip ospf authentication-key 7 1511021F0725",
            "mac security",
            " profile P1",
            "  key 1234 7 0104115F0A070F245F5D1B1E0C1707",
            "management api http-commands",
            " ! https://deploy:S3cr3tPa55@git.example.net/repo.git",
            " ! token ghp_0123456789abcdefghijABCDEFGHIJ012345",
            " ! --token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2lnbmF0dXJl",
            "interface Ethernet1",
            "   description uplink " + "x" * 40,
            "   ip address 10.0.0.1/31",
        ]
    )
    return ("\n".join([block] * copies) + "\n").encode()


def _redact_seconds(content: bytes) -> tuple[float, bytes]:
    best = float("inf")
    out = b""
    for _ in range(2):  # the better of two runs: a busy shared CPU only ever slows one down
        start = time.perf_counter()
        out = redact(content, "eos.config", "x").content
        best = min(best, time.perf_counter() - start)
    return best, out


def test_redaction_of_a_secret_heavy_capture_grows_linearly() -> None:
    small, large = _secret_heavy(150), _secret_heavy(1200)
    t1, out1 = _redact_seconds(small)
    t8, out8 = _redact_seconds(large)
    assert REDACTED.encode() in out1
    assert out8.count(REDACTED.encode()) == 8 * out1.count(REDACTED.encode())  # every copy redacted alike
    assert b"Pl4inRadius!" not in out8 and b"S3cr3tPa55" not in out8
    ratio = t8 / max(t1, 1e-3)
    assert ratio < 24, f"1x {t1:.3f} s, 8x {t8:.3f} s: x{ratio:.1f} (linear ~8, quadratic ~64)"


def _alias_network_policy(size: int = 21_000) -> str:
    lines = [
        "apiVersion: networking.k8s.io/v1",
        "kind: NetworkPolicy",
        "metadata: {name: bomb, namespace: default}",
        "spec:",
        "  podSelector: {}",
        "  x0: &a0 [{ipBlock: {cidr: 10.0.0.0/8}}]",
    ]
    i = 1
    while sum(len(x) + 1 for x in lines) < size:
        lines.append(f"  x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
        i += 1
    lines.append(f"  ingress: [{{from: *a{i - 1}}}]")
    return "\n".join(lines) + "\n"


def test_a_network_policy_of_aliases_is_refused_fast_not_expanded() -> None:
    """Before: a 21 KB NetworkPolicy of YAML aliases became a 902 MB fact and ran out of memory."""
    text = _alias_network_policy()
    start = time.perf_counter()
    with pytest.raises(RedactionRefused) as refused:
        redact(text.encode(), "k8s.manifest", "evidence/k8s/bomb.yaml")
    assert time.perf_counter() - start < 5
    assert f"expand to more than {MAX_EXPANDED:,} nodes" in refused.value.reason
    assert refused.value.origin == "evidence/k8s/bomb.yaml"

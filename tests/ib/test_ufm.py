"""The `ufm` collector over real HTTPS to a local UFM stand-in with its own CA, and its normalizer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import yaml

from auditor.capture import RawCapture
from auditor.config.loader import load_config
from auditor.config.models import AuditConfig, Credentials, Sources, UfmSource
from auditor.enums import FactKind, TargetKind
from auditor.errors import CollectionError
from auditor.facts import IbPartition
from auditor.pipeline.audit import run_audit
from auditor.store.engine import open_store
from auditor.store.reader import RunReader
from collectors.ufm.collector import PKEYS_PATH, UfmCollector
from collectors.ufm.normalize import normalize_pkeys
from tests.ib.ufm_server import PKEYS, UfmStandIn, ufm_server

BODY = (Path(__file__).parent / "fixtures" / "ufm-pkeys.json").read_bytes()


@pytest.fixture
def ufm(tmp_path: Path) -> Iterator[UfmStandIn]:
    with ufm_server(tmp_path / "pki", BODY) as server:
        yield server


@pytest.fixture
def creds(monkeypatch: pytest.MonkeyPatch, ufm: UfmStandIn) -> Credentials:
    monkeypatch.setenv("UFM_TEST_USER", ufm.username)
    monkeypatch.setenv("UFM_TEST_PASS", ufm.password)
    return Credentials(username_env="UFM_TEST_USER", password_env="UFM_TEST_PASS")


def config(tmp_path: Path, *sources: UfmSource) -> AuditConfig:
    return AuditConfig(sources=Sources(ufm=list(sources)), base_dir=tmp_path)


def collect(cfg: AuditConfig) -> list[RawCapture]:
    collector = UfmCollector()
    plan = collector.plan(cfg)
    assert not plan.problems
    return [c for t in plan.targets for c in collector.collect(t) if isinstance(c, RawCapture)]


def test_registered_under_its_source_name() -> None:
    [entry] = [e for e in entry_points(group="auditor.collectors") if e.name == "ufm"]
    assert entry.load() is UfmCollector
    [normalizer] = [e for e in entry_points(group="auditor.normalizers") if e.name == "ufm.pkeys"]
    assert normalizer.load() is normalize_pkeys
    assert UfmCollector.permissions == {
        "ufm rest api": [f"GET {PKEYS_PATH} (a UFM account with read access, e.g. the Monitoring role)"]
    }


def test_plans_one_fabric_per_server_and_rejects_bad_urls(tmp_path: Path) -> None:
    cfg = config(
        tmp_path,
        UfmSource(url="https://ufm-a.example"),
        UfmSource(name="fabric-b", url="https://10.0.0.5/"),
        UfmSource(url="ftp://ufm-c.example"),
        UfmSource(name="fabric-b", url="https://10.0.0.6"),
    )
    plan = UfmCollector().plan(cfg)
    assert [(t.kind, t.name, t.collector) for t in plan.targets] == [
        (TargetKind.IB_FABRIC, "ufm-a.example", "ufm"),
        (TargetKind.IB_FABRIC, "fabric-b", "ufm"),
    ]
    assert [(p.origin, "http(s)" in p.message or "twice" in p.message) for p in plan.problems] == [
        ("sources.ufm[2]", True),
        ("sources.ufm[3]", True),
    ]


def test_collects_the_pkeys_with_tls_verified_against_the_given_ca(
    tmp_path: Path, ufm: UfmStandIn, creds: Credentials
) -> None:
    cfg = config(tmp_path, UfmSource(name="gpu-ib", url=ufm.url, credentials=creds, ca_file=ufm.pki.ca_file))
    [cap] = collect(cfg)
    assert cap.content == BODY and cap.format == "ufm.pkeys" and cap.target == "gpu-ib"
    assert cap.source == f"GET {PKEYS_PATH}" and cap.origin == ufm.url + PKEYS
    assert cap.meta == {"fabric": "gpu-ib", "tls_verified": "true"}
    assert ufm.requests == [("GET", PKEYS, ufm.username)]  # one read, nothing else
    assert ufm.password.encode() not in repr(cap).encode()


def test_an_untrusted_certificate_stops_collection_and_says_what_to_do(
    tmp_path: Path, ufm: UfmStandIn, creds: Credentials
) -> None:
    cfg = config(tmp_path, UfmSource(name="gpu-ib", url=ufm.url, credentials=creds))
    with pytest.raises(CollectionError) as err:
        collect(cfg)
    assert "not trusted" in str(err.value) and "ca_file" in (err.value.hint or "")
    assert not err.value.transient
    assert ufm.requests == []  # nothing was sent before the certificate was checked


def test_verification_can_be_switched_off_and_is_recorded(
    tmp_path: Path, ufm: UfmStandIn, creds: Credentials
) -> None:
    cfg = config(tmp_path, UfmSource(name="gpu-ib", url=ufm.url, credentials=creds, verify_tls=False))
    [cap] = collect(cfg)
    assert cap.meta["tls_verified"] == "false"


def test_wrong_password_is_an_auth_error_not_retried(
    tmp_path: Path, ufm: UfmStandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UFM_TEST_USER", ufm.username)
    monkeypatch.setenv("UFM_TEST_PASS", "wrong")
    creds = Credentials(username_env="UFM_TEST_USER", password_env="UFM_TEST_PASS")
    cfg = config(tmp_path, UfmSource(name="gpu-ib", url=ufm.url, credentials=creds, ca_file=ufm.pki.ca_file))
    with pytest.raises(CollectionError) as err:
        collect(cfg)
    assert "HTTP 401" in str(err.value) and not err.value.transient
    assert "wrong" not in str(err.value)


def test_missing_credentials_are_named_before_any_request(tmp_path: Path, ufm: UfmStandIn) -> None:
    creds = Credentials(username="auditor", password_env="UFM_TEST_UNSET_PASSWORD")
    cfg = config(tmp_path, UfmSource(name="gpu-ib", url=ufm.url, credentials=creds, ca_file=ufm.pki.ca_file))
    with pytest.raises(CollectionError, match="UFM_TEST_UNSET_PASSWORD"):
        collect(cfg)
    assert ufm.requests == []


def test_a_missing_api_is_a_clear_error(tmp_path: Path, ufm: UfmStandIn, creds: Credentials) -> None:
    cfg = config(
        tmp_path, UfmSource(name="gpu-ib", url=ufm.url + "/wrong", credentials=creds, ca_file=ufm.pki.ca_file)
    )
    with pytest.raises(CollectionError, match="HTTP 404"):
        collect(cfg)


def test_an_unreachable_server_is_transient(tmp_path: Path, creds: Credentials) -> None:
    cfg = config(tmp_path, UfmSource(name="gpu-ib", url="https://127.0.0.1:9", credentials=creds))
    with pytest.raises(CollectionError) as err:
        collect(cfg)
    assert err.value.transient


def test_normalizer_reads_every_partition_field_by_field() -> None:
    cap = RawCapture(
        "gpu-ib", "ufm.pkeys", "GET", "https://ufm", datetime.now(UTC), BODY, {"fabric": "gpu-ib"}
    )
    result = normalize_pkeys(cap)
    assert result.problems == [] and result.covers == {FactKind.IB_PARTITION}
    got = [p.model_dump(mode="json") for p in result.facts if isinstance(p, IbPartition)]
    assert got == [
        {
            "fabric": "gpu-ib",
            "name": "management",
            "pkey": 0x7FFF,
            "default": True,
            "ipoib": True,
            "members": [
                {"guid": "0x0002c903000e0b72", "membership": "limited"},
                {"guid": "0x0002c903000e0b73", "membership": "full"},
            ],
        },
        {
            "fabric": "gpu-ib",
            "name": "tenant-a",
            "pkey": 0x0A01,
            "default": False,
            "ipoib": True,
            "members": [
                {"guid": "0x0002c903000e0b72", "membership": "full"},
                {"guid": "0x0002c903000e0b74", "membership": "full"},
            ],
        },
        {
            "fabric": "gpu-ib",
            "name": "tenant-b",
            "pkey": 0x0A02,
            "default": False,
            "ipoib": False,
            "members": [],
        },
    ]


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"<html>login</html>", "not JSON"),
        (json.dumps({"0xzz": {"partition": "x"}}).encode(), "not hexadecimal"),
        (json.dumps({"0x1": {"guids": [{"guid": "node01"}]}}).encode(), "port GUID 'node01'"),
    ],
)
def test_normalizer_reports_what_it_cannot_read(body: bytes, problem: str) -> None:
    cap = RawCapture("gpu-ib", "ufm.pkeys", "GET", "https://ufm", datetime.now(UTC), body, {})
    result = normalize_pkeys(cap)
    assert any(problem in p.message for p in result.problems)


def test_list_shaped_answers_are_read_too() -> None:
    body = json.dumps([{"pkey": "0x7fff", "partition": "management", "guids": ["0002c903000e0b72"]}]).encode()
    cap = RawCapture("f", "ufm.pkeys", "GET", "https://ufm", datetime.now(UTC), body, {})
    [p] = normalize_pkeys(cap).facts
    assert isinstance(p, IbPartition) and p.default and p.members[0].membership == "full"


def test_audit_of_a_live_ufm_finds_the_open_default_partition(
    tmp_path: Path, ufm: UfmStandIn, creds: Credentials
) -> None:
    """collector -> store -> normalizer -> T3-TENANT-ISOLATION, through the real pipeline."""
    path = tmp_path / "auditor.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "intent": {"tiers": {"backend": {"cidrs": ["10.30.0.0/15"], "vrfs": ["default", "RDMA-A"]}}},
                "sources": {
                    "ufm": [
                        {
                            "name": "gpu-ib",
                            "url": ufm.url,
                            "ca_file": str(ufm.pki.ca_file),
                            "credentials": {"username_env": "UFM_TEST_USER", "password_env": "UFM_TEST_PASS"},
                        }
                    ]
                },
                "store": f"sqlite:///{tmp_path / 'a.db'}",
                "reports": ["json"],
                "output": str(tmp_path / "out"),
            }
        )
    )
    outcome = run_audit(load_config(path), render=False)
    assert outcome.run_id == 1
    reader = RunReader(open_store(f"sqlite:///{tmp_path / 'a.db'}"), 1)
    findings = {
        (f.check_id, f.subject, f.status) for f in reader.findings() if f.check_id == "T3-TENANT-ISOLATION"
    }
    assert ("T3-TENANT-ISOLATION", "gpu-ib/partition management (0x7fff)", "FAIL") in findings
    assert ("T3-TENANT-ISOLATION", "gpu-ib/partition tenant-a (0x0a01)", "PASS") in findings

"""Redaction in depth: the scanner and structural layers, their decoys, the corpus and the run config.

The named rules are tested in test_redact.py. Here: each kind of secret the second layer (detect-secrets'
plugins and our additions) or the structural walk must find, in the format it arrives in; each decoy
that looks random or secret but is evidence the checks read (hashes, resource ids, ARNs, MACs, IPv6,
route distinguishers, certificates) and must come out byte-identical; and the issue-11 corpus file by
file, with the format the offline collector gives it.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import pytest

from auditor.evidence.redact import REDACTED, redact, redact_text
from auditor.evidence.redact_config import redact_config
from auditor.evidence.redact_flowlog import unclean_segments
from auditor.evidence.redact_scan import is_secret_name

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "secrets-lab"
GH = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
CERT_PEM = "-----BEGIN CERTIFICATE-----\nMIIC+zCCAeOgAwIBAgIJAKm7x1cUaPiBMA0GCSqGSIb3DQEBCwUAMBQxEjAQBgNV\n-----END CERTIFICATE-----\n"
CERT_B64 = base64.b64encode(CERT_PEM.encode()).decode()

# (format, text, secrets): the secret values must be gone, each replaced in place.
FOUND: list[tuple[str, str, tuple[str, ...]]] = [
    ("", f"export GITHUB={GH}", (GH,)),
    (
        "",
        "token: xoxb-1111111111-2222222222222-AbCdEfGhIjKlMnOp",
        ("xoxb-1111111111-2222222222222-AbCdEfGhIjKlMnOp",),
    ),
    (
        "",
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 in a comment",
        ("hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",),
    ),
    ("", "OPENAI=sk-proj-" + "Ab1" * 16, ("sk-proj-" + "Ab1" * 16,)),
    ("", "key sk_live_AbCdEfGhIjKlMnOpQrStUv01", ("sk_live_AbCdEfGhIjKlMnOpQrStUv01",)),
    ("", "maps AIzaSyAbCdEfGhIjKlMnOpQrStUvWxYz0123456", ("AIzaSyAbCdEfGhIjKlMnOpQrStUvWxYz0123456",)),
    ("", "x Az18Q~AbCdEfGhIjKlMnOpQrStUvWxYz0123456 y", ("Az18Q~AbCdEfGhIjKlMnOpQrStUvWxYz0123456",)),
    ("", "db: postgresql://svc:Hunter2Pass@db.example:5432/app", ("Hunter2Pass",)),
    ("", "https:\\/\\/svc:EscapedPass1@db.example\\/x", ("EscapedPass1",)),
    ("", "curl -fsS -u admin:CurlPass99 https://x.example/", ("CurlPass99",)),
    ("", "/bin/agent --api-token=FlagToken123 --region us-east-1", ("FlagToken123",)),
    ("", "/bin/agent --password FlagPassword9 -v", ("FlagPassword9",)),
    ("", "spring.datasource.password=DotPass77\nspring.datasource.url=jdbc:x", ("DotPass77",)),
    ("", "kubeadm join 10.0.0.1:6443 --token abc123.0123456789abcdef", ("abc123.0123456789abcdef",)),
    ("", "blob Zk3Q9xLm2Wv7Rt5Yp8Nc4Hb6Jd1Ks0Ga", ("Zk3Q9xLm2Wv7Rt5Yp8Nc4Hb6Jd1Ks0Ga",)),  # high entropy
    (
        "k8s.manifest",
        'kind: Pod\nspec:\n  containers:\n  - args: ["--token", "ArgToken1", "-u", "bob:ArgPass2"]\n',
        ("ArgToken1", "ArgPass2"),
    ),
    (
        "k8s.manifest",
        "kind: Pod\nspec:\n  containers:\n  - args:\n    - --password\n    - BlockArgPass3\n",
        ("BlockArgPass3",),
    ),
    ("k8s.manifest", "kind: ConfigMap\ndata:\n  dbPass: CamelPass4\n  other: plain\n", ("CamelPass4",)),
    (
        "k8s.manifest",
        "kind: Pod\nspec:\n  containers:\n  - env:\n    - value: EnvBefore5\n      name: API_TOKEN\n",
        ("EnvBefore5",),
    ),
    (
        "k8s.manifest",
        "kind: Secret\ndata: &d\n  a: c2VjcmV0MQ==\nstringData:\n  b: Plain6\n",
        ("c2VjcmV0MQ==", "Plain6"),
    ),
    (
        "aws.describe",
        json.dumps({"Tags": [{"Value": "Reversed7", "Key": "db_password"}, {"Key": "Name", "Value": "web"}]}),
        ("Reversed7",),
    ),
    ("aws.describe", json.dumps({"TagMap": {"api_key": "DictTag8"}, "Name": "x"}), ("DictTag8",)),
    (
        "aws.describe",
        json.dumps({"Parameters": [{"ParameterKey": "MasterUserPassword", "ParameterValue": "Cfn9"}]}),
        ("Cfn9",),
    ),
    ("aws.describe", json.dumps({"Args": ["--password", "JsonArg10"]}), ("JsonArg10",)),
    ("aws.describe", json.dumps({"a": {"b": {"client_secret": "Nested11"}}}), ("Nested11",)),
    (
        "aws.describe",
        json.dumps({"CustomerGatewayConfiguration": "<ike><pre_shared_key>vpnpsk12</pre_shared_key></ike>"}),
        ("vpnpsk12",),
    ),
]

# Evidence the checks read: must pass byte for byte.
DECOYS: list[tuple[str, str]] = [
    (
        "aws.describe",
        json.dumps({"content_sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}),
    ),
    (
        "eos.running-config",
        "vrf instance RDMA-A\n   rd 10.30.0.1:100\n   route-target import evpn 65000:100\n",
    ),
    (
        "eos.running-config",
        "interface Ethernet1\n   mac-address 001c.7300.0099\n   ipv6 address 2600:1f18:abcd::1/64\n",
    ),
    (
        "aws.describe",
        json.dumps({"MacAddress": "0a:1b:2c:3d:4e:5f", "Ipv6Address": "2600:1f18:abcd:ef01::10"}),
    ),
    (
        "aws.describe",
        json.dumps(
            {
                "StackId": "arn:aws:cloudformation:us-east-1:111122223333:stack/batfish-stack-test-1-VPC-1RWP34XRWCZQR/"
                "8ced1590-dad0-11e7-bd0b-500c28604c82",
                "VpcId": "vpc-0abc1234def567890",
                "TransitGatewayAttachmentId": "tgw-attach-0123456789abcdef0",
                "GroupName": "CM-SecurityGroups-1367ZK9SYUAGQ-ECSHostSecurityGroup-1MRE4Z7",
                "ClientToken": "terraform-20240101000000000000000001",
                "NextToken": "eyJ2IjoxfQ",
            }
        ),
    ),
    ("k8s.manifest", "kind: Pod\nmetadata:\n  uid: 3f1e2d4c-5b6a-4789-8abc-def012345678\n"),
    (
        "k8s.manifest",
        "kind: Ingress\nspec:\n  tls:\n  - hosts: [a.example]\n    secretName: tls-frontend\n  rules: []\n",
    ),
    (
        "k8s.manifest",
        "kind: Pod\nspec:\n  automountServiceAccountToken: false\n  containers:\n  - name: c\n"
        "    args: [--validating-webhook=:8443, --tls-private-key-file=/etc/k/tls.key]\n    env:\n"
        "    - name: DB_PASSWORD\n      valueFrom:\n        secretKeyRef: {name: db, key: password}\n",
    ),
    (
        "k8s.manifest",
        f"apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    certificate-authority-data: {CERT_B64}\n",
    ),
    (
        "eos.running-config",
        "username ops ssh-key ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n",
    ),
    ("", CERT_PEM),
    (
        "aws.flowlog",
        "version account-id interface-id srcaddr dstaddr srcport dstport protocol packets bytes start end action "
        "log-status\n2 111122223333 eni-0a1b2c3d4e5f6a7b8 10.20.130.15 10.20.5.10 49152 3128 6 120 96000 "
        "1764579600 1764579655 ACCEPT OK\n2 111122223333 eni-0a1b2c3d - - - - - - - 1764579600 1764579655 - NODATA\n",
    ),
]


@pytest.mark.parametrize(
    ("fmt", "text", "secrets"), FOUND, ids=[f"{i}:{c[1][:30]}" for i, c in enumerate(FOUND)]
)
def test_second_layer_and_structure_find_the_secret(fmt: str, text: str, secrets: tuple[str, ...]) -> None:
    out = redact(text.encode(), fmt).content.decode()
    expected = text
    for value in secrets:
        expected = expected.replace(value, REDACTED)
    assert out == expected
    again = redact(out.encode(), fmt)
    assert again.count == 0  # idempotent


@pytest.mark.parametrize(("fmt", "text"), DECOYS, ids=[f"{i}:{d[1][:30]}" for i, d in enumerate(DECOYS)])
def test_decoys_are_left_byte_identical(fmt: str, text: str) -> None:
    result = redact(text.encode(), fmt)
    assert (result.content.decode(), result.kinds) == (text, {})
    assert redact_text(text) == (text, {})


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("DB_PASSWORD", True),
        ("clientSecret", True),
        ("dbPass", True),
        ("x_psk", True),
        ("secretName", False),
        ("password_file", False),
        ("bypass", False),
        ("accessKeyId", False),
        ("tokenExpirationSeconds", False),
        ("NextToken", False),
        ("validating-webhook", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


FORMATS = {
    ".cfg": "eos.running-config",
    ".yaml": "k8s.manifest",
    ".json": "aws.describe",
    ".log": "aws.flowlog",
}


def _corpus() -> list[Path]:
    return sorted(
        p for p in CORPUS.rglob("*") if p.is_file() and not p.name.startswith(("secrets", "README"))
    )


@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name)
def test_corpus_file_leaks_nothing(path: Path) -> None:
    planted = {
        s
        for name in ("secrets.txt", "secrets-issue11.txt")
        for s in (CORPUS / name).read_text().splitlines()
        if s
    }
    content = path.read_bytes()
    if path.suffix == ".gz":
        content = gzip.decompress(content)
    fmt = FORMATS.get(path.suffix.replace(".gz", "") if path.suffix != ".gz" else Path(path.stem).suffix, "")
    raw = content.decode()
    mine = {s for s in planted if s in raw}
    assert mine, "each corpus file plants something"
    out = redact(content, fmt, str(path)).content.decode()
    assert sorted(s for s in mine if s in out) == []


def test_flow_log_lines_that_are_records_are_not_searched() -> None:
    text = (
        "2 111122223333 eni-0a1b 10.20.130.15 10.20.5.10 49152 3128 6 120 96000 1764579600 1764579655 ACCEPT OK\n"
        "garbled password hunter2\n"
        "2 1 eni-1 2600:1f18::1 fe80::1 1 2 6 1 1 1 1 REJECT OK\n"
        "2 111122223333 AKIAPLANTEDKEY000042 10.0.0.1 10.0.0.2 1 2 6 1 1 1 1 ACCEPT OK\n"
    )
    segments = [text[a:b].strip() for a, b in unclean_segments(text)]
    assert segments == ["garbled password hunter2", segments[1]]
    assert "AKIAPLANTEDKEY000042" in segments[1]  # not a field a record can have: searched, and found
    out = redact(text.encode(), "aws.flowlog").content.decode()
    assert "hunter2" not in out and "AKIAPLANTEDKEY000042" not in out and "ACCEPT OK" in out


def test_stored_run_config_keeps_references_and_drops_secrets() -> None:
    config = {
        "store": "postgresql+psycopg://auditor:StorePass1@db.example:5432/audits",
        "sources": {
            "devices": [
                {"host": "leaf1", "credentials": {"username_env": "U", "password_env": "AUDIT_PASS"}}
            ],
            "kubernetes": [{"kubeconfig": "~/.kube/config", "token": "PastedToken2"}],
        },
        "scope": f"lab with a pasted {GH}",
        "waivers": [{"reason": "password rotation pending", "owner": "net"}],
    }
    out = redact_config(config)
    assert out["store"] == "postgresql+psycopg://auditor:<redacted>@db.example:5432/audits"
    assert out["sources"]["devices"][0]["credentials"] == {"username_env": "U", "password_env": "AUDIT_PASS"}
    assert out["sources"]["kubernetes"][0] == {"kubeconfig": "~/.kube/config", "token": REDACTED}
    assert out["scope"] == f"lab with a pasted {REDACTED}"
    assert out["waivers"] == config["waivers"]  # prose stays as written
    assert config["store"].endswith("StorePass1@db.example:5432/audits")  # the input is not changed


def test_a_captures_source_origin_and_meta_are_redacted_too() -> None:
    from datetime import UTC, datetime

    from auditor.capture import RawCapture
    from auditor.normalize import normalizer_registry
    from auditor.pipeline.process import process_capture

    url = "https://admin:UfmPass1@ufm.example"
    capture = RawCapture(
        "ufm", "ufm.pkeys", f"GET {url}/ufmRest/resources/pkeys", url, datetime.now(UTC), b"{}", {"url": url}
    )
    stored = process_capture(capture, normalizer_registry()).capture
    assert "UfmPass1" not in repr((stored.source, stored.origin, stored.meta))
    assert stored.origin == "https://admin:<redacted>@ufm.example"

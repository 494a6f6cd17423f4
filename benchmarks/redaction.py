"""Redaction benchmark: time per capture kind and size, and the hostile inputs that used to blow up.

    python benchmarks/redaction.py [--scale 1.0]

Builds synthetic captures (a flow log, an AWS describe dump, an EOS config, a Kubernetes list) and the
hostile inputs of issue 11 (deep nesting, a 20 KB Secret of YAML aliases, repeated PEM headers, long
token runs), redacts each once in this process, and prints MB, seconds and MB/s, or what was refused.
Not a test: the bounded behaviour is asserted in tests/evidence/test_redact_limits.py.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from auditor.evidence.redact import RedactionRefused, redact

RECORD = (
    "2 111122223333 eni-0a1b2c3d4e5f6a7b8 10.20.130.15 10.20.5.10 49152 3128 6 120 96000 "
    "1764579600 1764579655 ACCEPT OK\n"
)


def captures(scale: float) -> list[tuple[str, bytes, str]]:
    rng = random.Random(1)
    n = max(1, int(20_000 * scale))
    instances = [
        {
            "InstanceId": f"i-{rng.getrandbits(64):016x}",
            "PrivateIpAddress": "10.0.0.1",
            "Tags": [{"Key": "Name", "Value": f"node-{i}"}],
            "SecurityGroups": [{"GroupId": f"sg-{rng.getrandbits(64):016x}", "GroupName": "web"}],
            "NetworkInterfaces": [
                {"MacAddress": "0a:1b:2c:3d:4e:5f", "Ipv6Addresses": [{"Ipv6Address": "2600::1"}]}
            ],
        }
        for i in range(n)
    ]
    config = "".join(
        f"interface Ethernet{i}\n   ip address 10.{i // 256 % 256}.{i % 256}.1/31\n"
        f"   ip ospf authentication-key 7 k{i}\n!\n"
        for i in range(n)
    )
    k8s = {
        "items": [
            {"kind": "ConfigMap", "data": {f"k{j}": "v" * 30 for j in range(50)}} for _ in range(n // 10)
        ]
    }
    alias = ["apiVersion: v1", "kind: Secret", "metadata: {name: bomb}", "data:", "  a0: &a0 c2VjcmV0"]
    alias += [f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 300)]
    return [
        ("flow log", (RECORD * int(200_000 * scale)).encode(), "aws.flowlog"),
        (
            "aws describe",
            json.dumps({"Reservations": [{"Instances": instances}]}, indent=1).encode(),
            "aws.describe",
        ),
        ("eos config", config.encode(), "eos.running-config"),
        ("k8s list", json.dumps(k8s).encode(), "k8s.manifest"),
        ("deep json", ("[" * 100_000).encode(), "aws.describe"),
        ("deep yaml", ("x: " + "[" * 100_000).encode(), "k8s.manifest"),
        ("alias secret", ("\n".join(alias) + "\n").encode(), "k8s.manifest"),
        ("pem headers", ("-----BEGIN RSA PRIVATE KEY-----\n" * 20_000).encode(), ""),
        ("token run", ("Ab1" * 200_000).encode(), ""),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the synthetic sizes")
    args = parser.parse_args()
    print(f"{'capture':14} {'MB':>7} {'seconds':>8} {'MB/s':>7}  outcome")
    for name, content, fmt in captures(args.scale):
        start = time.perf_counter()
        try:
            outcome = f"{redact(content, fmt, name).count} redacted"
        except RedactionRefused as exc:
            outcome = f"refused: {exc.reason}"
        elapsed = time.perf_counter() - start
        mb = len(content) / 1e6
        print(f"{name:14} {mb:7.2f} {elapsed:8.2f} {mb / elapsed if elapsed else 0:7.1f}  {outcome}")


if __name__ == "__main__":
    main()

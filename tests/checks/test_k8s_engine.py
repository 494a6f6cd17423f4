"""The one Kubernetes policy engine against hand-derived connection lists (Calico, Cilium, Ingress and
Route cases whose answers each case's README explains), and against the CLI's contract for kinds it
cannot evaluate (`reach k8s` exits 3 and lists nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli.app import app, load_commands
from checks.k8s.compile import compile_policies
from checks.k8s.connlist import connlist, to_text
from checks.k8s.engine import PolicyEngine
from checks.k8s.manifests import read_directory

load_commands()
ENGINE = Path(__file__).resolve().parents[1] / "fixtures" / "k8s_semantics" / "engine"
CASES = sorted(p.name for p in ENGINE.iterdir() if p.is_dir())


def lines(case: Path) -> set[str]:
    manifests = read_directory(case / "manifests.yaml")
    assert not manifests.problems, manifests.problems
    compiled = compile_policies(((p, p) for p in manifests.policies), manifests.services)
    assert not compiled.gaps, compiled.gaps
    engine = PolicyEngine(manifests.namespaces, compiled)
    found = connlist(engine, manifests.workloads, services=manifests.services, ingresses=manifests.ingresses)
    return set(to_text(found).splitlines())


@pytest.mark.parametrize("case", CASES)
def test_engine_matches_the_hand_derived_connection_list(case: str) -> None:
    expected = set((ENGINE / case / "connlist.txt").read_text().splitlines())
    assert lines(ENGINE / case) == expected
    assert (ENGINE / case / "README.md").read_text().strip()


@pytest.mark.parametrize("case", CASES)
def test_reach_k8s_prints_the_same_list(case: str) -> None:
    result = CliRunner().invoke(app, ["reach", "k8s", str(ENGINE / case)])
    assert result.exit_code == 0, result.output
    assert set(result.stdout.splitlines()) == set((ENGINE / case / "connlist.txt").read_text().splitlines())


UNSUPPORTED = """
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team-a}
spec:
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: w, image: w}]}}
---
apiVersion: k8s.ovn.org/v1
kind: EgressFirewall
metadata: {name: default, namespace: team-a}
spec:
  egress: [{type: Deny, to: {cidrSelector: 0.0.0.0/0}}]
"""


def test_reach_k8s_exits_3_on_a_kind_it_cannot_evaluate(tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text(UNSUPPORTED)
    result = CliRunner().invoke(app, ["reach", "k8s", str(tmp_path)])
    assert result.exit_code == 3, result.output
    assert result.stdout == ""  # never an allow-all list
    assert "EgressFirewall" in " ".join(result.output.split())


def test_reach_k8s_exits_3_on_a_policy_part_it_cannot_read(tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text(
        UNSUPPORTED.split("---\napiVersion: k8s.ovn.org", maxsplit=1)[0]
        + "---\napiVersion: projectcalico.org/v3\nkind: NetworkPolicy\nmetadata: {name: x, namespace: team-a}\n"
        + "spec: {selector: \"app === 'web'\", types: [Ingress]}\n"
    )
    result = CliRunner().invoke(app, ["reach", "k8s", str(tmp_path)])
    assert result.exit_code == 3, result.output
    assert result.stdout == ""


COREFILE = """
.:53 {
    errors
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       fallthrough in-addr.arpa ip6.arpa
    }
    forward . 10.20.0.53 tls://10.20.0.54 {
       max_concurrent 1000
    }
    cache 30
}
corp.example:53 {
    forward . /etc/resolv.conf   # the node's resolvers
}
"""


def test_corefile_forwards_per_server_block() -> None:
    from collectors.normalizers.kubernetes_workloads import corefile_forwards

    got = [(f.zone, f.upstreams) for f in corefile_forwards(COREFILE)]
    assert got == [(".", ["10.20.0.53", "tls://10.20.0.54"]), ("corp.example", ["/etc/resolv.conf"])]

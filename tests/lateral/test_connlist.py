"""`auditor reach k8s` against netpol-analyzer's and cyclonus's expected results, one parameter per case."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli.app import app, load_commands
from checks.k8s.compile import compile_policies
from checks.k8s.connlist import Connection, connlist, external_blocks, to_text
from checks.k8s.engine import PolicyEngine
from checks.k8s.manifests import read_directory
from checks.k8s.workloads import NamedPort, Workload, freeze
from checks.lateral.addresses import IPSet
from checks.lateral.conns import ConnSet

load_commands()  # registers `reach` as `main()` does
FIXTURES = Path(__file__).parents[1] / "fixtures" / "lateral"
NPA = FIXTURES / "netpol-analyzer"
OUTPUTS = NPA / "test_outputs"
CASES = sorted(p.name for p in (NPA / "tests").iterdir() if p.is_dir())
DIFF_CASE = "onlineboutique_workloads_changed_netpols"
DIFF_FILE = OUTPUTS / "diff" / f"diff_between_{DIFF_CASE}_and_onlineboutique_workloads.txt"


def _analyze(case: Path, extra: tuple[list[IPSet], list[IPSet]] = ([], [])) -> list[Connection]:
    manifests = read_directory(case)
    assert not manifests.problems, manifests.problems
    compiled = compile_policies(((p, p) for p in manifests.policies), manifests.services)
    assert not compiled.gaps, compiled.gaps
    engine = PolicyEngine(manifests.namespaces, compiled)
    return connlist(
        engine, manifests.workloads, *extra, services=manifests.services, ingresses=manifests.ingresses
    )


def _expected(case: str) -> list[str]:
    plain = OUTPUTS / "connlist" / f"{case}_connlist_output.txt"
    if plain.exists():
        return plain.read_text().splitlines()
    exposure = OUTPUTS / "connlist" / f"{case}_exposure_output.txt"
    return [line for line in exposure.read_text().split("\n\n")[0].splitlines() if line.strip()]


def test_all_seventeen_cases_are_here() -> None:
    assert len(CASES) == 17


@pytest.mark.parametrize("case", [c for c in CASES if c != DIFF_CASE])
def test_connlist_matches_netpol_analyzer(case: str) -> None:
    got = to_text(_analyze(NPA / "tests" / case)).splitlines()
    assert got == _expected(case)


def _blocks(case: str) -> tuple[list[IPSet], list[IPSet]]:
    manifests = read_directory(NPA / "tests" / case)
    return external_blocks(compile_policies((p, p) for p in manifests.policies))


def test_changed_netpols_case_matches_netpol_analyzer_diff() -> None:
    """The case has no connlist file: its ground truth is the diff against onlineboutique_workloads.
    As netpol-analyzer's `diff` does, both sides' external ranges are cut by both sides' ipBlocks."""
    base, changed = "onlineboutique_workloads", DIFF_CASE
    (in1, out1), (in2, out2) = _blocks(base), _blocks(changed)
    extra = ([*in1, *in2], [*out1, *out2])
    ref1 = {(c.src, c.dst): c.conn for c in _analyze(NPA / "tests" / base, extra)}
    ref2 = {(c.src, c.dst): c.conn for c in _analyze(NPA / "tests" / changed, extra)}
    got = set()
    for key in ref1.keys() | ref2.keys():
        a, b = ref1.get(key, "No Connections"), ref2.get(key, "No Connections")
        if a != b:
            kind = "added" if key not in ref1 else "removed" if key not in ref2 else "changed"
            got.add(f"diff-type: {kind}, source: {key[0]}, destination: {key[1]}, ref1: {a}, ref2: {b}")
    expected = set(DIFF_FILE.read_text().splitlines()[1:])
    assert got == expected
    # and the connlist of the changed case itself, as `reach k8s` prints it
    lines = to_text(_analyze(NPA / "tests" / changed)).splitlines()
    assert lines[0] == "0.0.0.0-127.255.255.255[External] => default/redis-cart[Deployment] : All Connections"
    assert "default/checkoutservice[Deployment] => default/cartservice[Deployment] : TCP 8000" in lines
    assert not any(line.startswith("default/redis-cart[Deployment] =>") for line in lines)


# --- cyclonus truth tables ------------------------------------------------------------------------

CYCLONUS = FIXTURES / "cyclonus"
TABLE = re.compile(r"(Ingress|Egress|Combined):\n\+[-+]+\n\|([^\n]*)\|\n\+[-+]+\n((?:\|[^\n]*\n)*)")
_TABLES = TABLE.findall((CYCLONUS / "examples" / "cyclonus-output" / "analyze-probe.txt").read_text())
PROBED = [(kind, 80 + i // 3, header, body) for i, (kind, header, body) in enumerate(_TABLES[:6])]


@pytest.fixture(scope="module")
def cyclonus_engine() -> tuple[PolicyEngine, dict[str, Workload]]:
    probe = json.loads((CYCLONUS / "examples" / "probe.json").read_text())
    namespaces = {
        name: {**labels, "kubernetes.io/metadata.name": name}
        for name, labels in probe["Resources"]["Namespaces"].items()
    }
    pods = {
        f"{p['Namespace']}/{p['Name']}": Workload(
            p["Namespace"],
            p["Name"],
            "Pod",
            freeze(p["Labels"]),
            tuple(NamedPort(c["Port"], c["Protocol"].upper(), c["PortName"]) for c in p["Containers"]),
        )
        for p in probe["Resources"]["Pods"]
    }
    manifests = read_directory(CYCLONUS / "networkpolicies" / "simple-example")
    assert len(manifests.policies) == 7
    return PolicyEngine(namespaces, compile_policies((p, p) for p in manifests.policies)), pods


@pytest.mark.parametrize(
    ("kind", "port", "header", "body"), PROBED, ids=[f"{k}-tcp{p}" for k, p, _, _ in PROBED]
)
def test_cyclonus_truth_table(
    cyclonus_engine: tuple[PolicyEngine, dict[str, Workload]], kind: str, port: int, header: str, body: str
) -> None:
    engine, pods = cyclonus_engine
    columns = [h.strip().lower() for h in header.split("|")[1:]]
    probe = ConnSet.ports("TCP", port, port)
    cells = 0
    for row in body.strip().splitlines():
        src, *marks = (c.strip() for c in row.strip("|").split("|"))
        for dst, mark in zip(columns, marks, strict=True):
            if kind == "Combined":
                allowed = engine.allowed(pods[src], pods[dst]).conns
            else:
                allowed = engine.direction(pods[src], pods[dst], ingress=kind == "Ingress").conns
            assert ("." if probe.issubset(allowed) else "X") == mark, (kind, port, src, dst)
            cells += 1
    assert cells == 81


# --- the command --------------------------------------------------------------------------------


def test_reach_k8s_command_prints_connlist_and_json() -> None:
    runner = CliRunner()
    case = NPA / "tests" / "netpol-analysis-example-minimal"
    result = runner.invoke(app, ["reach", "k8s", str(case)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == _expected("netpol-analysis-example-minimal")
    result = runner.invoke(app, ["reach", "k8s", str(case), "--output", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)[2] == {
        "src": "default/frontend[Deployment]",
        "dst": "default/backend[Deployment]",
        "conn": "TCP 9090",
    }


def test_reach_k8s_command_names_a_missing_directory(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["reach", "k8s", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "no such file or directory" in " ".join(result.output.replace("\n", " ").split())


def test_reach_k8s_reports_a_broken_manifest_and_keeps_the_rest(tmp_path: Path) -> None:
    case = NPA / "tests" / "netpol-analysis-example-minimal"
    for f in case.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    (tmp_path / "broken.yaml").write_text("kind: NetworkPolicy\nmetadata: {name: x\n")
    result = CliRunner().invoke(app, ["reach", "k8s", str(tmp_path)])
    assert result.exit_code == 0
    assert "broken.yaml" in result.output.replace("\n", "")
    assert "default/frontend[Deployment] => default/backend[Deployment] : TCP 9090" in result.stdout

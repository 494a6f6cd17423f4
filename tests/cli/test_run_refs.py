"""Run references (`latest`, `latest~N`, ids) resolved in one place for every command, `diff --previous`
(the previous sealed run of the same scope), and the --json listings and --quiet output scripts parse."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from auditor.capture import RawCapture
from auditor.enums import RunStatus, Status, TargetStatus
from auditor.errors import UsageError
from auditor.store.engine import open_store
from auditor.store.writer import FindingRow, RunWriter
from tests.e2e.conftest import run_cli

CHECK = "T3-VRF-NO-DEFAULT-ROUTE"


@dataclass(frozen=True)
class Store:
    url: str
    cwd: Path

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, "--store", self.url, cwd=self.cwd)


def _run(url: str, scope: str, failing: list[str], *, seal: bool = True) -> int:
    engine = open_store(url)
    writer = RunWriter.start(engine, config={"intent": {}}, config_sha256="0" * 64, scope=scope)
    tid = writer.add_target(kind="device", name="leaf1", platform="eos")
    capture = RawCapture(
        "leaf1", "eos.running-config", "show running-config", "leaf1.cfg", datetime.now(UTC), b"x\n", {}
    )
    writer.ingest(tid, capture, redactions=0, redaction_kinds={}, facts=[])
    writer.finish_target(tid, TargetStatus.OK)
    rows = [
        FindingRow(
            CHECK, Status.FAIL.value, "critical", "backend", "leaf1", s, "m", "e", f"found {s}", [], []
        )
        for s in failing
    ]
    writer.add_findings(rows)
    if seal:
        writer.seal(RunStatus.COMPLETE)
    engine.dispose()
    return writer.run_id


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """Run 1 and 4 audit pod-a (4 has a new failure), 2 audits pod-b, 3 is pod-a's unsealed run."""
    root = tmp_path_factory.mktemp("refs")
    url = f"sqlite:///{root / 'refs.db'}"
    assert _run(url, "pod-a", ["vrf A"]) == 1
    assert _run(url, "pod-b", ["vrf Z"]) == 2
    assert _run(url, "pod-a", [], seal=False) == 3
    assert _run(url, "pod-a", ["vrf A", "vrf B"]) == 4
    return Store(url, root)


def test_one_resolver_parses_and_names_what_exists(store: Store) -> None:
    from auditor.cli.runref import describe_ids, parse_run_ref, previous_run, resolve_run

    engine = open_store(store.url)
    assert [resolve_run(engine, r) for r in (None, "latest", "latest~1", "latest~3", "2", 2)] == [
        4,
        4,
        3,
        1,
        2,
        2,
    ]
    with pytest.raises(UsageError, match=r"'latest~4' goes back past the first run \(the store holds 4 run"):
        resolve_run(engine, "latest~4")
    with pytest.raises(UsageError, match=r"run 9 does not exist \(the store holds 4 run\(s\): 1-4\)"):
        resolve_run(engine, "9")
    with pytest.raises(UsageError, match="'last' is not a run id, 'latest' or 'latest~N'"):
        parse_run_ref("last")
    assert previous_run(engine, 4) == 1  # not 3 (unsealed) nor 2 (another scope)
    with pytest.raises(UsageError, match=r"run 2 has no earlier sealed run of its scope 'pod-b'"):
        previous_run(engine, 2)
    assert describe_ids([1, 2, 3, 5, 7, 8]) == "1-3, 5, 7-8"
    engine.dispose()


def test_diff_previous_and_references_through_the_cli(store: Store) -> None:
    previous = store.cli("diff", "--previous", "--json")
    assert previous.returncode == 0, previous.stderr
    doc = json.loads(previous.stdout)
    assert (doc["run_a"], doc["run_b"]) == (1, 4)
    assert [c["subject"] for c in doc["new_failures"]] == ["vrf B"]
    assert doc["still_failing"] == 1
    by_refs = json.loads(store.cli("diff", "latest~3", "latest", "--json").stdout)
    assert by_refs == doc
    gate = store.cli("diff", "--previous", "latest", "--fail-on-new")
    assert gate.returncode == 1
    assert gate.stdout.splitlines()[0].startswith("run 1 → run 4: 1 new failure(s), 0 resolved")
    quiet = store.cli("--quiet", "diff", "--previous")
    assert quiet.returncode == 0 and quiet.stdout.splitlines() == [
        "run 1 → run 4: 1 new failure(s), 0 resolved, 0 no longer assessed, 1 still failing"
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("diff", "--previous", "2"),
            "error: run 2 has no earlier sealed run of its scope 'pod-b' (runs of that scope: 2)",
        ),
        (
            ("diff", "latest~7", "latest"),
            "error: run reference 'latest~7' goes back past the first run (the store holds 4 run(s): 1-4; the oldest is latest~3)",
        ),
        (("runs", "show", "--run", "12"), "error: run 12 does not exist (the store holds 4 run(s): 1-4)"),
        (
            ("verify", "--run", "newest"),
            "Error: Invalid value for '--run' / '-r': run reference 'newest' is not a run id, 'latest' or 'latest~N'",
        ),
        (("diff", "1"), "error: diff needs two runs, or --previous"),
    ],
)
def test_bad_references_are_usage_errors_that_name_them(
    store: Store, args: tuple[str, ...], message: str
) -> None:
    result = store.cli(*args)
    assert result.returncode == 2, result.stdout + result.stderr
    line = " ".join(result.stderr.split())
    assert message in line, line  # a --run that is no reference at all is refused while parsing
    assert "<config>" not in line and result.stdout == ""


def test_runs_show_and_list_take_references_and_print_json(store: Store) -> None:
    shown = json.loads(store.cli("runs", "show", "--run", "latest~1", "--json").stdout)
    assert shown["id"] == 3 and shown["sealed"] is False and shown["scope"] == "pod-a"
    listed = json.loads(store.cli("runs", "list", "--json").stdout)
    assert [r["id"] for r in listed] == [4, 3, 2, 1]
    assert [r["scope"] for r in listed] == ["pod-a", "pod-a", "pod-b", "pod-a"]


def test_catalogue_listings_are_one_json_document(tmp_path: Path) -> None:
    checks = run_cli("checks", "list", "--json", cwd=tmp_path)
    assert checks.returncode == 0, checks.stderr
    (line,) = checks.stdout.splitlines()  # one line: `jq`, `json.loads(line)`
    ids = [c["id"] for c in json.loads(line)]
    assert CHECK in ids and ids == sorted(ids)
    controls = run_cli("controls", "--json", cwd=tmp_path)
    (line,) = controls.stdout.splitlines()
    frameworks = json.loads(line)
    assert {f["key"] for f in frameworks} >= {"soc2", "pci-dss-v4"}
    assert all(req["check_ids"] for f in frameworks for req in f["requirements"])

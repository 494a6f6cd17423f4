"""Running the live collector in-process (without the store) and recording what it calls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import boto3

from auditor.capture import RawCapture
from auditor.config.models import AwsSource, CollectionSettings
from auditor.enums import FactKind, TargetKind
from auditor.normalize import NormalizeResult, Problem, normalizer_registry
from auditor.pipeline.process import process_capture
from collectors.aws.calls import iam_action
from collectors.aws.collector import AwsCollector, AwsTarget
from collectors.aws.session import open_session
from collectors.base import TargetSpec
from tests.aws_live.scenario import REGION


@dataclass
class Collected:
    captures: list[RawCapture] = field(default_factory=list)
    results: list[NormalizeResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)  # IAM actions, in the order they were sent

    @property
    def covers(self) -> set[FactKind]:
        return {k for r in self.results for k in r.covers}

    def facts(self, kind: FactKind) -> list[Any]:
        return [f for r in self.results for f in r.facts if f.kind == kind]


def recording_factory(calls: list[str]) -> Callable[[AwsSource], boto3.Session]:
    """Sessions as the collector makes them, with a `before-call` hook that records each operation."""

    def record(model: Any, **_: Any) -> None:
        calls.append(iam_action(model.service_model.endpoint_prefix, model.name))

    def factory(source: AwsSource) -> boto3.Session:
        session = open_session(source)
        session.events.register("before-call", record)
        return session

    return factory


def collect(endpoint: str, *, records: bool = True, hours: int = 24) -> Collected:
    """Run the collector on one target, normalizing each capture as the pipeline does."""
    out = Collected()
    source = AwsSource(regions=[REGION], endpoint_url=endpoint, flow_log_records=records)
    spec = TargetSpec(
        TargetKind.AWS,
        f"default/{REGION}",
        "aws",
        payload=AwsTarget(source, REGION, CollectionSettings(), hours),
    )
    normalizers = normalizer_registry()
    for got in AwsCollector(recording_factory(out.calls)).collect(spec):
        if isinstance(got, Problem):
            out.problems.append(got)
        else:
            out.captures.append(got)
            out.results.append(process_capture(got, normalizers).result)
    return out

"""AWS failures stay per call: one operation that times out (a proxy in front of moto answers it late) or
is refused costs what that call reads, named with its real cause; the rest of the account is collected."""

from __future__ import annotations

import time

from auditor.capture import RawCapture
from auditor.config.models import AwsSource, CollectionSettings
from auditor.enums import FactKind, TargetKind
from auditor.normalize import Problem, normalizer_registry
from auditor.pipeline.process import process_capture
from collectors.aws.collector import AwsCollector, AwsTarget
from collectors.base import TargetSpec
from tests.aws_live.scenario import REGION, Estate
from tests.aws_live.slowproxy import SlowProxy


def test_one_timed_out_operation_costs_that_operation_only(estate: Estate, moto_endpoint: str) -> None:
    with SlowProxy(moto_endpoint, "DescribeSubnets", delay=2.5) as proxy:
        source = AwsSource(regions=[REGION], endpoint_url=proxy.url, flow_log_records=False)
        settings = CollectionSettings(command_timeout=1, connect_timeout=2, retries=0, retry_backoff=0)
        spec = TargetSpec(
            TargetKind.AWS, f"default/{REGION}", "aws", payload=AwsTarget(source, REGION, settings, 24)
        )
        start = time.monotonic()
        got = list(AwsCollector().collect(spec))
        took = time.monotonic() - start
    problems = [g for g in got if isinstance(g, Problem)]
    assert len(problems) == 1, problems
    message = problems[0].message
    assert message.startswith("ec2:DescribeSubnets timed out")
    assert message.endswith("subnets not assessed")
    assert "credentials" not in message and "could not reach" not in message
    assert proxy.delayed >= 1
    normalizers = normalizer_registry()
    covers = {
        k for g in got if isinstance(g, RawCapture) for k in process_capture(g, normalizers).result.covers
    }
    assert FactKind.AWS_SUBNET not in covers
    for kind in (
        FactKind.AWS_VPC,
        FactKind.AWS_SECURITY_GROUP,
        FactKind.AWS_NETWORK_ACL,
        FactKind.AWS_FLOW_LOG_CONFIG,
    ):
        assert kind in covers  # described after the subnets: the timeout did not end the target
    assert took < 20

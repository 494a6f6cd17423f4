"""The live AWS collector: one target per configured source and region, read-only through boto3."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, ProfileNotFound

from auditor.capture import RawCapture
from auditor.config.models import AuditConfig, AwsSource, CollectionSettings
from auditor.enums import TargetKind
from auditor.errors import AuditorError, CollectionError
from auditor.normalize import Problem
from collectors.aws.calls import ApiCall
from collectors.aws.describe import collect_describes
from collectors.aws.destinations import collect_destinations
from collectors.aws.errors import is_credential_failure, message_of
from collectors.aws.permissions import required_actions
from collectors.aws.reader import Reader
from collectors.aws.records import Window, collect_records
from collectors.aws.session import Clients, SessionFactory, client_config, open_session
from collectors.base import Plan, TargetSpec

CALLS: tuple[ApiCall, ...] = (ApiCall("sts", "GetCallerIdentity"),)


@dataclass(frozen=True)
class AwsTarget:
    """What one target reads: a source (identity, endpoint) in one region."""

    source: AwsSource
    region: str
    settings: CollectionSettings
    window_hours: int
    temp_dir: Path | None = None


def target_name(source: AwsSource, region: str) -> str:
    """`<name>/<region>`: the source's name, the account of its role ARN, its profile, or `default`."""
    if source.name:
        label = source.name
    elif source.role_arn and source.role_arn.count(":") >= 5:
        label = source.role_arn.split(":")[4]
    else:
        label = source.profile or "default"
    return f"{label}/{region}"


class AwsCollector:
    """VPC network state, flow-log settings and destinations, and flow-log records over the window."""

    name: ClassVar[str] = "aws"
    permissions: ClassVar[dict[str, list[str]]] = {"iam": required_actions()}

    def __init__(self, session_factory: SessionFactory | None = None) -> None:
        self._factory = session_factory

    def plan(self, config: AuditConfig) -> Plan:
        plan = Plan()
        for source in config.sources.aws:
            for region in source.regions:
                payload = AwsTarget(source, region, config.collection, config.intent.flow_logs.window_hours)
                plan.targets.append(
                    TargetSpec(TargetKind.AWS, target_name(source, region), self.name, "aws", payload=payload)
                )
        return plan

    def collect(self, target: TargetSpec) -> Iterator[RawCapture | Problem]:
        spec: AwsTarget = target.payload
        reader = self._reader(target.name, spec)
        flow_logs: list[dict[str, Any]] = []
        yield from collect_describes(reader, flow_logs)
        yield from collect_destinations(reader, flow_logs)
        if spec.source.flow_log_records:
            window = Window.last(spec.window_hours)
            yield from collect_records(reader, flow_logs, window, spec.temp_dir)

    def _reader(self, name: str, spec: AwsTarget) -> Reader:
        """A reader bound to the account the credentials belong to (asked of STS, which needs no grant)."""
        source = spec.source
        try:
            session = self._factory(source) if self._factory else open_session(source, spec.settings)
            clients = Clients(session, spec.region, source.endpoint_url, client_config(spec.settings))
            identity = clients("sts").get_caller_identity()
        except ProfileNotFound as exc:
            raise CollectionError(
                str(exc), target=name, hint="fix sources.aws.profile or ~/.aws/config"
            ) from exc
        except NoCredentialsError as exc:
            raise CollectionError(
                "no AWS credentials found",
                target=name,
                hint="set a profile, a role_arn or the AWS_* variables",
            ) from exc
        except ClientError as exc:
            reason = "rejected (expired or invalid)" if is_credential_failure(exc) else "refused"
            raise CollectionError(
                f"the AWS credentials were {reason}: {message_of(exc)}",
                target=name,
                hint="refresh the credentials (aws sso login, a new session token, the role's trust policy)",
            ) from exc
        except BotoCoreError as exc:
            raise CollectionError(f"cannot reach AWS: {exc}", target=name, transient=True) from exc
        except AuditorError as exc:
            raise CollectionError(str(exc), target=name) from exc
        origin = source.endpoint_url or f"aws:{spec.region}"
        return Reader(name, str(identity["Account"]), spec.region, clients, origin)

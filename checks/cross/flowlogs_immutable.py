"""X-FLOWLOGS-IMMUTABLE: flow logs land where they cannot be altered or expire too early.

Per destination of an ACTIVE flow log: an S3 bucket with Object Lock enabled and a default retention
(GOVERNANCE or COMPLIANCE; the mode is reported) of at least `intent.flow_logs.retention_days`; or a
CloudWatch Logs group whose retention is at least that (or never expires). A Kinesis Data Firehose
destination hands the records on: where they end up is not in the evidence, so it is NOT_ASSESSED, as
is a destination whose settings were not collected (another account's bucket, missing permission), or
a bucket whose Object Lock file (`<bucket>.object-lock.json`) is missing while its versioning is known.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from auditor.enums import FactKind, Severity, Tier
from auditor.facts import AwsFlowLogConfig, AwsFlowLogDestination, FactRecord
from auditor.store.reader import StoredFact
from checks.base import Check, CheckContext, CheckMeta, Finding
from checks.text import listing

NEEDS = frozenset({FactKind.AWS_FLOW_LOG_CONFIG, FactKind.AWS_FLOW_LOG_DESTINATION})


def destination_key(kind: str | None, value: str | None) -> str | None:
    """A bucket name or a log group name, from an ARN or a name (`arn:aws:s3:::bucket/prefix/`,
    `arn:aws:logs:region:acct:log-group:name:*`, `name`)."""
    if not value:
        return None
    if (kind or "").startswith("s3") or value.startswith("arn:aws:s3:::"):
        return "s3:" + value.removeprefix("arn:aws:s3:::").split("/", 1)[0]
    if ":log-group:" in value:
        value = value.split(":log-group:", 1)[1].removesuffix(":*")
    if (kind or "").startswith("cloud-watch") or kind is None:
        return "logs:" + value
    return f"{kind}:{value}"


def _config_key(c: AwsFlowLogConfig) -> str | None:
    kind = c.destination_type or ("cloud-watch-logs" if c.log_group else None)
    return destination_key(kind, c.destination or c.log_group)


class FlowLogsImmutable(Check):
    meta = CheckMeta(
        id="X-FLOWLOGS-IMMUTABLE",
        title="Flow logs are kept immutably for the retention period",
        tier=Tier.CROSS,
        severity=Severity.HIGH,
        needs=NEEDS,
        rationale=(
            "Evidence an intruder (or an administrator) can delete or that expires before the audit "
            "window ends proves nothing. S3 Object Lock or a long enough retention keeps flow records "
            "tamper-evident for the period the audit relies on (NIST SP 800-53 AU-9, AU-11; SEC 17a-4)."
        ),
        remediation=(
            "Deliver flow logs to an S3 bucket with Object Lock enabled and a default retention of at "
            "least the declared days (COMPLIANCE mode for regulated evidence), or set the CloudWatch "
            "Logs group's retention to at least that."
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        days = ctx.intent.flow_logs.retention_days
        expected = f"S3 Object Lock with a default retention >= {days} days, or log retention >= {days} days"
        clouds, gaps = self.split_assessable(ctx, [t for t in ctx.targets if t.kind == "aws"], NEEDS)
        yield from gaps
        names = {t.name for t in clouds}
        destinations = {
            key: d
            for d in ctx.facts.of(AwsFlowLogDestination)
            if (key := destination_key(d.record.destination_type, d.record.destination)) is not None
        }
        users: dict[str, list[StoredFact[AwsFlowLogConfig]]] = defaultdict(list)
        for c in ctx.facts.of(AwsFlowLogConfig):
            if c.target in names and (c.record.status or "").upper() == "ACTIVE":
                key = _config_key(c.record)
                if key is None:
                    subject = c.record.subject()
                    yield self.not_assessed(subject, f"{subject}: names no destination", target=c.target)
                    continue
                users[key].append(c)
        for key, configs in sorted(users.items()):
            dest = destinations.get(key)
            logs = listing(c.record.flow_log_id for c in configs)
            if dest is None:
                first = configs[0].record
                what = f"{first.account}/{first.region}/{first.destination or first.log_group}"
                reason = f"{what} (used by {logs}): its lock/retention settings are not in the evidence"
                yield self.not_assessed(what, reason, target=configs[0].target, expected=expected)
                continue
            yield self._judge(dest, configs, days, expected, logs)

    def _judge(
        self,
        dest: StoredFact[AwsFlowLogDestination],
        configs: list[StoredFact[AwsFlowLogConfig]],
        days: int,
        expected: str,
        logs: str,
    ) -> Finding:
        rec = dest.record
        facts: list[StoredFact[FactRecord]] = [dest, *configs]
        subject = rec.subject()
        if rec.destination_type == "kinesis-data-firehose":
            reason = (
                f"{subject} (used by {logs}): Firehose forwards the records; "
                "their final store is not in the evidence"
            )
            return self.not_assessed(subject, reason, target=dest.target, expected=expected)
        if rec.destination_type == "s3":
            lock = rec.object_lock_days
            if rec.object_lock_enabled is None:  # only the bucket's versioning is in the evidence
                bucket = rec.destination.removeprefix("arn:aws:s3:::")
                reason = (
                    f"{subject} (used by {logs}): its Object Lock configuration is not in the evidence "
                    f"(add {bucket}.object-lock.json: "
                    f"aws s3api get-object-lock-configuration --bucket {bucket})"
                )
                return self.not_assessed(subject, reason, target=dest.target, expected=expected)
            if not rec.object_lock_enabled:
                found = f"Object Lock not enabled (versioning {rec.versioning or 'unknown'}); used by {logs}"
                return self.failed(subject, expected, found, *facts, target=dest.target)
            if lock is None or rec.object_lock_mode is None:
                found = (
                    f"Object Lock enabled without a default retention: objects are not locked; used by {logs}"
                )
                return self.failed(subject, expected, found, *facts, target=dest.target)
            short = f" (< {days})" if lock < days else ""
            found = f"Object Lock {rec.object_lock_mode} for {lock} days{short}; used by {logs}"
            if short:
                return self.failed(subject, expected, found, *facts, target=dest.target)
            return self.passed(subject, expected, found, *facts, target=dest.target)
        retention = rec.retention_days
        if retention is not None and retention < days:
            found = f"log group retention {retention} days (< {days}); used by {logs}"
            return self.failed(subject, expected, found, *facts, target=dest.target)
        kept = "never expires" if retention is None else f"retention {retention} days"
        found = f"log group {kept}; used by {logs} (deletable by principals with logs:DeleteLogGroup)"
        return self.passed(subject, expected, found, *facts, target=dest.target)

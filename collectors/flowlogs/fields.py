"""Flow-log field layouts: the default v2 order, every documented field, headers and LogFormat strings."""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_FIELDS: tuple[str, ...] = (
    "version",
    "account-id",
    "interface-id",
    "srcaddr",
    "dstaddr",
    "srcport",
    "dstport",
    "protocol",
    "packets",
    "bytes",
    "start",
    "end",
    "action",
    "log-status",
)
# Every field of formats v2-v5 and later (ECS in v7, reject-reason in v8), as S3 headers spell them.
KNOWN_FIELDS = frozenset(
    (
        *DEFAULT_FIELDS,
        *("vpc-id", "subnet-id", "instance-id", "tcp-flags", "type", "pkt-srcaddr", "pkt-dstaddr"),
        *("region", "az-id", "sublocation-type", "sublocation-id", "pkt-src-aws-service"),
        *("pkt-dst-aws-service", "flow-direction", "traffic-path", "ecs-cluster-arn", "ecs-cluster-name"),
        *("ecs-container-instance-arn", "ecs-container-instance-id", "ecs-container-id"),
        *("ecs-second-container-id", "ecs-service-name", "ecs-task-definition-arn", "ecs-task-arn"),
        *("ecs-task-id", "reject-reason"),
    )
)
REQUIRED_FIELDS = ("srcaddr", "dstaddr", "action")
_LOG_FORMAT_FIELD = re.compile(r"\$\{([a-z0-9-]+)\}")


class LayoutError(ValueError):
    """A header or LogFormat that cannot be read as flow records (names the missing field)."""


def header_fields(parts: list[bytes]) -> tuple[str, ...] | None:
    """The field names when this line is a header (S3 text files start with one), else None."""
    first = parts[0].decode("ascii", "replace").replace("_", "-")
    if first not in KNOWN_FIELDS:
        return None
    names = tuple(p.decode("ascii", "replace").replace("_", "-") for p in parts)
    return names if all(name in KNOWN_FIELDS for name in names) else None


def log_format_fields(log_format: str | None) -> tuple[str, ...]:
    """The field order of a flow log's LogFormat (`${version} ${srcaddr} ...`); None or empty: default."""
    if not log_format:
        return DEFAULT_FIELDS
    names = tuple(_LOG_FORMAT_FIELD.findall(log_format))
    if not names:
        raise LayoutError(f"LogFormat {log_format!r} names no ${{field}}")
    return names


@dataclass(frozen=True)
class Columns:
    """Where each field the auditor reads sits in a record line."""

    names: tuple[str, ...]
    src: int
    dst: int
    action: int
    dport: int | None
    protocol: int | None
    packets: int | None
    bytes: int | None
    start: int | None
    end: int | None
    status: int | None
    interface: int | None

    @property
    def count(self) -> int:
        return len(self.names)

    @classmethod
    def from_names(cls, names: tuple[str, ...]) -> Columns:
        index = {name: i for i, name in enumerate(names)}
        for name in REQUIRED_FIELDS:
            if name not in index:
                raise LayoutError(f"has no {name} field")
        return cls(
            names=names,
            src=index["srcaddr"],
            dst=index["dstaddr"],
            action=index["action"],
            dport=index.get("dstport"),
            protocol=index.get("protocol"),
            packets=index.get("packets"),
            bytes=index.get("bytes"),
            start=index.get("start"),
            end=index.get("end"),
            status=index.get("log-status"),
            interface=index.get("interface-id"),
        )


DEFAULT_COLUMNS = Columns.from_names(DEFAULT_FIELDS)

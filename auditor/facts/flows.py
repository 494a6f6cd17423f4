"""Flow evidence, aggregated into conversations so a day of records fits in a table."""

from __future__ import annotations

from typing import ClassVar

from auditor.enums import FactKind
from auditor.facts.base import FactRecord


class FlowConversation(FactRecord):
    """All records of one (source, destination, port, protocol, action) in the collected window."""

    kind: ClassVar[FactKind] = FactKind.FLOW_CONVERSATION
    source: str  # where the records came from: a file, an S3 prefix, a log group
    src_addr: str
    dst_addr: str
    dst_port: int | None = None
    protocol: int | None = None
    action: str  # ACCEPT or REJECT
    packets: int = 0
    bytes: int = 0
    records: int = 0
    first_seen: int | None = None  # unix seconds
    last_seen: int | None = None
    interface_id: str | None = None

    def subject(self) -> str:
        port = f":{self.dst_port}" if self.dst_port is not None else ""
        return f"{self.src_addr} -> {self.dst_addr}{port}/{self.protocol} {self.action}"


class FlowLogStats(FactRecord):
    """What a flow-log source held: so an auditor sees the window covered and the records not usable."""

    kind: ClassVar[FactKind] = FactKind.FLOW_LOG_STATS
    source: str
    files: int = 0
    records: int = 0
    accepted: int = 0
    rejected: int = 0
    nodata: int = 0
    skipdata: int = 0
    malformed: int = 0
    first_seen: int | None = None
    last_seen: int | None = None
    window_start: int | None = None  # unix seconds: the window asked for (live collection), if any
    window_end: int | None = None

    def subject(self) -> str:
        return f"flow logs {self.source}"

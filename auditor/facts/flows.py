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

"""Flow logs are redacted like any capture, but their records need no search: this finds what does.

A flow-log object is mostly records whose every field is a number, an address, a resource id or a
closed keyword (`ACCEPT`, `OK`, `egress`, `S3`); such a line cannot hold a secret. Only the other
lines (a garbled line, an unknown field, whatever a misclassified file holds) go through the redaction
layers, so a 100 MB object costs one regex pass instead of every rule's.
"""

from __future__ import annotations

import re

__all__ = ["unclean_segments"]

_FIELDS = (
    "version|account-id|interface-id|srcaddr|dstaddr|srcport|dstport|protocol|packets|bytes|start|end|action"
    "|log-status|vpc-id|subnet-id|instance-id|tcp-flags|type|pkt-srcaddr|pkt-dstaddr|region|az-id"
    "|sublocation-type|sublocation-id|pkt-src-aws-service|pkt-dst-aws-service|flow-direction|traffic-path"
    "|reject-reason"
)
_SERVICES = (
    "AMAZON|AMAZON_APPFLOW|AMAZON_CONNECT|API_GATEWAY|CHIME_MEETINGS|CHIME_VOICECONNECTOR|CLOUD9|CLOUDFRONT"
    "|CODEBUILD|DYNAMODB|EBS|EC2|EC2_INSTANCE_CONNECT|GLOBALACCELERATOR|KINESIS_VIDEO_STREAMS|ROUTE53"
    "|ROUTE53_HEALTHCHECKS|ROUTE53_HEALTHCHECKS_PUBLISHING|ROUTE53_RESOLVER|S3|WORKSPACES_GATEWAYS"
)
_TOKEN = (
    r"(?:-|[0-9]{1,20}"
    r"|[0-9]{1,3}(?:\.[0-9]{1,3}){3}"  # IPv4
    r"|[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}"  # IPv6
    r"|(?:eni|vpc|subnet|i|tgw|tgw-attach|pcx|vpce|igw|eigw|nat|vgw|lgw|fl|eipalloc)-[0-9a-f]{1,17}"
    r"|ACCEPT|REJECT|OK|NODATA|SKIPDATA|ingress|egress|IPv4|IPv6|EFA|wavelength|outpost|localzone"
    r"|[a-z]{2}(?:-[a-z]+)+-[0-9][a-z]?|[a-z]{3}[0-9]-az[0-9]{1,2}"  # regions, zones, zone ids
    rf"|{_SERVICES}|{_FIELDS})"
)
_CLEAN_LINE = re.compile(rf"^[ \t]*{_TOKEN}(?:[ \t]+{_TOKEN})*[ \t]*\r?$", re.M)


def unclean_segments(text: str) -> list[tuple[int, int]]:
    """The (start, end) ranges of `text` not made of clean record lines, each a run of whole lines."""
    segments: list[tuple[int, int]] = []
    pos = 0
    for m in _CLEAN_LINE.finditer(text):
        if m.start() > pos and text[pos : m.start()].strip():
            segments.append((pos, m.start()))
        pos = m.end()
    if pos < len(text) and text[pos:].strip():
        segments.append((pos, len(text)))
    return segments

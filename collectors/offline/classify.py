"""Tell what an evidence file is from its name and its first bytes, without parsing it."""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from pathlib import Path

HEAD_BYTES = 16_384
AWS_KEYS = (
    "Vpcs",
    "Subnets",
    "RouteTables",
    "InternetGateways",
    "NatGateways",
    "EgressOnlyInternetGateways",
    "TransitGateways",
    "VpcPeeringConnections",
    "SecurityGroups",
    "NetworkAcls",
    "FlowLogs",
    "TransitGatewayAttachments",
    "TransitGatewayRouteTables",
    "NetworkInterfaces",
    "FlowLogDestinations",
)
_AWS_KEY = re.compile(r'"(' + "|".join(AWS_KEYS) + r')"\s*:')
_K8S = re.compile(r"^\s*(apiVersion|kind)\s*:|\"(apiVersion|kind)\"\s*:", re.MULTILINE)
_FLOW_HEADER = re.compile(r"^version account-id interface-id srcaddr dstaddr", re.MULTILINE)
_FLOW_V2 = re.compile(
    r"^2 \S+ \S+ \S+ \S+ \S+ \S+ \S+ \S+ \S+ \d+ \d+ (ACCEPT|REJECT|-) (OK|NODATA|SKIPDATA)", re.MULTILINE
)
_HOSTNAME = re.compile(r"^hostname\s+(\S+)", re.MULTILINE)
_NXOS = re.compile(
    r"^(feature \S+|vrf context \S+|version \d+\.\d+\(|!Command: show running-config)", re.MULTILINE
)
_EOS = re.compile(
    r"^(! device: .*EOS|vrf instance \S+|management api http-commands|service routing protocols model|"
    r"daemon TerminAttr|transceiver qsfp)",
    re.MULTILINE,
)
# OpenSM partitions.conf: a statement `Name=0xPKEY[,flags] : ports ;` (the file name alone also counts)
_OPENSM = re.compile(r"^\s*[\w.-]*\s*=\s*(0[xX][0-9a-fA-F]{1,4}|\d+)\s*(,[^:;\n]*)?:[^;]*;", re.MULTILINE)
CAPTURES_SUFFIX = ".captures.jsonl"
CAPTURES_FORMAT = "captures.jsonl"
IGNORED_SUFFIXES = {".md", ".rst", ".txt~", ".swp", ".pdf", ".png"}


@dataclass(frozen=True)
class Classified:
    format: str  # "eos.running-config", "nxos.running-config", "k8s.manifest", "aws.describe", "aws.flowlog",
    # or "captures.jsonl" (exported captures of any format)
    hostname: str | None = None


def read_head(path: Path) -> bytes:
    with path.open("rb") as fh:
        head = fh.read(HEAD_BYTES)
    if head[:2] == b"\x1f\x8b":
        try:
            with gzip.open(path, "rb") as gz:
                return gz.read(HEAD_BYTES)
        except (OSError, EOFError):
            return b""
    return head


def classify(path: Path, head: bytes) -> Classified | None:
    """None when the file is not evidence this auditor reads."""
    text = head.decode("utf-8", errors="replace")
    name = path.name.lower()
    if name.endswith(CAPTURES_SUFFIX):
        return Classified(CAPTURES_FORMAT)  # exported captures (collectors/export.py), many formats
    if name.endswith((".json", ".json.gz")):
        if _AWS_KEY.search(text):
            return Classified("aws.describe")
        if _K8S.search(text):
            return Classified("k8s.manifest")
        return None
    if name.endswith((".yaml", ".yml")):
        return Classified("k8s.manifest") if _K8S.search(text) else None
    if _FLOW_HEADER.search(text) or _FLOW_V2.search(text):
        return Classified("aws.flowlog")
    if name == "partitions.conf" or name.endswith(".partitions.conf") or _OPENSM.search(text):
        return Classified("opensm.partitions", path.parent.name)  # the fabric: the file's directory
    hostname = _HOSTNAME.search(text)
    if hostname or _EOS.search(text) or _NXOS.search(text):
        host = hostname.group(1) if hostname else None
        if _NXOS.search(text):
            return Classified("nxos.running-config", host)
        if _EOS.search(text):
            return Classified("eos.running-config", host)
        return Classified("unknown.running-config", host)
    return None

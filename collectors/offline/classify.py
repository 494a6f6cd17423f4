"""Tell what an evidence file is from its name and its first bytes, without parsing it."""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from pathlib import Path

from collectors.flowlogs.fields import REQUIRED_FIELDS, header_fields
from collectors.platforms.registry import Detected, platforms

HEAD_BYTES = 16_384
MAX_STRUCTURED_BYTES = 64 * 1024 * 1024  # read whole only to find a JSON/YAML config's host
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
_FLOW_V2 = re.compile(
    r"^2 \S+ \S+ \S+ \S+ \S+ \S+ \S+ \S+ \S+ \d+ \d+ (ACCEPT|REJECT|-) (OK|NODATA|SKIPDATA)", re.MULTILINE
)
# OpenSM partitions.conf: a statement `Name=0xPKEY[,flags] : ports ;` (the file name alone also counts)
_OPENSM = re.compile(r"^\s*[\w.-]*\s*=\s*(0[xX][0-9a-fA-F]{1,4}|\d+)\s*(,[^:;\n]*)?:[^;]*;", re.MULTILINE)
CAPTURES_SUFFIX = ".captures.jsonl"
CAPTURES_FORMAT = "captures.jsonl"
IGNORED_SUFFIXES = {".md", ".rst", ".txt~", ".swp", ".pdf", ".png"}


UNKNOWN_CONFIG = "unknown.running-config"
_HOSTNAME = re.compile(r"^hostname\s+(\S+)", re.MULTILINE)


@dataclass(frozen=True)
class Classified:
    format: str  # a registered platform's format ("eos.running-config", "junos.config", "sonic.config-db",
    # ...), "k8s.manifest", "aws.describe", "aws.flowlog", "opensm.partitions", "captures.jsonl" (exported
    # captures of any format) or "unknown.running-config" (a device config no platform claims, or a tie)
    hostname: str | None = None
    candidates: tuple[str, ...] = ()  # for a tie: the platforms that claimed the file equally


def detect_platform(name: str, text: str) -> Classified | None:
    """Ask every registered platform's detector; the highest score wins, a tie is UNKNOWN_CONFIG with
    the tied platforms named (the `platform:` hint of the files entry then decides)."""
    found: list[tuple[int, str, Detected]] = []
    for pname, platform in platforms().items():
        if platform.detect is None:
            continue
        try:
            hit = platform.detect(name, text)
        except Exception:  # noqa: S112 - a broken plugin detector must not stop classification
            continue
        if hit is not None and hit.score > 0:
            found.append((hit.score, pname, hit))
    if not found:
        return None
    found.sort(key=lambda f: (-f[0], f[1]))
    best = found[0]
    tied = tuple(sorted(p for s, p, _ in found if s == best[0]))
    if len(tied) > 1:
        return Classified(UNKNOWN_CONFIG, best[2].hostname, tied)
    return Classified(best[2].format, best[2].hostname)


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
        return _structured(path, name, text)  # SONiC config_db, NVUE `nv config show -o json`
    if name.endswith((".yaml", ".yml")):
        return Classified("k8s.manifest") if _K8S.search(text) else _structured(path, name, text)
    if _flow_header(text) or _FLOW_V2.search(text):
        return Classified("aws.flowlog")
    if name == "partitions.conf" or name.endswith(".partitions.conf") or _OPENSM.search(text):
        return Classified("opensm.partitions", path.parent.name)  # the fabric: the file's directory
    detected = detect_platform(name, text)
    if detected is not None:
        return detected
    hostname = _HOSTNAME.search(text)  # a device config, but no platform recognises it
    return Classified(UNKNOWN_CONFIG, hostname.group(1)) if hostname else None


def _flow_header(text: str) -> bool:
    """A flow-log object's first line names its fields, in the order of its LogFormat: the default
    (`version account-id interface-id ...`) or any custom order (`version vpc-id subnet-id ...`). Every word
    must be a documented field and the ones the auditor needs must be there (an IOS `version 15.2` is not)."""
    first = text.lstrip("\ufeff").split("\n", 1)[0].split()
    if len(first) < len(REQUIRED_FIELDS):
        return False
    names = header_fields([w.encode("ascii", "replace") for w in first])
    return names is not None and all(f in names for f in REQUIRED_FIELDS)


def _structured(path: Path, name: str, text: str) -> Classified | None:
    """A JSON/YAML device config names its host deep inside (SONiC's DEVICE_METADATA sorts after the
    ACL and buffer tables): when the head does not reach it, the whole file is read to find it."""
    found = detect_platform(name, text)
    if found is None or found.hostname is not None or len(text) < HEAD_BYTES // 2:
        return found
    try:
        size = path.stat().st_size
        if size > MAX_STRUCTURED_BYTES:
            return found
        with path.open("rb") as fh:
            gzipped = fh.read(2) == b"\x1f\x8b"
        with gzip.open(path, "rb") if gzipped else path.open("rb") as fh:
            raw = fh.read(MAX_STRUCTURED_BYTES)
    except (OSError, EOFError):
        return found
    whole = detect_platform(name, raw.decode("utf-8", errors="replace"))
    return whole if whole is not None and whole.format == found.format else found


def platform_of_format(fmt: str) -> str | None:
    """The registered platform whose normalizers read capture format `fmt` (None: not a device format)."""
    for name, platform in platforms().items():
        if fmt in platform.normalizers:
            return name
    return None

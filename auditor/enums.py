"""Closed vocabularies shared by every stage: enums, never free strings."""

from __future__ import annotations

from enum import StrEnum


class Tier(StrEnum):
    """The three networks that must never mix, plus checks that span them."""

    OOB = "oob"
    FRONTEND = "frontend"
    BACKEND = "backend"
    CROSS = "cross"


class Status(StrEnum):
    """Outcome of one check on one subject. Missing evidence is NOT_ASSESSED, never PASS."""

    PASS = "PASS"  # noqa: S105 (a status, not a password)
    FAIL = "FAIL"
    ERROR = "ERROR"
    NOT_ASSESSED = "NOT_ASSESSED"
    NOT_APPLICABLE = "NOT_APPLICABLE"


class Severity(StrEnum):
    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    INFO = "info"


class RunStatus(StrEnum):
    RUNNING = "running"
    COMPLETE = "complete"
    PARTIAL = "partial"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


class TargetStatus(StrEnum):
    """Per-target collection outcome; anything but OK makes its checks NOT_ASSESSED or partial."""

    PENDING = "pending"
    OK = "ok"
    PARTIAL = "partial"
    FAILED = "failed"


class TargetKind(StrEnum):
    DEVICE = "device"
    AWS = "aws"
    KUBERNETES = "kubernetes"
    FLOW_LOGS = "flow-logs"
    IB_FABRIC = "ib-fabric"  # an InfiniBand subnet: OpenSM partitions.conf or a UFM server
    DECLARED = "declared"  # policies declared as code (sources.declared): compared, never taken as live


class FactKind(StrEnum):
    """Every kind of normalized fact. Stored as its string value, so adding one needs no migration."""

    COVERAGE = "coverage"
    DEVICE = "device"
    INTERFACE = "interface"
    VRF = "vrf"
    VLAN = "vlan"
    VXLAN_VNI = "vxlan_vni"
    ROUTE = "route"
    BGP_NEIGHBOR = "bgp_neighbor"
    ACL = "acl"
    ACL_BINDING = "acl_binding"
    MGMT_SERVICE = "mgmt_service"
    QOS_INTERFACE = "qos_interface"
    LLDP_NEIGHBOR = "lldp_neighbor"
    IB_PARTITION = "ib_partition"
    K8S_NAMESPACE = "k8s_namespace"
    K8S_NETWORK_POLICY = "k8s_network_policy"
    K8S_POD = "k8s_pod"
    K8S_SERVICE = "k8s_service"
    K8S_INGRESS = "k8s_ingress"
    K8S_DNS_CONFIG = "k8s_dns_config"
    AWS_VPC = "aws_vpc"
    AWS_SUBNET = "aws_subnet"
    AWS_ROUTE_TABLE = "aws_route_table"
    AWS_GATEWAY = "aws_gateway"
    AWS_SECURITY_GROUP = "aws_security_group"
    AWS_NETWORK_ACL = "aws_network_acl"
    AWS_FLOW_LOG_CONFIG = "aws_flow_log_config"
    AWS_FLOW_LOG_DESTINATION = "aws_flow_log_destination"
    AWS_NETWORK_INTERFACE = "aws_network_interface"
    AWS_TGW_ATTACHMENT = "aws_tgw_attachment"
    AWS_TGW_ROUTE_TABLE = "aws_tgw_route_table"
    FLOW_CONVERSATION = "flow_conversation"
    FLOW_LOG_STATS = "flow_log_stats"


class WaiverState(StrEnum):
    """A configured waiver on the run's date: in force, or expired (it no longer applies)."""

    ACTIVE = "active"
    EXPIRED = "expired"

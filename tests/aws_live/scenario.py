"""The AWS estate the live tests audit, built through boto3 calls against moto's server.

Two VPCs (frontend with an internet gateway, NAT and egress-only gateways; backend), a peering, a
transit gateway with attachments, a route table, a static route, associations and propagations, security
groups with rules, NACL entries, an ENI, and two flow logs: the frontend VPC's to an S3 bucket with Object
Lock (COMPLIANCE, 400 days) and versioning, holding gzip text objects (default v2 and a custom v5
field order, with NODATA/SKIPDATA records and broken lines) and a Parquet object; the backend VPC's to a
CloudWatch log group with 365-day retention, holding events in a custom format.
"""

from __future__ import annotations

import gzip
import io
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3

REGION = "us-east-1"
BUCKET = "audit-flow-logs"
LOG_GROUP = "/vpc/backend-flow-logs"
V2 = "version account-id interface-id srcaddr dstaddr srcport dstport protocol packets bytes start end action log-status"
V5_FIELDS = [
    "version",
    "vpc-id",
    "subnet-id",
    "instance-id",
    "interface-id",
    "account-id",
    "type",
    "srcaddr",
    "dstaddr",
    "srcport",
    "dstport",
    "pkt-srcaddr",
    "pkt-dstaddr",
    "protocol",
    "bytes",
    "packets",
    "start",
    "end",
    "action",
    "tcp-flags",
    "log-status",
    "flow-direction",
    "traffic-path",
    "region",
    "az-id",
    "sublocation-type",
    "sublocation-id",
    "pkt-src-aws-service",
    "pkt-dst-aws-service",
]
CW_FIELDS = [
    "version",
    "interface-id",
    "srcaddr",
    "dstaddr",
    "dstport",
    "protocol",
    "packets",
    "bytes",
    "start",
    "end",
    "action",
    "log-status",
]


def log_format(fields: list[str]) -> str:
    return " ".join("${" + f + "}" for f in fields)


@dataclass
class Estate:
    account: str
    ids: dict[str, str] = field(default_factory=dict)
    s3_objects: dict[str, bytes] = field(default_factory=dict)  # key -> bytes as put
    cw_messages: list[str] = field(default_factory=list)
    s3_flow_log: str = ""
    cw_flow_log: str = ""


def client(endpoint: str, service: str) -> Any:
    return boto3.client(service, region_name=REGION, endpoint_url=endpoint)


def build(endpoint: str, *, now: datetime | None = None, seed: int = 4) -> Estate:
    now = now or datetime.now(UTC)
    ec2, s3, logs, iam = (client(endpoint, s) for s in ("ec2", "s3", "logs", "iam"))
    account = client(endpoint, "sts").get_caller_identity()["Account"]
    estate = Estate(account)
    ids = estate.ids
    tag = lambda kind, tier: [{"ResourceType": kind, "Tags": [{"Key": "tier", "Value": tier}]}]  # noqa: E731
    ids["vpc_fe"] = ec2.create_vpc(CidrBlock="10.20.0.0/16", TagSpecifications=tag("vpc", "frontend"))["Vpc"][
        "VpcId"
    ]
    ids["vpc_be"] = ec2.create_vpc(CidrBlock="10.30.0.0/16", TagSpecifications=tag("vpc", "backend"))["Vpc"][
        "VpcId"
    ]
    ids["subnet_fe"] = ec2.create_subnet(VpcId=ids["vpc_fe"], CidrBlock="10.20.1.0/24")["Subnet"]["SubnetId"]
    ids["subnet_be"] = ec2.create_subnet(VpcId=ids["vpc_be"], CidrBlock="10.30.1.0/24")["Subnet"]["SubnetId"]
    ids["igw"] = ec2.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
    ec2.attach_internet_gateway(InternetGatewayId=ids["igw"], VpcId=ids["vpc_fe"])
    ids["eigw"] = ec2.create_egress_only_internet_gateway(VpcId=ids["vpc_fe"])["EgressOnlyInternetGateway"][
        "EgressOnlyInternetGatewayId"
    ]
    allocation = ec2.allocate_address(Domain="vpc")["AllocationId"]
    ids["nat"] = ec2.create_nat_gateway(SubnetId=ids["subnet_fe"], AllocationId=allocation)["NatGateway"][
        "NatGatewayId"
    ]
    ids["rtb"] = ec2.create_route_table(VpcId=ids["vpc_fe"])["RouteTable"]["RouteTableId"]
    ec2.create_route(RouteTableId=ids["rtb"], DestinationCidrBlock="0.0.0.0/0", GatewayId=ids["igw"])
    ec2.associate_route_table(RouteTableId=ids["rtb"], SubnetId=ids["subnet_fe"])
    ids["pcx"] = ec2.create_vpc_peering_connection(VpcId=ids["vpc_fe"], PeerVpcId=ids["vpc_be"])[
        "VpcPeeringConnection"
    ]["VpcPeeringConnectionId"]
    ec2.create_route(
        RouteTableId=ids["rtb"], DestinationCidrBlock="10.30.0.0/16", VpcPeeringConnectionId=ids["pcx"]
    )
    ids["sg"] = ec2.create_security_group(
        GroupName="serving", Description="model serving", VpcId=ids["vpc_fe"]
    )["GroupId"]
    ec2.authorize_security_group_ingress(
        GroupId=ids["sg"],
        IpPermissions=[
            {
                "IpProtocol": "tcp",
                "FromPort": 443,
                "ToPort": 443,
                "IpRanges": [{"CidrIp": "0.0.0.0/0", "Description": "https"}],
            },
            {"IpProtocol": "tcp", "FromPort": 22, "ToPort": 22, "IpRanges": [{"CidrIp": "10.250.200.10/32"}]},
        ],
    )
    ids["acl"] = ec2.create_network_acl(VpcId=ids["vpc_fe"])["NetworkAcl"]["NetworkAclId"]
    ec2.create_network_acl_entry(
        NetworkAclId=ids["acl"],
        RuleNumber=100,
        Protocol="6",
        RuleAction="deny",
        Egress=False,
        CidrBlock="10.250.0.0/16",
        PortRange={"From": 623, "To": 623},
    )
    ids["eni"] = ec2.create_network_interface(
        SubnetId=ids["subnet_fe"], Groups=[ids["sg"]], Description="inference endpoint"
    )["NetworkInterface"]["NetworkInterfaceId"]
    ids["tgw"] = ec2.create_transit_gateway(Description="core")["TransitGateway"]["TransitGatewayId"]
    ids["tgw_att_fe"] = ec2.create_transit_gateway_vpc_attachment(
        TransitGatewayId=ids["tgw"], VpcId=ids["vpc_fe"], SubnetIds=[ids["subnet_fe"]]
    )["TransitGatewayVpcAttachment"]["TransitGatewayAttachmentId"]
    ids["tgw_att_be"] = ec2.create_transit_gateway_vpc_attachment(
        TransitGatewayId=ids["tgw"], VpcId=ids["vpc_be"], SubnetIds=[ids["subnet_be"]]
    )["TransitGatewayVpcAttachment"]["TransitGatewayAttachmentId"]
    ids["tgw_rtb"] = ec2.create_transit_gateway_route_table(TransitGatewayId=ids["tgw"])[
        "TransitGatewayRouteTable"
    ]["TransitGatewayRouteTableId"]
    ec2.associate_transit_gateway_route_table(
        TransitGatewayRouteTableId=ids["tgw_rtb"], TransitGatewayAttachmentId=ids["tgw_att_fe"]
    )
    ec2.enable_transit_gateway_route_table_propagation(
        TransitGatewayRouteTableId=ids["tgw_rtb"], TransitGatewayAttachmentId=ids["tgw_att_be"]
    )
    ec2.create_transit_gateway_route(
        DestinationCidrBlock="10.30.0.0/16",
        TransitGatewayRouteTableId=ids["tgw_rtb"],
        TransitGatewayAttachmentId=ids["tgw_att_be"],
    )
    ec2.create_transit_gateway_route(
        DestinationCidrBlock="10.250.0.0/16", TransitGatewayRouteTableId=ids["tgw_rtb"], Blackhole=True
    )
    _flow_logs(estate, endpoint, ec2, s3, logs, iam, now, seed)
    return estate


def _flow_logs(
    estate: Estate, endpoint: str, ec2: Any, s3: Any, logs: Any, iam: Any, now: datetime, seed: int
) -> None:
    ids = estate.ids
    s3.create_bucket(Bucket=BUCKET, ObjectLockEnabledForBucket=True)
    s3.put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Enabled"})
    s3.put_object_lock_configuration(
        Bucket=BUCKET,
        ObjectLockConfiguration={
            "ObjectLockEnabled": "Enabled",
            "Rule": {"DefaultRetention": {"Mode": "COMPLIANCE", "Days": 400}},
        },
    )
    flow = ec2.create_flow_logs(
        ResourceIds=[ids["vpc_fe"]],
        ResourceType="VPC",
        TrafficType="ALL",
        LogDestinationType="s3",
        LogDestination=f"arn:aws:s3:::{BUCKET}",
    )
    estate.s3_flow_log = flow["FlowLogIds"][0]
    logs.create_log_group(logGroupName=LOG_GROUP)
    logs.put_retention_policy(logGroupName=LOG_GROUP, retentionInDays=365)
    role = iam.create_role(RoleName="flow-logs", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    flow = ec2.create_flow_logs(
        ResourceIds=[ids["vpc_be"]],
        ResourceType="VPC",
        TrafficType="ALL",
        LogGroupName=LOG_GROUP,
        DeliverLogsPermissionArn=role,
        LogFormat=log_format(CW_FIELDS),
    )
    estate.cw_flow_log = flow["FlowLogIds"][0]
    rng = random.Random(seed)
    prefix = f"AWSLogs/{estate.account}/vpcflowlogs/{REGION}/{now:%Y/%m/%d}/"
    for index, (fields, broken) in enumerate(((V2.split(), 2), (V5_FIELDS, 1), (V2.split(), 0))):
        stamp = (now - timedelta(minutes=30 - index * 5)).strftime("%Y%m%dT%H%MZ")
        key = f"{prefix}{estate.account}_vpcflowlogs_{REGION}_{estate.s3_flow_log}_{stamp}_{index:08x}.log.gz"
        body = gzip.compress(_text(rng, fields, 400, broken, estate, now).encode())
        s3.put_object(Bucket=BUCKET, Key=key, Body=body)
        estate.s3_objects[key] = body
    stamp = (now - timedelta(minutes=10)).strftime("%Y%m%dT%H%MZ")
    key = f"{prefix}{estate.account}_vpcflowlogs_{REGION}_{estate.s3_flow_log}_{stamp}_0000parq.log.parquet"
    body = _parquet(rng, 300, estate, now)
    s3.put_object(Bucket=BUCKET, Key=key, Body=body)
    estate.s3_objects[key] = body
    old = (now - timedelta(days=3)).strftime("%Y%m%dT%H%MZ")  # outside the window: must not be read
    s3.put_object(
        Bucket=BUCKET,
        Key=f"AWSLogs/{estate.account}/vpcflowlogs/{REGION}/{now - timedelta(days=3):%Y/%m/%d}/"
        f"{estate.account}_vpcflowlogs_{REGION}_{estate.s3_flow_log}_{old}_old.log.gz",
        Body=gzip.compress(b"garbage that would be reported if it were read\n"),
    )
    logs.create_log_stream(logGroupName=LOG_GROUP, logStreamName="eni-stream")
    lines = _text(rng, CW_FIELDS, 250, 1, estate, now).splitlines()
    estate.cw_messages = lines
    base = int((now - timedelta(minutes=20)).timestamp() * 1000)
    logs.put_log_events(
        logGroupName=LOG_GROUP,
        logStreamName="eni-stream",
        logEvents=[{"timestamp": base + i, "message": line} for i, line in enumerate(lines)],
    )


def records(rng: random.Random, count: int, estate: Estate, now: datetime) -> list[dict[str, str]]:
    """Realistic records: a few hosts and services, NODATA and SKIPDATA windows, IPv4 and IPv6."""
    start = int(now.timestamp()) - 1800
    hosts = ["10.20.1.5", "10.20.1.6", "10.30.1.7", "203.0.113.7", "10.250.0.10", "2001:db8::5"]
    rows = []
    for i in range(count):
        status = rng.choices(["OK", "NODATA", "SKIPDATA"], weights=[95, 3, 2])[0]
        t = start + i
        row = {
            "version": "5",
            "account-id": estate.account,
            "interface-id": f"eni-{rng.randrange(3):017x}",
            "vpc-id": estate.ids["vpc_fe"],
            "subnet-id": estate.ids["subnet_fe"],
            "instance-id": "-",
            "type": "IPv4",
            "srcaddr": rng.choice(hosts),
            "dstaddr": rng.choice(hosts),
            "srcport": str(rng.randrange(1024, 65536)),
            "dstport": str(rng.choice([22, 443, 623, 4791])),
            "pkt-srcaddr": "-",
            "pkt-dstaddr": "-",
            "protocol": str(rng.choice([6, 17])),
            "bytes": str(rng.randrange(40, 90000)),
            "packets": str(rng.randrange(1, 50)),
            "start": str(t),
            "end": str(t + rng.randrange(1, 60)),
            "action": rng.choice(["ACCEPT", "REJECT"]),
            "tcp-flags": "2",
            "log-status": status,
            "flow-direction": "ingress",
            "traffic-path": "-",
            "region": REGION,
            "az-id": "use1-az1",
            "sublocation-type": "-",
            "sublocation-id": "-",
            "pkt-src-aws-service": "-",
            "pkt-dst-aws-service": "-",
        }
        if status != "OK":
            for key in ("srcaddr", "dstaddr", "srcport", "dstport", "protocol", "packets", "bytes", "action"):
                row[key] = "-"
        rows.append(row)
    return rows


def _text(
    rng: random.Random, fields: list[str], count: int, broken: int, estate: Estate, now: datetime
) -> str:
    lines = [" ".join(fields)] if fields != CW_FIELDS else []
    for row in records(rng, count, estate, now):
        lines.append(" ".join(row[f] for f in fields))
    for b in range(broken):  # a truncated line and one with a port that is not a number
        at = rng.randrange(1, len(lines))
        bad = lines[at].split()
        lines.insert(
            at,
            " ".join(bad[:5])
            if b % 2 == 0
            else " ".join(["x" if f == "dstport" else v for f, v in zip(fields, bad, strict=True)]),
        )
    return "\n".join(lines) + "\n"


def _parquet(rng: random.Random, count: int, estate: Estate, now: datetime) -> bytes:
    """A Parquet object as AWS writes it (underscored column names, typed), written by DuckDB."""
    import tempfile
    from pathlib import Path

    import duckdb

    rows = records(rng, count, estate, now)
    ints = {"version", "srcport", "dstport", "protocol", "packets", "bytes", "start", "end"}
    names = V2.split()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "flows.parquet"
        con = duckdb.connect()
        cols = ", ".join(f'"{n.replace("-", "_")}" {"BIGINT" if n in ints else "VARCHAR"}' for n in names)
        con.execute(f"CREATE TABLE t ({cols})")
        con.executemany(
            f"INSERT INTO t VALUES ({', '.join('?' for _ in names)})",
            [[None if r[n] == "-" else (int(r[n]) if n in ints else r[n]) for n in names] for r in rows],
        )
        con.execute(f"COPY t TO '{path}' (FORMAT parquet)")
        con.close()
        return path.read_bytes()


def as_bytes(text: str) -> io.BytesIO:
    return io.BytesIO(text.encode())

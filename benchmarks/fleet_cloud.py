"""Synthetic cloud side: AWS accounts, Kubernetes clusters and VPC flow logs."""

from __future__ import annotations

import ipaddress

from fleet_base import AWS_KINDS, FLOW_KINDS, JUMP_HOST, K8S_KINDS, PROXY, RESOLVER, Fleet

from auditor.facts import (
    AwsFlowLogConfig,
    AwsFlowLogDestination,
    AwsGateway,
    AwsNetworkAcl,
    AwsNetworkInterface,
    AwsRoute,
    AwsRouteTable,
    AwsSecurityGroup,
    AwsSubnet,
    AwsVpc,
    ContainerPort,
    FactRecord,
    FlowConversation,
    FlowLogStats,
    IngressBackend,
    K8sIngress,
    K8sNamespace,
    K8sNetworkPolicy,
    K8sPod,
    K8sService,
    LabelSelector,
    NaclEntry,
    PolicyFlavor,
    PolicyPeer,
    PolicyPort,
    PolicyRule,
    SgRule,
)


def _sg_rules(a: int, g: int) -> tuple[list[SgRule], list[SgRule]]:
    public = g % 50 == 0
    ingress = [
        SgRule(protocol="tcp", from_port=443, to_port=443, cidrs=["0.0.0.0/0" if public else "10.16.0.0/12"]),
        *(
            SgRule(protocol="tcp", from_port=8000 + r, to_port=8000 + r, cidrs=[f"10.{16 + a % 16}.{r}.0/24"])
            for r in range(6)
        ),
        SgRule(
            protocol="tcp",
            from_port=22,
            to_port=22,
            cidrs=["0.0.0.0/0" if g % 499 == 7 else f"{JUMP_HOST}/32"],
        ),
    ]
    egress = [
        SgRule(protocol="tcp", from_port=3128, to_port=3128, cidrs=[f"{PROXY}/32"]),
        SgRule(protocol="udp", from_port=53, to_port=53, cidrs=[f"{RESOLVER}/32"]),
    ]
    return ingress, egress


def aws_accounts(fleet: Fleet, accounts: int, sgs_per_account: int) -> None:
    for a in range(accounts):
        acct, region = f"{111122220000 + a:012d}", "us-east-1"
        target = f"{acct}/{region}"
        fleet.add_target(target, "aws", None, None, None, AWS_KINDS)
        base = {"account": acct, "region": region}
        records: list[FactRecord] = []
        for v in range(5):
            vpc = f"vpc-{a:05d}{v:012d}"
            cidr = ipaddress.ip_network(f"10.{16 + (a * 5 + v) // 64 % 16}.{(a * 5 + v) % 64 * 4}.0/22")
            serving = v < 3
            tags = {"tier": "frontend", "Name": f"serving-{v}"} if serving else {"Name": f"shared-{v}"}
            records.append(AwsVpc(**base, vpc_id=vpc, cidrs=[str(cidr)], tags=tags))
            subnets = list(cidr.subnets(new_prefix=25))
            sub_ids = [f"subnet-{a:05d}{v:03d}{s:06d}" for s in range(len(subnets))]
            for sid, net in zip(sub_ids, subnets, strict=True):
                stags = {"tier": "frontend", "role": "model-serving"} if serving else {"role": "shared"}
                records.append(AwsSubnet(**base, subnet_id=sid, vpc_id=vpc, cidr=str(net), tags=stags))
            routes = [AwsRoute(destination=str(cidr), target_type="local", target_id="local")]
            if not serving or (a * 5 + v) % 37 == 0:
                routes.append(
                    AwsRoute(destination="0.0.0.0/0", target_type="nat-gateway", target_id=f"nat-{a}{v}")
                )
            records += [
                AwsRouteTable(
                    **base,
                    route_table_id=f"rtb-{a:05d}{v:06d}",
                    vpc_id=vpc,
                    subnet_ids=sub_ids,
                    routes=routes,
                ),
                AwsGateway(
                    **base, gateway_id=f"nat-{a}{v}", gateway_type="nat", vpc_ids=[vpc], subnet_id=sub_ids[0]
                ),
                AwsNetworkAcl(
                    **base,
                    network_acl_id=f"acl-{a:05d}{v:06d}",
                    vpc_id=vpc,
                    subnet_ids=sub_ids,
                    entries=[
                        NaclEntry(
                            rule_number=100 + r,
                            egress=r % 2 == 1,
                            action="allow",
                            protocol="6",
                            cidr="10.16.0.0/12",
                            port_from=443,
                            port_to=443,
                        )
                        for r in range(8)
                    ]
                    + [
                        NaclEntry(rule_number=32767, egress=e, action="deny", protocol="-1", cidr="0.0.0.0/0")
                        for e in (False, True)
                    ],
                ),
            ]
            if (a * 5 + v) % 23 != 0:
                records.append(
                    AwsFlowLogConfig(
                        **base,
                        flow_log_id=f"fl-{a:05d}{v:06d}",
                        resource_id=vpc,
                        traffic_type="ALL",
                        destination_type="s3",
                        destination=f"arn:aws:s3:::flow-logs-{a}",
                        status="ACTIVE",
                    )
                )
        records.append(
            AwsFlowLogDestination(
                **base,
                destination=f"arn:aws:s3:::flow-logs-{a}",
                destination_type="s3",
                object_lock_enabled=a % 7 != 0,
                object_lock_mode="COMPLIANCE",
                object_lock_days=400,
            )
        )
        vpc0 = f"vpc-{a:05d}{0:012d}"
        for v in range(5):  # every VPC's default group: empty, except in one account
            keep = [SgRule(protocol="-1", groups=[f"sg-d{a:05d}{v:011d}"])] if a == 3 and v == 0 else []
            records.append(
                AwsSecurityGroup(
                    **base,
                    group_id=f"sg-d{a:05d}{v:011d}",
                    name="default",
                    vpc_id=f"vpc-{a:05d}{v:012d}",
                    ingress=keep,
                    egress=keep,
                )
            )
        for g in range(sgs_per_account):
            ingress, egress = _sg_rules(a, g)
            records.append(
                AwsSecurityGroup(
                    **base,
                    group_id=f"sg-{a:05d}{g:012d}",
                    name=f"app-{g}",
                    vpc_id=vpc0,
                    ingress=ingress,
                    egress=egress,
                )
            )
            records.append(
                AwsNetworkInterface(
                    **base,
                    interface_id=f"eni-{a:05d}{g:012d}",
                    vpc_id=vpc0,
                    subnet_id=f"subnet-{a:05d}{0:03d}{g % 8:06d}",
                    private_ips=[f"10.{16 + a % 16}.{g // 250 % 256}.{g % 250 + 2}"],
                    security_groups=[f"sg-{a:05d}{g:012d}"],
                )
            )
        fleet.add(target, records)


def kubernetes_clusters(fleet: Fleet, clusters: int, namespaces: int) -> None:
    for c in range(clusters):
        cluster = f"gpu-cluster-{c + 1}"
        fleet.add_target(cluster, "kubernetes", None, None, "kubernetes", K8S_KINDS)
        records: list[FactRecord] = []
        for n in range(namespaces):
            ns = f"team-{n:04d}"
            labels = {"tier": "frontend", "tenant": ns, "kubernetes.io/metadata.name": ns}
            records.append(K8sNamespace(cluster=cluster, name=ns, labels=labels))
            deny_types: list[str] = ["Ingress", "Egress"] if n % 113 else ["Ingress"]
            same_ns = PolicyPeer(pod_selector=LabelSelector())
            records += [
                K8sNetworkPolicy(
                    cluster=cluster,
                    namespace=ns,
                    name="default-deny-all",
                    flavor=PolicyFlavor.KUBERNETES,
                    policy_types=deny_types,
                ),
                K8sNetworkPolicy(
                    cluster=cluster,
                    namespace=ns,
                    name="allow-same-namespace",
                    flavor=PolicyFlavor.KUBERNETES,
                    policy_types=["Ingress"],
                    ingress=[PolicyRule(peers=[same_ns])],
                ),
                K8sNetworkPolicy(
                    cluster=cluster,
                    namespace=ns,
                    name="allow-dns",
                    flavor=PolicyFlavor.KUBERNETES,
                    policy_types=["Egress"],
                    egress=[
                        PolicyRule(
                            peers=[PolicyPeer(ip_block={"cidr": f"{RESOLVER}/32"})],
                            ports=[PolicyPort(protocol="UDP", port=53)],
                        )
                    ],
                ),
                K8sNetworkPolicy(
                    cluster=cluster,
                    namespace=ns,
                    name="allow-proxy",
                    flavor=PolicyFlavor.KUBERNETES,
                    policy_types=["Egress"],
                    egress=[
                        PolicyRule(
                            peers=[
                                PolicyPeer(ip_block={"cidr": "0.0.0.0/0" if n % 127 == 0 else f"{PROXY}/32"})
                            ],
                            ports=[PolicyPort(port=3128)],
                        )
                    ],
                ),
                K8sNetworkPolicy(
                    cluster=cluster,
                    namespace=ns,
                    name="allow-from-ingress",
                    flavor=PolicyFlavor.KUBERNETES,
                    pod_selector=LabelSelector(match_labels={"app": "api"}),
                    policy_types=["Ingress"],
                    ingress=[
                        PolicyRule(
                            peers=[
                                PolicyPeer(
                                    namespace_selector=LabelSelector(
                                        match_labels={
                                            "tenant": f"team-{(n + 1) % namespaces:04d}"
                                            if n % 131 == 0
                                            else "ingress-nginx"
                                        }
                                    )
                                )
                            ]
                        )
                    ],
                ),
            ]
            for p in range(20):
                records.append(
                    K8sPod(
                        cluster=cluster,
                        namespace=ns,
                        name=f"api-{p}",
                        labels={"app": "api" if p < 10 else "worker"},
                        ip=f"10.{24 + c % 8}.{n // 8 % 256}.{(n % 8) * 30 + p + 1}",
                        ports=[ContainerPort(name="http", port=8080)],
                        phase="Running",
                    )
                )
            records += [
                K8sService(
                    cluster=cluster,
                    namespace=ns,
                    name="api",
                    selector={"app": "api"},
                    cluster_ip=f"172.20.{n // 250 % 256}.{n % 250 + 1}",
                ),
                K8sService(cluster=cluster, namespace=ns, name="worker", selector={"app": "worker"}),
            ]
            if n % 2 == 0:
                host = f"{ns}.{cluster}.example.com"
                records.append(
                    K8sIngress(
                        cluster=cluster,
                        namespace=ns,
                        name="api",
                        ingress_class="nginx",
                        hosts=[host],
                        tls_hosts=[host] if n % 101 else [],
                        tls_secrets=["api-tls"],
                        backends=[IngressBackend(host=host, path="/", service="api", port=80)],
                    )
                )
        fleet.add(cluster, records)


def flow_logs(fleet: Fleet, sources: int, per_source: int) -> None:
    for f in range(sources):
        target = f"flowlogs:s3://flow-logs-{f}"
        fleet.add_target(target, "flow-logs", None, None, "aws", FLOW_KINDS)
        records: list[FactRecord] = [
            FlowLogStats(
                source=f"s3://flow-logs-{f}",
                files=24,
                records=per_source * 3,
                accepted=per_source * 2,
                rejected=per_source,
            )
        ]
        for k in range(per_source):
            src = f"10.{16 + f % 8}.{k // 250 % 256}.{k % 250 + 1}"
            if k % 5000 == 0:
                dst, port, action = f"10.250.10.{k % 200 + 1}", 623, "ACCEPT"  # into tier 1: a violation
            elif k % 3 == 0:
                dst, port, action = PROXY, 3128, "ACCEPT"
            elif k % 3 == 1:
                dst, port, action = RESOLVER, 53, "ACCEPT"
            else:
                dst, port, action = f"10.{32 + k % 16}.{k % 256}.{k % 200 + 1}", 4791, "REJECT"
            records.append(
                FlowConversation(
                    source=f"s3://flow-logs-{f}/{k % 24:02d}",
                    src_addr=src,
                    dst_addr=dst,
                    dst_port=port,
                    protocol=17 if port in (53, 623, 4791) else 6,
                    action=action,
                    packets=10,
                    bytes=1400,
                    records=1,
                    first_seen=1764579600 + k,
                    last_seen=1764579660 + k,
                )
            )
        fleet.add(target, records)

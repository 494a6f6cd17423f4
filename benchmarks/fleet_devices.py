"""Synthetic network devices: OOB switches, frontend leaves, backend spines and leaves."""

from __future__ import annotations

from fleet_base import DEVICE_KINDS, JUMP_HOST, OOB_NET, Addresses, Fleet

from auditor.enums import Tier
from auditor.facts import (
    Acl,
    AclBinding,
    AclEntry,
    BgpNeighbor,
    Device,
    FactRecord,
    Interface,
    LldpNeighbor,
    MgmtService,
    QosInterface,
    Route,
    Vlan,
    Vrf,
    VxlanVni,
)


def _mgmt(device: str, tier: Tier, role: str, platform: str, i: int) -> list[FactRecord]:
    mgmt_vrf = "management" if platform == "nxos" else "MGMT"
    acl = Acl(
        device=device,
        name="MGMT-SSH",
        entries=[
            AclEntry(
                sequence=10,
                action="permit",
                protocol="tcp",
                source=f"host {JUMP_HOST}",
                destination="any",
                destination_ports="eq 22",
                text=f"10 permit tcp host {JUMP_HOST} any eq ssh",
            ),
            AclEntry(
                sequence=20,
                action="deny",
                protocol="ip",
                source="any",
                destination="any",
                text="20 deny ip any any",
            ),
        ],
    )
    ssh_vrf = "*" if i % 97 == 0 else mgmt_vrf  # a few devices listen for SSH everywhere
    return [
        Device(device=device, hostname=device, platform=platform, tier=tier, role=role, os_version="4.32.2F"),
        acl,
        AclBinding(device=device, acl="MGMT-SSH", attach_point="management", name="ssh", vrf=mgmt_vrf),
        MgmtService(device=device, service="ssh", vrf=ssh_vrf, acl="MGMT-SSH"),
        MgmtService(device=device, service="snmp", vrf=mgmt_vrf, enabled=i % 2 == 0),
        MgmtService(device=device, service="eapi" if platform == "eos" else "nxapi", vrf=mgmt_vrf),
        Vrf(device=device, name=mgmt_vrf, interfaces=["Management1"]),
        Interface(
            device=device,
            name="Management1",
            type="management",
            vrf=mgmt_vrf,
            ipv4=[f"10.250.{(i // 250) % 250}.{i % 250 + 1}/16"],
        ),
        Route(
            device=device,
            vrf=mgmt_vrf,
            prefix="0.0.0.0/0" if i % 89 == 0 else str(OOB_NET),
            next_hop="10.250.0.1",
        ),
    ]


def oob_switches(fleet: Fleet, n: int) -> None:
    for i in range(n):
        dev = f"oob-sw{i + 1}"
        fleet.add_target(dev, "device", Tier.OOB, "oob-switch", "eos", DEVICE_KINDS)
        ports = [
            Interface(
                device=dev,
                name=f"Ethernet{p}",
                type="ethernet",
                switchport=True,
                mode="access",
                access_vlan=100,
                description=f"BMC_gpu-node{i * 48 + p}",
            )
            for p in range(1, 49)
        ]
        svis = [
            Interface(
                device=dev,
                name=f"Vlan{v}",
                type="vlan",
                mode="routed",
                ipv4=[f"10.250.{v - 90}.{i % 250 + 1}/24"],
            )
            for v in (100, 101, 200)
        ]
        fleet.add(
            dev,
            [
                *_mgmt(dev, Tier.OOB, "oob-switch", "eos", i),
                *ports,
                *svis,
                Interface(device=dev, name="Ethernet49", type="ethernet", description="UPLINK_oob-core"),
                Interface(device=dev, name="Loopback0", type="loopback", ipv4=[f"10.250.255.{i % 250}/32"]),
                Vrf(device=dev, name="default", interfaces=[p.name for p in ports]),
                *(
                    Vlan(
                        device=dev,
                        vlan_id=v,
                        name=name,
                        interfaces=[p.name for p in ports] if v == 100 else [],
                    )
                    for v, name in ((100, "BMC"), (101, "SWITCH-MGMT"), (200, "JUMP"))
                ),
                Acl(
                    device=dev,
                    name="BMC-FROM-JUMP-HOSTS",
                    entries=[
                        AclEntry(
                            sequence=10,
                            action="permit",
                            protocol="tcp",
                            source=f"host {JUMP_HOST}",
                            destination="10.250.10.0/24",
                            destination_ports="eq 22",
                            text="10 permit tcp ...",
                        ),
                        AclEntry(
                            sequence=20,
                            action="permit",
                            protocol="udp",
                            source=f"host {JUMP_HOST}",
                            destination="10.250.10.0/24",
                            destination_ports="eq 623",
                            text="20 permit udp ...",
                        ),
                    ],
                ),
                AclBinding(
                    device=dev,
                    acl="BMC-FROM-JUMP-HOSTS",
                    attach_point="interface",
                    name="Vlan100",
                    direction="out",
                ),
            ],
        )


def frontend_leaves(fleet: Fleet, n: int, addrs: Addresses) -> None:
    for i in range(n):
        dev = f"fe-leaf{i + 1}"
        fleet.add_target(dev, "device", Tier.FRONTEND, "leaf", "nxos", DEVICE_KINDS)
        svi_nets = [addrs.block(26) for _ in range(4)]
        uplinks = [addrs.block(31) for _ in range(4)]
        ports = [
            Interface(
                device=dev,
                name=f"Ethernet1/{p}",
                type="ethernet",
                switchport=True,
                mode="access",
                access_vlan=2010 + p % 4,
                mtu=9216,
                speed_mbps=100000,
            )
            for p in range(1, 45)
        ]
        ups = [
            Interface(
                device=dev,
                name=f"Ethernet1/{49 + k}",
                type="ethernet",
                mode="routed",
                vrf="FRONTEND",
                ipv4=[f"{net[0]}/31"],
                mtu=9216,
                speed_mbps=400000,
                description=f"P2P_fe-spine{k + 1}",
            )
            for k, net in enumerate(uplinks)
        ]
        svis = [
            Interface(
                device=dev,
                name=f"Vlan{2010 + k}",
                type="vlan",
                vrf="FRONTEND",
                ipv4=[f"{net[1]}/{net.prefixlen}"],
            )
            for k, net in enumerate(svi_nets)
        ]
        fleet.add(
            dev,
            [
                *_mgmt(dev, Tier.FRONTEND, "leaf", "nxos", i),
                *ports,
                *ups,
                *svis,
                Interface(device=dev, name="nve1", type="vxlan"),
                Interface(device=dev, name="loopback0", type="loopback", ipv4=[f"10.16.255.{i % 250}/32"]),
                Vrf(
                    device=dev,
                    name="FRONTEND",
                    rd=f"10.16.0.{i % 250}:1",
                    l3_vni=50001,
                    interfaces=[x.name for x in ups + svis],
                ),
                Vrf(device=dev, name="default"),
                *(Vlan(device=dev, vlan_id=2010 + k) for k in range(4)),
                *(VxlanVni(device=dev, vni=12010 + k, vlan=2010 + k) for k in range(4)),
                *(
                    Route(device=dev, vrf="FRONTEND", prefix=str(net), protocol="connected")
                    for net in svi_nets
                ),
                Route(
                    device=dev,
                    vrf="FRONTEND",
                    prefix="0.0.0.0/0",
                    protocol="bgp",
                    next_hop=str(uplinks[0][1]),
                ),
                *(
                    BgpNeighbor(device=dev, vrf="FRONTEND", peer=str(net[1]), remote_as="65000")
                    for net in uplinks
                ),
                *(
                    LldpNeighbor(device=dev, interface=u.name, neighbor=f"fe-spine{k + 1}")
                    for k, u in enumerate(ups)
                ),
            ],
        )


def backend_fabric(fleet: Fleet, spines: int, leaves: int, addrs: Addresses) -> None:
    uplinks_per_leaf = 12  # 12 x 800G up for 24 x 400G down: 1:1, non-blocking
    spine_ports: dict[int, list[Interface]] = {s: [] for s in range(spines)}
    spine_peers: dict[int, list[BgpNeighbor]] = {s: [] for s in range(spines)}
    for i in range(leaves):
        dev = f"be-leaf{i + 1}"
        fleet.add_target(dev, "device", Tier.BACKEND, "leaf", "eos", DEVICE_KINDS)
        gpu_nets = {"RDMA-A": addrs.block(27), "RDMA-B": addrs.block(27)}
        ports: list[Interface] = []
        qos: list[QosInterface] = []
        for p in range(1, 25):  # GPU-facing, 400G, half per tenant VRF
            vrf = "RDMA-A" if p <= 12 else "RDMA-B"
            mtu = 1500 if (i * 24 + p) % 1000 == 0 else 9214
            ports.append(
                Interface(
                    device=dev,
                    name=f"Ethernet{p}",
                    type="ethernet",
                    switchport=True,
                    mode="access",
                    access_vlan=3001 if vrf == "RDMA-A" else 3002,
                    mtu=mtu,
                    speed_mbps=400000,
                    description=f"GPU_gpu-node{i * 4 + p // 8}_nic{p % 8}",
                )
            )
        for k in range(uplinks_per_leaf):
            s = (i + k) % spines
            link = addrs.block(31)
            name = f"Ethernet{25 + k}"
            ports.append(
                Interface(
                    device=dev,
                    name=name,
                    type="ethernet",
                    mode="routed",
                    mtu=9214,
                    speed_mbps=800000,
                    ipv4=[f"{link[1]}/31"],
                    description=f"P2P_be-spine{s + 1}",
                )
            )
            spine_ports[s].append(
                Interface(
                    device=f"be-spine{s + 1}",
                    name=f"Ethernet{len(spine_ports[s]) + 1}",
                    type="ethernet",
                    mode="routed",
                    mtu=9214,
                    speed_mbps=800000,
                    ipv4=[f"{link[0]}/31"],
                    description=f"P2P_{dev}",
                )
            )
            spine_peers[s].append(
                BgpNeighbor(device=f"be-spine{s + 1}", peer=str(link[1]), remote_as=str(65200 + i))
            )
            fleet.add(
                dev,
                [
                    BgpNeighbor(device=dev, peer=str(link[0]), remote_as="65100", peer_group="RDMA-UNDERLAY"),
                    LldpNeighbor(
                        device=dev, interface=name, neighbor=f"be-spine{s + 1}", neighbor_interface="x"
                    ),
                ],
            )
        for p in ports:
            trust = "cos" if (i * 40 + int(p.name[8:])) % 1500 == 0 else "dscp"
            qos.append(
                QosInterface(
                    device=dev,
                    interface=p.name,
                    pfc_enabled=True,
                    pfc_no_drop_priorities=[3],
                    pfc_watchdog=True,
                    ecn_queues=[3],
                    trust=trust,
                )
            )
        loop = Interface(
            device=dev, name="Loopback0", type="loopback", ipv4=[f"10.63.{i // 250}.{i % 250}/32"]
        )
        vtep = [
            Interface(device=dev, name="Loopback1", type="loopback", ipv4=[f"10.62.{i // 250}.{i % 250}/32"]),
            Interface(device=dev, name="Vxlan1", type="vxlan"),
        ]
        fleet.add(
            dev,
            [
                *_mgmt(dev, Tier.BACKEND, "leaf", "eos", i),
                *ports,
                loop,
                *vtep,
                *qos,
                Vrf(device=dev, name="default", interfaces=[p.name for p in ports[24:]] + ["Loopback0"]),
                *(
                    Vrf(
                        device=dev,
                        name=v,
                        rd=f"10.63.{i // 250}.{i % 250}:{k + 1}",
                        l3_vni=50001 + k,
                        route_targets_import=[f"{k + 1}:{k + 1}"],
                        route_targets_export=[f"{k + 1}:{k + 1}"],
                        leaks=["RDMA-A"] if v == "RDMA-B" and i % 211 == 0 else [],
                    )
                    for k, v in enumerate(("RDMA-A", "RDMA-B"))
                ),
                *(Vlan(device=dev, vlan_id=3001 + k, name=f"{v}_GPU") for k, v in enumerate(gpu_nets)),
                *(VxlanVni(device=dev, vni=13001 + k, vlan=3001 + k) for k in range(2)),
                *(VxlanVni(device=dev, vni=50001 + k, vrf=v) for k, v in enumerate(gpu_nets)),
                *(
                    Route(device=dev, vrf=v, prefix=str(net), protocol="connected")
                    for v, net in gpu_nets.items()
                ),
                *(
                    Route(
                        device=dev,
                        vrf="default",
                        prefix=f"10.63.{(i + k) // 250}.{(i + k) % 250}/32",
                        protocol="bgp",
                    )
                    for k in range(6)
                ),
                *(
                    [Route(device=dev, vrf="RDMA-B", prefix="0.0.0.0/0", next_hop=str(gpu_nets["RDMA-B"][1]))]
                    if i % 173 == 0
                    else []
                ),
            ],
        )
    for s in range(spines):
        dev = f"be-spine{s + 1}"
        fleet.add_target(dev, "device", Tier.BACKEND, "spine", "eos", DEVICE_KINDS)
        qos = [
            QosInterface(
                device=dev,
                interface=p.name,
                pfc_enabled=True,
                pfc_no_drop_priorities=[3],
                ecn_queues=[3],
                trust="dscp",
            )
            for p in spine_ports[s]
        ]
        fleet.add(
            dev,
            [
                *_mgmt(dev, Tier.BACKEND, "spine", "eos", s),
                *spine_ports[s],
                *qos,
                *spine_peers[s],
                Vrf(device=dev, name="default", interfaces=[p.name for p in spine_ports[s]]),
                *(
                    Route(device=dev, vrf="default", prefix=f"10.63.{k // 250}.{k % 250}/32", protocol="bgp")
                    for k in range(len(spine_peers[s]) * 2)
                ),
            ],
        )

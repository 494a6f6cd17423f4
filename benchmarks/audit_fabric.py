"""A generated fabric of N switches as offline evidence files plus an audit config, for audit_scale.py.

Shaped like the example lab, grown: 5% OOB switches (EOS), 15% frontend leaves (NX-OS), 5% backend
spines and 75% backend leaves (EOS), each with its own addresses; backend tenants have their own VRF,
VLAN, L3 VNI and route-target (one tenant per 100 switches, two per leaf); one AWS account per 200
switches (the lab's account cloned, plus 50 security groups each) with hourly flow-log files, and one
Kubernetes cluster per 500 switches (the lab's tenants plus 20 generated ones each). A few violations per
thousand devices are planted (default routes, a route-target leak, an MTU, a DSCP trust, an OOB default
route, a flow into tier 1) so the checks walk their failure paths. Deterministic: the same N gives the
same files."""

from __future__ import annotations

import gzip
import ipaddress
import json
import re
import shutil
from pathlib import Path

LAB = Path(__file__).resolve().parent.parent / "examples" / "lab"
BE_GPU_BASE = int(ipaddress.ip_address("10.40.0.0"))
BE_P2P_BASE = int(ipaddress.ip_address("10.32.0.0"))
FE_SVI_BASE = int(ipaddress.ip_address("10.17.0.0"))
FE_P2P_BASE = int(ipaddress.ip_address("10.30.0.0"))
UPLINKS = 4  # per backend leaf, 800G each, for 8 x 400G GPU ports: 1:1
GPU_PORTS = 8
PROXY, RESOLVER, JUMP = "10.16.5.10", "10.16.0.53", "10.250.200.10"


def ip(n: int) -> str:
    return str(ipaddress.ip_address(n))


def mgmt_ip(g: int) -> tuple[str, str]:
    """Device g's management address and its subnet's gateway (250 devices per /24)."""
    return f"10.250.{1 + g // 250}.{g % 250 + 1}", f"10.250.{1 + g // 250}.254"


def split(n: int) -> tuple[int, int, int, int]:
    """OOB switches, frontend leaves, backend spines, backend leaves for n switches."""
    oob, fe, spines = max(1, n // 20), max(1, n * 3 // 20), max(2, n // 20)
    return oob, fe, spines, n - oob - fe - spines


def tenants(n: int) -> int:
    return max(2, n // 100)


def vrf_name(t: int) -> str:
    return f"RDMA-T{t:03d}"


SECRET = (
    "$6$Xq0bF2pS9vJ3kT1m$QmZr8fYbA1cDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcdefghij"
    + "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
)
EOS_HEAD = """! device: {host} ({model}, EOS-4.32.2F)
!
no aaa root
!
username admin privilege 15 role network-admin secret sha512 {SECRET}
!
service routing protocols model multi-agent
!
hostname {host}
ip name-server vrf MGMT 10.250.0.53
!
snmp-server vrf MGMT
snmp-server community lab-backend-ro ro
no snmp-server vrf default
!
spanning-tree mode none
!
"""

EOS_MGMT = """management api http-commands
   protocol https
   no shutdown
   !
   vrf default
      shutdown
   !
   vrf MGMT
      no shutdown
!
management ssh
   shutdown
   !
   vrf MGMT
      no shutdown
!
qos profile ROCE
   qos trust dscp
   !
   tx-queue 3
      bandwidth percent 50
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20
   !
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control pause watchdog
!
"""


AF_IPV4 = "   !\n   address-family ipv4\n      neighbor RDMA-UNDERLAY activate\n      network {lo0}/32\n"


def _eos_port(name: str, desc: str, speed: str, body: str) -> str:
    head = f"interface {name}\n   description {desc}\n   mtu 9214\n   speed {speed}\n"
    return f"{head}{body}   service-profile ROCE\n!\n"


def backend_leaf(i: int, g: int, spines: int, n_tenants: int) -> str:
    host = f"be-leaf{i + 1}"
    lo0, lo1 = f"10.60.{i // 250}.{i % 250 + 1}", f"10.61.{i // 250}.{i % 250 + 1}"
    ten = [(2 * i) % n_tenants, (2 * i + 1) % n_tenants]
    out = [EOS_HEAD.format(host=host, model="DCS-7060X5-64S", SECRET=SECRET)]
    out += [f"vlan {3000 + t}\n   name {vrf_name(t)}_GPU\n!\n" for t in ten]
    out += ["vrf instance MGMT\n!\n"] + [f"vrf instance {vrf_name(t)}\n!\n" for t in ten]
    out.append(EOS_MGMT)
    bgp_nb = []
    for k in range(UPLINKS):
        s = (i * UPLINKS + k) % spines
        link = BE_P2P_BASE + 2 * (i * UPLINKS + k)
        out.append(
            _eos_port(
                f"Ethernet{k + 1}",
                f"P2P_be-spine{s + 1}",
                "800g",
                f"   no switchport\n   ip address {ip(link + 1)}/31\n",
            )
        )
        bgp_nb.append((ip(link), f"be-spine{s + 1}"))
    for p in range(GPU_PORTS):
        t = ten[p * 2 // GPU_PORTS]
        mtu_bad = i % 353 == 3 and p == 0
        trust_bad = "   qos trust cos\n" if i % 367 == 13 and p == 1 else ""
        text = _eos_port(
            f"Ethernet{UPLINKS + p + 1}",
            f"GPU_gpu-node{i * 4 + p // 2}_nic{p % 2}",
            "400g",
            f"   switchport access vlan {3000 + t}\n" + trust_bad,
        )
        out.append(text.replace("mtu 9214", "mtu 1500") if mtu_bad else text)
    mip, gw = mgmt_ip(g)
    out.append(f"interface Loopback0\n   description ROUTER_ID\n   ip address {lo0}/32\n!\n")
    out.append(f"interface Loopback1\n   description VTEP\n   ip address {lo1}/32\n!\n")
    out.append(
        f"interface Management1\n   description OOB_MANAGEMENT\n   vrf MGMT\n   ip address {mip}/24\n!\n"
    )
    for j, t in enumerate(ten):
        net = BE_GPU_BASE + (2 * i + j) * 64
        out.append(
            f"interface Vlan{3000 + t}\n   description {vrf_name(t)}_GPU_GATEWAY\n   mtu 9214\n"
            f"   vrf {vrf_name(t)}\n   ip address {ip(net + 1)}/26\n!\n"
        )
    vx = "".join(f"   vxlan vlan {3000 + t} vni {13000 + t}\n" for t in ten)
    vx += "".join(f"   vxlan vrf {vrf_name(t)} vni {50000 + t}\n" for t in ten)
    out.append(
        f"interface Vxlan1\n   description {host}_VTEP\n   vxlan source-interface Loopback1\n"
        f"   vxlan udp-port 4789\n{vx}!\n"
    )
    out.append("ip virtual-router mac-address 00:1c:73:00:00:99\n!\nip routing\nno ip routing vrf MGMT\n")
    out += [f"ip routing vrf {vrf_name(t)}\n" for t in ten]
    out.append(f"!\nip route vrf MGMT 10.250.0.0/16 {gw}\n")
    if i % 401 == 7:  # planted: a default route in a tenant VRF
        out.append(f"ip route vrf {vrf_name(ten[0])} 0.0.0.0/0 {ip(BE_GPU_BASE + 2 * i * 64 + 62)}\n")
    out.append(
        f"!\nrouter bgp {65200 + i}\n   router-id {lo0}\n   no bgp default ipv4-unicast\n"
        "   maximum-paths 8 ecmp 8\n   neighbor RDMA-UNDERLAY peer group\n"
        "   neighbor RDMA-UNDERLAY remote-as 65100\n   neighbor RDMA-UNDERLAY send-community\n"
    )
    for peer, spine in bgp_nb:
        out.append(f"   neighbor {peer} peer group RDMA-UNDERLAY\n   neighbor {peer} description {spine}\n")
    for t in ten:
        out.append(
            f"   !\n   vlan {3000 + t}\n      rd {lo0}:{13000 + t}\n"
            f"      route-target both {13000 + t}:{13000 + t}\n      redistribute learned\n"
        )
    out.append(
        f"   !\n   address-family ipv4\n      neighbor RDMA-UNDERLAY activate\n      network {lo0}/32\n"
    )
    out.append(f"      network {lo1}/32\n")
    for t in ten:
        rt = f"{50000 + t}:{50000 + t}"
        leak = ""
        if i % 397 == 11 and t == ten[0]:  # planted: imports the other tenant's route-target
            other = 50000 + ten[1]
            leak = f"      route-target import evpn {other}:{other}\n"
        out.append(
            f"   !\n   vrf {vrf_name(t)}\n      rd {lo0}:{50000 + t}\n      route-target import evpn {rt}\n"
            f"{leak}      route-target export evpn {rt}\n      redistribute connected\n"
        )
    out.append("!\nend\n")
    return "".join(out)


def backend_spine(s: int, g: int, spines: int, leaves: int) -> str:
    host = f"be-spine{s + 1}"
    lo0 = f"10.59.{s // 250}.{s % 250 + 1}"
    out = [
        EOS_HEAD.format(host=host, model="DCS-7800R3-36P", SECRET=SECRET),
        "vrf instance MGMT\n!\n",
        EOS_MGMT,
    ]
    nbs = []
    port = 0
    for i in range(leaves):
        for k in range(UPLINKS):
            if (i * UPLINKS + k) % spines != s:
                continue
            port += 1
            link = BE_P2P_BASE + 2 * (i * UPLINKS + k)
            out.append(
                _eos_port(
                    f"Ethernet{port}/1",
                    f"P2P_be-leaf{i + 1}_Ethernet{k + 1}",
                    "800g",
                    f"   no switchport\n   ip address {ip(link)}/31\n",
                )
            )
            nbs.append((ip(link + 1), 65200 + i, f"be-leaf{i + 1}"))
    mip, gw = mgmt_ip(g)
    out.append(f"interface Loopback0\n   description ROUTER_ID\n   ip address {lo0}/32\n!\n")
    out.append(
        f"interface Management1\n   description OOB_MANAGEMENT\n   vrf MGMT\n   ip address {mip}/24\n!\n"
    )
    out.append(f"ip routing\nno ip routing vrf MGMT\n!\nip route vrf MGMT 10.250.0.0/16 {gw}\n!\n")
    out.append(
        f"router bgp 65100\n   router-id {lo0}\n   no bgp default ipv4-unicast\n   maximum-paths 8 ecmp 8\n"
        "   neighbor RDMA-UNDERLAY peer group\n   neighbor RDMA-UNDERLAY send-community\n"
    )
    for peer, asn, leaf in nbs:
        out.append(
            f"   neighbor {peer} peer group RDMA-UNDERLAY\n   neighbor {peer} remote-as {asn}\n"
            f"   neighbor {peer} description {leaf}\n"
        )
    out.append(AF_IPV4.format(lo0=lo0) + "!\nend\n")
    return "".join(out)


def frontend_leaf(i: int, g: int) -> str:
    host = f"fe-leaf{i + 1}"
    lo = f"10.31.{i // 250}.{i % 250 + 1}"
    svi = [FE_SVI_BASE + (2 * i + j) * 256 for j in range(2)]
    up = FE_P2P_BASE + 2 * i
    mip, gw = mgmt_ip(g)
    extra_route = f"  ip route 10.40.0.0/16 {ip(up + 1)}\n" if i % 149 == 2 else ""  # planted: to the backend
    ports = "".join(
        f"interface Ethernet1/{p}\n  description K8S_node{i * 16 + p}_eth0\n"
        "  switchport\n  switchport mode trunk\n"
        f"  switchport trunk allowed vlan 2010-2011\n  mtu 9216\n  no shutdown\n\n"
        for p in range(1, 17)
    )
    return f"""!Command: show running-config
!Time: Tue Dec  1 09:15:02 2026

version 10.3(4a) Bios:version 05.47
hostname {host}

feature bgp
feature interface-vlan
feature lldp
feature nxapi

no password strength-check
username admin password 5 $5$KLMNOP$abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG  role network-admin
snmp-server community lab-frontend-ro group network-operator
snmp-server community lab-frontend-ro use-vrf management

ip access-list VTY-FROM-JUMP-HOSTS
  10 permit tcp {JUMP}/32 any eq 22
  20 deny ip any any log

nxapi use-vrf management

vlan 1,2010-2011
vlan 2010
  name SERVING
vlan 2011
  name INGEST

vrf context FRONTEND
  rd {lo}:20
{extra_route}  address-family ipv4 unicast
    route-target both 65200:20
vrf context management
  ip route 10.250.0.0/16 {gw}

interface Vlan2010
  description SERVING_GW
  no shutdown
  vrf member FRONTEND
  ip address {ip(svi[0] + 2)}/24

interface Vlan2011
  description INGEST_GW
  no shutdown
  vrf member FRONTEND
  ip address {ip(svi[1] + 2)}/24

{ports}interface Ethernet1/49
  description P2P_fe-border_Ethernet1/{i + 1}
  no switchport
  vrf member FRONTEND
  ip address {ip(up)}/31
  no shutdown

interface mgmt0
  description OOB_MANAGEMENT
  vrf member management
  ip address {mip}/24

interface loopback0
  description ROUTER_ID
  vrf member FRONTEND
  ip address {lo}/32
line console
line vty
  access-class VTY-FROM-JUMP-HOSTS in
router bgp 65300
  router-id {lo}
  vrf FRONTEND
    address-family ipv4 unicast
      network {ip(svi[0])}/24
      network {ip(svi[1])}/24
    neighbor {ip(up + 1)}
      remote-as 65000
      description fe-border
      address-family ipv4 unicast
"""


def oob_switch(i: int, g: int) -> str:
    host = f"oob-sw{i + 1}"
    mip, gw = mgmt_ip(g)
    bmc = f"10.250.{100 + i % 100}.0/24"
    ports = "".join(
        f"interface Ethernet{p}\n   description BMC_gpu-node{i * 40 + p}\n   switchport access vlan 100\n!\n"
        for p in range(1, 41)
    )
    default = "ip route 0.0.0.0/0 10.250.1.253 name FIRMWARE-VIA-CORP\n" if i % 97 == 3 else ""  # planted
    return f"""! device: {host} (DCS-7010TX-48, EOS-4.32.2F)
!
no aaa root
!
hostname {host}
!
snmp-server community lab-oob-ro ro
!
spanning-tree mode mstp
!
vlan 100
   name BMC
!
vlan 101
   name SWITCH_MGMT
!
management api http-commands
   protocol https
   no shutdown
!
{ports}interface Ethernet48
   description UPLINK_oob-core
   switchport access vlan 101
!
interface Management1
   description OOB_MANAGEMENT
   ip address {mip}/24
!
interface Vlan100
   description BMC_GW
   ip address {bmc[:-4]}1/24
   ip access-group BMC-FROM-JUMP-HOSTS out
!
interface Vlan101
   description SWITCH_MGMT_GW
   ip address {gw}/24
   ip access-group SWITCH-MGMT-FROM-JUMP-HOSTS out
!
ip access-list SWITCH-MGMT-FROM-JUMP-HOSTS
   10 permit tcp host {JUMP} 10.250.0.0/16 eq ssh https
   20 permit udp host {JUMP} 10.250.0.0/16 eq snmp
   30 deny ip any any log
!
ip access-list BMC-FROM-JUMP-HOSTS
   10 permit tcp host {JUMP} {bmc} eq ssh https
   20 permit udp host {JUMP} {bmc} eq 623
   30 deny ip any any log
!
ip routing
!
ip route 10.250.0.0/16 10.250.1.253
{default}!
end
"""


def _sg(account: str, vpc: str, k: int) -> dict[str, object]:
    def perm(port: int, cidr: str) -> dict[str, object]:
        return {
            "IpProtocol": "tcp",
            "FromPort": port,
            "ToPort": port,
            "IpRanges": [{"CidrIp": cidr}],
            "Ipv6Ranges": [],
            "PrefixListIds": [],
            "UserIdGroupPairs": [],
        }

    return {
        "GroupId": f"sg-{k:017x}",
        "GroupName": f"app-{k}",
        "Description": "generated",
        "VpcId": vpc,
        "OwnerId": account,
        "IpPermissions": [perm(8000 + r, f"10.{17 + r}.0.0/16") for r in range(4)]
        + [perm(22, "0.0.0.0/0" if k % 499 == 7 else f"{JUMP}/32")],
        "IpPermissionsEgress": [perm(3128, f"{PROXY}/32")],
        "Tags": [{"Key": "Name", "Value": f"app-{k}"}],
    }


# Resource ids AWS gives each account its own of (a transit gateway shared through RAM keeps its id).
_OWN_IDS = re.compile(r"\b((?:subnet|vpc|sg|rtb|acl|eni|igw|nat|pcx|fl|eigw|vpce)-0[0-9a-z]+)\b")


def own_ids(text: str, a: int) -> str:
    """The lab account's resource ids made this account's: AWS ids are unique across accounts, so a
    clone that kept them would be a fleet no real organisation has. The first account keeps the lab's."""
    if a == 0:
        return text
    return _OWN_IDS.sub(lambda m: f"{m.group(1)}{a:04x}", text)


def aws_account(root: Path, a: int) -> str:
    account = f"{111122220000 + a:012d}"
    src = LAB / "evidence" / "aws" / "us-east-1"
    dst = root / "evidence" / "aws" / account / "us-east-1"
    dst.mkdir(parents=True)
    for f in src.iterdir():
        (dst / f.name).write_text(own_ids(f.read_text().replace("111122223333", account), a))
    sgs = json.loads((dst / "SecurityGroups.json").read_text())
    vpc = sgs["SecurityGroups"][0]["VpcId"]
    sgs["SecurityGroups"] += [_sg(account, vpc, a * 1000 + k) for k in range(50)]
    (dst / "SecurityGroups.json").write_text(json.dumps(sgs))
    return account


def flow_logs(root: Path, account: str, a: int, records: int) -> None:
    """Four hourly files per account in the lab's v2 format."""
    head = (
        "version account-id interface-id srcaddr dstaddr srcport dstport protocol packets bytes start end "
        "action log-status\n"
    )
    d = root / "evidence" / "flowlogs"
    d.mkdir(parents=True, exist_ok=True)
    per = records // 4
    enis = [own_ids(f"eni-0serving{e:02d}", a) for e in range(64)]
    for h in range(4):
        lines = [head]
        t0 = 1764579600 + h * 3600
        for k in range(per):
            n = a * records + h * per + k
            src = f"10.20.{130 + n % 100}.{n // 100 % 250 + 1}"
            if n % 5000 == 17:
                dst, port, proto, action = (
                    f"10.250.{100 + n % 50}.{n % 200 + 1}",
                    623,
                    17,
                    "ACCEPT",
                )  # planted
            elif n % 3 == 0:
                dst, port, proto, action = PROXY, 3128, 6, "ACCEPT"
            elif n % 3 == 1:
                dst, port, proto, action = RESOLVER, 53, 17, "ACCEPT"
            else:
                dst, port, proto, action = f"10.{40 + n % 8}.{n % 256}.{n % 200 + 1}", 4791, 17, "REJECT"
            lines.append(
                f"2 {account} {enis[n % 64]} {src} {dst} {49152 + n % 16000} {port} {proto} "
                f"{10 + n % 90} {1400 * (10 + n % 90)} {t0 + k % 3500} {t0 + k % 3500 + 55} {action} OK\n"
            )
        flow_log = own_ids("fl-0serving000000000a", a)
        name = f"{account}_vpcflowlogs_us-east-1_{flow_log}_20261201T{h + 1:02d}00Z.log.gz"
        (d / name).write_bytes(gzip.compress("".join(lines).encode(), compresslevel=1))


def k8s_cluster(root: Path, c: int, extra: int) -> str:
    name = "lab-cluster" if c == 0 else f"gpu-cluster-{c + 1}"
    dst = root / "evidence" / "k8s" / name
    shutil.copytree(LAB / "evidence" / "k8s", dst)
    ns = (dst / "namespaces.yaml").read_text()
    lines = (LAB / "evidence" / "k8s" / "team-a.yaml").read_text().splitlines(keepends=True)
    template = "".join(x for x in lines if not x.startswith("#") and "port: 9090" not in x)
    assert "9090" not in template
    declared = root / "declared" / name
    for n in range(extra):
        tenant = f"tenant-{n:03d}"
        ns += (
            f"  - apiVersion: v1\n    kind: Namespace\n    metadata:\n      name: {tenant}\n"
            f"      labels: {{kubernetes.io/metadata.name: {tenant}, tier: frontend, tenant: {tenant}}}\n"
        )
        (dst / f"{tenant}.yaml").write_text(template.replace("team-a", tenant))
        if c == 0:  # the declared copy in git, as the live one
            (declared / f"{tenant}.yaml").write_text(template.replace("team-a", tenant))
    (dst / "namespaces.yaml").write_text(ns)
    return name


def generate(root: Path, n: int, store: str, reports: list[str]) -> Path:
    """Write the fabric's evidence and its auditor.yaml under root; return the config's path."""
    if root.exists():
        shutil.rmtree(root)
    dev = root / "evidence" / "devices"
    dev.mkdir(parents=True)
    oob, fe, spines, leaves = split(n)
    nt = tenants(n)
    g = 0
    for i in range(oob):
        (dev / f"oob-sw{i + 1}.cfg").write_text(oob_switch(i, g))
        g += 1
    for i in range(fe):
        (dev / f"fe-leaf{i + 1}.cfg").write_text(frontend_leaf(i, g))
        g += 1
    for s in range(spines):
        (dev / f"be-spine{s + 1}.cfg").write_text(backend_spine(s, g, spines, leaves))
        g += 1
    for i in range(leaves):
        (dev / f"be-leaf{i + 1}.cfg").write_text(backend_leaf(i, g, spines, nt))
        g += 1
    files: list[object] = ["evidence/devices", "evidence/flowlogs", {"path": "evidence/ib"}]
    shutil.copytree(LAB / "evidence" / "ib", root / "evidence" / "ib")
    accounts = max(1, n // 200)
    for a in range(accounts):
        account = aws_account(root, a)
        files.append({"path": f"evidence/aws/{account}", "account": account})
        flow_logs(root, account, a, records=n * 50 // accounts)
    shutil.copytree(LAB / "declared", root / "declared")
    for c in range(max(1, n // 500)):
        cluster = k8s_cluster(root, c, 20)
        files.append({"path": f"evidence/k8s/{cluster}", "cluster": cluster})
    config = {
        "scope": f"generated fabric of {n} switches",
        "intent": {
            "tiers": {
                "oob": {
                    "cidrs": ["10.250.0.0/16"],
                    "vrfs": ["MGMT", "management"],
                    "devices": ["oob-*"],
                    "device_roles": {"oob-switch": ["oob-sw*"]},
                    "jump_hosts": [JUMP],
                },
                "frontend": {
                    "cidrs": ["10.16.0.0/12", "10.20.0.0/16"],
                    "vrfs": ["FRONTEND"],
                    "vlans": "2000-2999",
                    "device_roles": {"leaf": ["fe-leaf*"]},
                    "namespaces": {"labels": {"tier": "frontend"}},
                    "aws": {"vpc_tags": {"tier": "frontend"}, "subnet_tags": {"role": "model-serving"}},
                    "egress_proxy": [f"{PROXY}:3128", "10.20.5.10:3128"],
                    "dns_resolvers": [RESOLVER, "10.20.0.53"],
                },
                "backend": {
                    "cidrs": ["10.32.0.0/11"],
                    "vrfs": ["default", *(vrf_name(t) for t in range(nt))],
                    "vlans": "3000-3999",
                    "device_roles": {"spine": ["be-spine*"], "leaf": ["be-leaf*"]},
                    "min_mtu": 9000,
                    "lossless_priority": 3,
                    "max_oversubscription": 1.0,
                },
            }
        },
        "sources": {
            "files": files,
            "declared": [{"path": "declared/lab-cluster", "cluster": "lab-cluster"}],
        },
        "store": store,
        "output": "out",
        "reports": reports,
    }
    path = root / "auditor.yaml"
    path.write_text(json.dumps(config, indent=1))  # JSON is YAML
    return path

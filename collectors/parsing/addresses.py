"""Interface addresses with their kind (auditor.facts.IfAddress), for every platform's reader.

A virtual gateway address is often written without a length (`standby 1 ip 10.1.1.1`,
`vrrp 5 address 10.1.1.1`, `ip virtual-router address 10.1.1.1`): it then takes the length of the
interface's own subnet that holds it, as the OSes do; one outside every subnet is a host address.
"""

from __future__ import annotations

import ipaddress

from auditor.facts.network import AddressKind, IfAddress


def with_length(address: str, own: list[str]) -> str | None:
    """`address` in interface notation ("A/L"); None when it is not an IPv4 address."""
    try:
        if "/" in address:
            return str(ipaddress.IPv4Interface(address))
        addr = ipaddress.IPv4Address(address)
    except ValueError:
        return None
    for text in own:
        try:
            net = ipaddress.IPv4Interface(text).network
        except ValueError:
            continue
        if addr in net:
            return f"{addr}/{net.prefixlen}"
    return f"{addr}/32"


def own_addresses(ipv4: list[str], kind_of_first: AddressKind = "primary") -> list[IfAddress]:
    """The interface's own IPv4 addresses: the first is the primary, the rest secondaries."""
    return [IfAddress(address=a, kind=kind_of_first if i == 0 else "secondary") for i, a in enumerate(ipv4)]


def virtual(address: str, kind: AddressKind, group: int | None = None) -> IfAddress:
    return IfAddress(address=address, kind=kind, group=group)


def virtual_list(addresses: list[IfAddress]) -> list[str]:
    """The addresses of `addresses` that are virtual gateway addresses, each once, in order."""
    return list(dict.fromkeys(a.address for a in addresses if a.virtual))

"""The TCP/UDP port names EOS and IOS accept in an ACL port match (`eq www https`, `range ftp-data ftp`).

The parser needs them to know where a list of ports after `eq`/`neq` ends: a word that is neither a
number nor one of these names is the next field (the destination address, `log`, `established`...).
Numbers follow the IANA assignments the OS documentation gives for each keyword.
"""

from __future__ import annotations

PORT_NAMES: dict[str, int] = {
    "bgp": 179,
    "biff": 512,
    "bootpc": 68,
    "bootps": 67,
    "chargen": 19,
    "cmd": 514,
    "daytime": 13,
    "discard": 9,
    "dnsix": 195,
    "domain": 53,
    "echo": 7,
    "exec": 512,
    "finger": 79,
    "ftp": 21,
    "ftp-data": 20,
    "gopher": 70,
    "hostname": 101,
    "http": 80,
    "https": 443,
    "ident": 113,
    "imap": 143,
    "irc": 194,
    "isakmp": 500,
    "kerberos": 88,
    "klogin": 543,
    "kshell": 544,
    "ldap": 389,
    "ldaps": 636,
    "login": 513,
    "lpd": 515,
    "mobile-ip": 434,
    "nameserver": 42,
    "netbios-dgm": 138,
    "netbios-ns": 137,
    "netbios-ss": 139,
    "nntp": 119,
    "non500-isakmp": 4500,
    "ntp": 123,
    "pim-auto-rp": 496,
    "pop2": 109,
    "pop3": 110,
    "radius": 1812,
    "radius-acct": 1813,
    "rip": 520,
    "smtp": 25,
    "snmp": 161,
    "snmptrap": 162,
    "ssh": 22,
    "sunrpc": 111,
    "syslog": 514,
    "tacacs": 49,
    "tacacs-ds": 65,
    "talk": 517,
    "telnet": 23,
    "tftp": 69,
    "time": 37,
    "uucp": 540,
    "who": 513,
    "whois": 43,
    "www": 80,
    "xdmcp": 177,
}


def is_port(word: str) -> bool:
    """A port number or a port name an ACL accepts."""
    return word.isdigit() or word.lower() in PORT_NAMES


def port_number(word: str) -> int | None:
    """The number of a port written as a number or a name; None for a name not known here."""
    return int(word) if word.isdigit() else PORT_NAMES.get(word.lower())

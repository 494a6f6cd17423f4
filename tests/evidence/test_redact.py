"""Redaction: every kind of secret is replaced in place, and nothing else on the line moves.

The fixture folders under tests/fixtures/redaction hold real configs (with their SOURCE.txt) and
synthetic ones (one per rule with no public sample): each has the input, the exact expected output,
and the known secrets, which must all be gone.
"""

from __future__ import annotations

import gzip
import io
import json
import logging
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from auditor.evidence.redact import (
    REDACTED,
    RedactingFilter,
    Redaction,
    RedactionRefused,
    redact,
    redact_text,
)
from auditor.evidence.redact_rules import RULE_NAMES

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "redaction"

# --------------------------------------------------------------------------------------------------
# (1) One case per kind of secret: (rule, text, secret). The expected output is the text with the
# secret replaced by the token, in place: the rest of the line must stay byte-identical.

PEM_RSA = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAqZ0F4zzH7k0Vd3vJ9sJx0cQq2b6mZt0Vv6Xh1b3K8mN9pQ2r\n"
    "-----END RSA PRIVATE KEY-----"
)
PEM_EC = (
    "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBk8mF3qW9xZ2yV0u7tR5sP3oN1mL9kJ7\n-----END EC PRIVATE KEY-----"
)
PEM_OPENSSH = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
PEM_ENCRYPTED = (
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQww\n"
    "-----END ENCRYPTED PRIVATE KEY-----"
)
PEM_PKCS8 = (
    "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ8dZcF0Zc2Uq3vW1xY4zA7b\n-----END PRIVATE KEY-----"
)
PEM_ESCAPED = PEM_RSA.replace("\n", "\\n")
JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJl"

CASES: list[tuple[str, str, str | tuple[str, ...]]] = [
    # Cisco / Arista / NX-OS / Junos local credentials
    ("enable-secret", "enable secret 5 $1$mERr$hx5rVt7rPNoS4wqbXKX7m0", "$1$mERr$hx5rVt7rPNoS4wqbXKX7m0"),
    (
        "enable-secret",
        "enable secret 9 $9$nhEmQVczB7dqsO$X.HsgL6x1il0RxkOSSvyQYwucySCt7qFm4v7pqCxkKM",
        "$9$nhEmQVczB7dqsO$X.HsgL6x1il0RxkOSSvyQYwucySCt7qFm4v7pqCxkKM",
    ),
    ("enable-secret", "enable password 7 0822455D0A16", "0822455D0A16"),
    ("enable-secret", "enable password sha512 $6$Pq4x$Yk1TzQ0e5n", "$6$Pq4x$Yk1TzQ0e5n"),
    ("enable-secret", "enable password my plain words", "my plain words"),
    ("aaa-root-secret", "aaa root secret sha512 $6$RootSalt$RootHash0", "$6$RootSalt$RootHash0"),
    ("user-secret", "username bob privilege 15 secret 0 PlainText0", "PlainText0"),
    (
        "user-secret",
        "username bob privilege 15 secret 5 $1$xyzq$abcdefghijklmnop",
        "$1$xyzq$abcdefghijklmnop",
    ),
    ("user-secret", "username bob privilege 15 password 7 0822455D0A16", "0822455D0A16"),
    (
        "user-secret",
        "username bob privilege 15 secret 8 $8$dsYGNam3K1SIJO$7nv/35M/qr6t.dVc7UY9zrJDWRVqncHub1PE9UlMQFs",
        "$8$dsYGNam3K1SIJO$7nv/35M/qr6t.dVc7UY9zrJDWRVqncHub1PE9UlMQFs",
    ),
    (
        "user-secret",
        "username bob algorithm-type scrypt secret 9 $9$2MJBozw/9R3UsU$2lFhcKvpghcyw8deP25GOfyZaagyU",
        "$9$2MJBozw/9R3UsU$2lFhcKvpghcyw8deP25GOfyZaagyU",
    ),
    (
        "user-secret",
        "username admin privilege 15 role network-admin secret sha512 $6$7u4j1rkb3VELgcZE$EJt2Qff8kd",
        "$6$7u4j1rkb3VELgcZE$EJt2Qff8kd",
    ),
    (
        "user-secret",
        "username admin password 5 $5$aH4ttsPk$kNH7qXBaegskBU  role network-admin",
        "$5$aH4ttsPk$kNH7qXBaegskBU",
    ),
    (
        "junos-encrypted-password",
        'set system root-authentication encrypted-password "$1$CXKwIUfL$6vLSvatE2T"',
        "$1$CXKwIUfL$6vLSvatE2T",
    ),
    (
        "junos-encrypted-password",
        '        encrypted-password "$6$abcd$RootHash"; ## SECRET-DATA',
        "$6$abcd$RootHash",
    ),
    (
        "junos-encrypted-password",
        "set system root-authentication plain-text-password-value Sup3rPlain",
        "Sup3rPlain",
    ),
    ("junos-secret", '    secret "$9$dkb2aZGi.fzDiqPfTF6S"; ## SECRET-DATA', "$9$dkb2aZGi.fzDiqPfTF6S"),
    ("junos-secret", '    md5 1 key "$9$Md5KeyValue"; ## SECRET-DATA', "$9$Md5KeyValue"),
    (
        "authentication-key",
        '    authentication-key "$9$PLhyeKMLxdVYg.P5T3"; ## SECRET-DATA',
        "$9$PLhyeKMLxdVYg.P5T3",
    ),
    (
        "authentication-key",
        "set interfaces irb unit 5 family inet address 1.2.3.1/24 vrrp-group 5 authentication-key abcdefg",
        "abcdefg",
    ),
    ("authentication-key", " area 1 virtual-link 10.0.0.9 authentication-key 7 0822455D0A16", "0822455D0A16"),
    (
        "pre-shared-key",
        'set security ike policy P pre-shared-key ascii-text "$9$Sr8yeWLX-db20Brv"',
        "$9$Sr8yeWLX-db20Brv",
    ),
    ("pre-shared-key", 'set security ike policy P pre-shared-key hexadecimal "0a1b2c3d4e5f"', "0a1b2c3d4e5f"),
    ("key-string", "  key-string 7 0822455D0A16", "0822455D0A16"),
    ("key-string", "  key-string PlainKey", "PlainKey"),
    ("ntp-key", "ntp authentication-key 1 md5 104D000A0618 7", "104D000A0618"),
    ("ntp-key", "ntp authentication-key 2 sha1 7 0822455D0A16", "0822455D0A16"),
    ("ftp-password", "ip ftp password 7 0822455D0A16", "0822455D0A16"),
    ("hsrp-vrrp-auth", " standby 1 authentication md5 key-string 7 0822455D0A16 timeout 30", "0822455D0A16"),
    ("hsrp-vrrp-auth", " standby 2 authentication text HsrpText2", "HsrpText2"),
    ("hsrp-vrrp-auth", " standby 3 authentication HsrpPlain3", "HsrpPlain3"),
    ("hsrp-vrrp-auth", " vrrp 5 authentication text VrrpText5", "VrrpText5"),
    ("hsrp-vrrp-auth", "    authentication md5 key-string NxHsrp7", "NxHsrp7"),
    # SNMP
    ("snmp-community", "snmp-server community PubComm RO 10", "PubComm"),
    ("snmp-community", "snmp-server community EosRoComm ro", "EosRoComm"),
    ("snmp-community", "snmp-server community bogus123 group network-operator", "bogus123"),
    (
        "snmp-community",
        "snmp {\n    community JunosComm {\n        authorization read-only;\n    }\n}",
        "JunosComm",
    ),
    ("snmp-community", "set snmp community SetFormComm authorization read-only", "SetFormComm"),
    (
        "snmpv3-user-key",
        "snmp-server user admin auth md5 0x9e902c388e9b4c616e7c7c98d1079325 localizedkey",
        "0x9e902c388e9b4c616e7c7c98d1079325",
    ),
    (
        "snmpv3-user-key",
        "snmp-server user u network-admin auth sha AuthPw priv 0xaabbccdd localizedkey",
        ("AuthPw", "0xaabbccdd"),
    ),
    (
        "snmpv3-user-key",
        "snmp-server user u network-admin auth sha 0xaa11 priv aes-128 PrivPw localizedkey",
        ("0xaa11", "PrivPw"),
    ),
    (
        "snmpv3-user-key",
        "snmp-server user ops NETOPS v3 localized 800028ba03 auth sha256 0x5b1ff6b2 priv aes 0x9e8d7c6b",
        ("0x5b1ff6b2", "0x9e8d7c6b"),
    ),
    (
        "snmpv3-user-key",
        "snmp-server user ops NETOPS v3 auth sha AuthPass99 priv aes 128 PrivPass99",
        ("AuthPass99", "PrivPass99"),
    ),
    ("snmp-host-community", "snmp-server host 10.250.20.5 version 2c TrapComm5 udp-port 162", "TrapComm5"),
    ("snmp-host-community", "snmp-server host 10.250.20.8 TrapComm8", "TrapComm8"),
    # TACACS+ / RADIUS
    ("tacacs-key", "tacacs-server key 7 070C285F4D06485744", "070C285F4D06485744"),
    ("tacacs-key", "tacacs-server key 0 Shared Key With Spaces", "Shared Key With Spaces"),
    ("tacacs-key", "tacacs-server host 10.250.10.6 vrf MGMT key 7 0822455D0A16544541", "0822455D0A16544541"),
    ("tacacs-key", 'tacacs-server host 10.250.10.7 key 7 "fewhg123" port 49', "fewhg123"),
    ("tacacs-key", "tacacs server TAC1\n address ipv4 10.250.10.8\n key 7 104D000A0618", "104D000A0618"),
    (
        "tacacs-key",
        'system {\n    tacplus-server {\n        10.250.10.5 {\n            secret "$9$dkb2aZG";\n',
        "$9$dkb2aZG",
    ),
    ("tacacs-key", 'set system tacplus-server 10.250.10.6 secret "$9$ZGjHqfT3nC"', "$9$ZGjHqfT3nC"),
    ("radius-key", "radius-server key RadKey0", "RadKey0"),
    (
        "radius-key",
        "radius-server host 10.20.0.60 auth-port 1812 acct-port 1813 key 7 02050D480809",
        "02050D480809",
    ),
    ("radius-key", 'set system radius-server 10.20.0.60 secret "$9$Hk5FCA0I"', "$9$Hk5FCA0I"),
    ("server-private-key", " server-private 10.250.10.9 key 7 1511021F0725", "1511021F0725"),
    # Routing protocol authentication
    (
        "bgp-password",
        "   neighbor EVPN-OVERLAY-PEERS password 7 Q4fqtbqcZ7oQuKfuWtNGRQ==",
        "Q4fqtbqcZ7oQuKfuWtNGRQ==",
    ),
    ("bgp-password", " neighbor 10.1.1.1 password 0 PlainBgp", "PlainBgp"),
    (
        "bgp-password",
        "router bgp 65101\n  neighbor 10.30.255.0\n    remote-as 65100\n    password 3 5b1ff6b2d1e4",
        "5b1ff6b2d1e4",
    ),
    ("bgp-password", "router bgp 65101\n  template peer SPINES\n    password 7 0822455D0A16", "0822455D0A16"),
    ("ospf-auth-key", "   ip ospf authentication-key 7 asfddja23452", "asfddja23452"),
    ("ospf-md5-key", "   ip ospf message-digest-key 1 sha512 7 asfddja23452", "asfddja23452"),
    ("ospf-md5-key", " ip ospf message-digest-key 20 md5 PlainMd5", "PlainMd5"),
    ("ospf-md5-key", " area 1 virtual-link 10.0.0.9 message-digest-key 1 md5 7 0822455D0A16", "0822455D0A16"),
    ("isis-auth-key", "   isis authentication key 7 asfddja23452", "asfddja23452"),
    ("isis-auth-key", "   isis authentication key 0 password level-2", "password"),
    ("isis-auth-key", "   isis authentication key-id 2 algorithm sha-512 key 0 password1", "password1"),
    ("isis-auth-key", " isis password IfIsisPw level-2", "IfIsisPw"),
    ("isis-auth-key", "router isis UNDERLAY\n   authentication key 7 070C285F4D06", "070C285F4D06"),
    ("isis-area-password", " area-password AreaPw1", "AreaPw1"),
    ("isis-area-password", " domain-password 7 0822455D0A16 authenticate snp validate", "0822455D0A16"),
    # Pre-shared keys
    ("isakmp-key", "crypto isakmp key 6 IsakmpKey6 address 198.51.100.7", "IsakmpKey6"),
    (
        "pre-shared-key",
        "  pre-shared-key address 52.27.166.152 key QMP5tKPP5qk95Y1Eee9c_82.MofNUJQV",
        "QMP5tKPP5qk95Y1Eee9c_82.MofNUJQV",
    ),
    ("pre-shared-key", "  pre-shared-key address 0.0.0.0 0.0.0.0 key WildKey", "WildKey"),
    ("pre-shared-key", "  pre-shared-key local 6 Ikev2Local", "Ikev2Local"),
    ("pre-shared-key", " ikev1 pre-shared-key AsaPsk", "AsaPsk"),
    ("config-key", "key config-key password-encrypt MasterKey123", "MasterKey123"),
    (
        "shared-secret-profile",
        "      secret 1 7 0822455D0A16 receive-lifetime infinite transmit-lifetime infinite",
        "0822455D0A16",
    ),
    # Private keys, as a whole block, also JSON-escaped
    ("pem-private-key", f"crypto key import\n{PEM_RSA}\nhostname edge1", PEM_RSA),
    ("pem-private-key", f"{PEM_EC}\n", PEM_EC),
    ("pem-private-key", f"{PEM_OPENSSH}\n", PEM_OPENSSH),
    ("pem-private-key", f"{PEM_ENCRYPTED}\n", PEM_ENCRYPTED),
    ("pem-private-key", f"{PEM_PKCS8}\n", PEM_PKCS8),
    ("pem-private-key", f'{{"KeyName": "audit", "KeyMaterial": "{PEM_ESCAPED}"}}', PEM_ESCAPED),
    # AWS
    ("aws-access-key-id", "aws_access_key_id = AKIAZ7XQ4EXAMPLE1234", "AKIAZ7XQ4EXAMPLE1234"),
    ("aws-access-key-id", '{"AccessKeyId": "ASIAZ7XQ4EXAMPLE9012"}', "ASIAZ7XQ4EXAMPLE9012"),
    (
        "aws-secret-access-key",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
    ),
    (
        "aws-secret-access-key",
        '{"SecretAccessKey": "9drTJvcXLB89EXAMPLELB8923FB892xMFI"}',
        "9drTJvcXLB89EXAMPLELB8923FB892xMFI",
    ),
    (
        "aws-secret-access-key",
        "export AWS_SECRET_ACCESS_KEY=abcdEXAMPLEsecretKEY/0123",
        "abcdEXAMPLEsecretKEY/0123",
    ),
    ("aws-session-token", "aws_session_token = IQoJb3JpZ2luX2VjEDMaCXVz==", "IQoJb3JpZ2luX2VjEDMaCXVz=="),
    (
        "aws-session-token",
        '{"Credentials": {"SessionToken": "AQoXdzELDDY//////////wEaoAK1"}}',
        "AQoXdzELDDY//////////wEaoAK1",
    ),
    (
        "secret-tag",
        '{"Tags": [{"Key": "ci-api-key", "Value": "tagValueSecret123"}, {"Key": "Name", "Value": "prod"}]}',
        "tagValueSecret123",
    ),
    ("sonic-snmp-community", '{"SNMP_COMMUNITY|sonicCommunity7": {"TYPE": "RO"}}', "sonicCommunity7"),
    (
        "sonic-snmp-community",
        '"SNMP_COMMUNITY": {\n    "nestedCommunity9": {\n        "TYPE": "RW"\n    }\n}',
        "nestedCommunity9",
    ),
    ("secret-field", '{"TACPLUS_SERVER|10.0.0.1": {"passkey": "tacPasskey42"}}', "tacPasskey42"),
    (
        "secret-env",
        '{"env": [{"name": "DB_PASSWORD", "value": "envSecretValue42"}, {"name": "LOG", "value": "info"}]}',
        "envSecretValue42",
    ),
    (
        "secret-env",
        "        - name: API_TOKEN\n          value: yamlEnvSecret99",
        "yamlEnvSecret99",
    ),
    # Tokens
    (
        "authorization-header",
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz",
        "abcdefghijklmnopqrstuvwxyz",
    ),
    (
        "authorization-header",
        '{"headers": {"Authorization": "Bearer sk-live-abcdefghijklmnop"}}',
        "sk-live-abcdefghijklmnop",
    ),
    ("authorization-header", "Proxy-Authorization: Basic YXVkaXQ6cGFzc3dvcmQ=", "YXVkaXQ6cGFzc3dvcmQ="),
    (
        "bearer-token",
        "retrying with Bearer Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA after 401",
        "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA",
    ),
    ("jwt", f"level=debug value={JWT} ns=tenant-a", JWT),
    (
        "kubeconfig-token",
        "- name: robot\n  user:\n    token: sha256~ExampleServiceAccountToken",
        "sha256~ExampleServiceAccountToken",
    ),
    ("kubeconfig-token", '{"user": {"token": "sha256~JsonToken"}}', "sha256~JsonToken"),
    ("kubeconfig-token", "        client-secret: OidcClientSecretValue", "OidcClientSecretValue"),
    (
        "kubeconfig-client-key",
        "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVk=",
        "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVk=",
    ),
    (
        "terminattr-auth-key",
        "   exec /usr/bin/TerminAttr -cvaddr=10.250.1.12:9910 -cvauth=key,CvpKey1 -cvvrf=MGMT",
        "CvpKey1",
    ),
    (
        "terminattr-auth-key",
        "   exec /usr/bin/TerminAttr -taillogs -ingestauth=key,telarista -ingestvrf=MGMT",
        "telarista",
    ),
    (
        "k8s-secret-data",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  dbpass: aHVudGVyMg==\n",
        "aHVudGVyMg==",
    ),
    ("k8s-secret-data", '{"kind": "Secret", "data": {"tls.key": "LS0tLS1CRUdJTi"}}', "LS0tLS1CRUdJTi"),
    ("secret-field", '{"PasswordData": "bm90LXJlYWxseQ=="}', "bm90LXJlYWxseQ=="),
    ("secret-field", "    password: hunter2hunter2", "hunter2hunter2"),
    (
        "crypt-hash",
        "    sha512_password: $6$eucN5ngreuExDgwS$xnD7T8jO..GBDX0DU",
        "$6$eucN5ngreuExDgwS$xnD7T8jO..GBDX0DU",
    ),
    # Generic, for lines no specific rule knows
    ("generic-password", "line vty 0 4\n password 7 0822455D0A16", "0822455D0A16"),
    ("generic-password", " ppp chap password 0 ChapPass1", "ChapPass1"),
    ("generic-secret", " wpa secret WpaSecret1", "WpaSecret1"),
    # IOS plaintext passwords may hold spaces when they end the command: all of it goes.
    ("user-secret", "username bob privilege 15 password 0 my plain words", "my plain words"),
    ("user-secret", "username bob password 0 two words  role network-operator", "two words"),
    ("bgp-password", " neighbor 10.1.1.1 password my bgp words", "my bgp words"),
    ("generic-password", "line vty 0 4\n password my line words", "my line words"),
    ("generic-password", "    password plain-junos;", "plain-junos"),
    # issue 11: MACsec CAK/CKN, shared keys, CoA server keys, PIM hello authentication
    (
        "macsec-key",
        "mac security\n   profile P1\n      cipher aes256-gcm-xpn\n      key 0ec5c4a1b2 7 CakSecret01",
        ("0ec5c4a1b2", "CakSecret01"),
    ),
    (
        "macsec-key",
        "key chain KC macsec\n  key 0123abcd\n    key-octet-string 7 CakOctets01 cryptographic-algorithm AES_256_CMAC",
        ("0123abcd", "CakOctets01"),
    ),
    (
        "macsec-key",
        'pre-shared-key {\n    ckn 0abc0def01;\n    cak "$9$CakJunos01";\n}',
        ("0abc0def01", "$9$CakJunos01"),
    ),
    ("shared-key", "management security\n   session shared-key 7 SessionShared01", "SessionShared01"),
    ("shared-key", "   pim ipv4 hello-authentication shared-key 7 PimShared01", "PimShared01"),
    ("server-key", "   client 10.250.0.5 vrf MGMT server-key 7 CoaServerKey01", "CoaServerKey01"),
    ("pim-hello-auth", "  ip pim hello-authentication ah-md5 3 PimHello01", "PimHello01"),
]


def _case_id(case: tuple[str, str, str | tuple[str, ...]]) -> str:
    return f"{case[0]}:{case[1].splitlines()[-1].strip()[:40]}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_each_secret_kind_is_replaced_in_place(case: tuple[str, str, str | tuple[str, ...]]) -> None:
    rule, text, secret = case
    secrets = (secret,) if isinstance(secret, str) else secret
    expected = text
    for value in secrets:
        assert text.count(value) == 1, "a case names each of its secrets once"
        expected = expected.replace(value, REDACTED)
    out, kinds = redact_text(text)
    assert out == expected
    assert kinds == {rule: len(secrets)}


def test_every_rule_has_a_table_case() -> None:
    assert len(set(RULE_NAMES)) == len(RULE_NAMES)
    assert set(RULE_NAMES) == {rule for rule, _, _ in CASES}


def test_redaction_counts_each_secret_once() -> None:
    line = "snmp-server user nx network-admin auth md5 0xaa11bb22 priv 0xcc33dd44 localizedkey"
    result = redact(line.encode(), "nxos.running-config")
    assert result == Redaction(
        content=b"snmp-server user nx network-admin auth md5 <redacted> priv <redacted> localizedkey",
        count=2,
        kinds={"snmpv3-user-key": 2},
    )


# --------------------------------------------------------------------------------------------------
# (2) Real and synthetic captures: exact expected output, known secrets gone, other lines untouched.

FIXTURE_DIRS = sorted(p.parent for p in FIXTURES.glob("*/*/input*"))
_HASH = re.compile(r"\$(?:1|5|6|8|9)\$[./A-Za-z0-9]{4,}")
_TYPED_VALUE = re.compile(r"\b(?:password|secret|key|key-string|authentication-key) [0-9] (\S+)")
_KEY_ID_ALGO = re.compile(r"md5|sha\w*|[0-9]")  # `key 1 md5 ...`, `secret 1 7 ...`: an id, then more


def _load(case_dir: Path, stem: str) -> bytes:
    (path,) = case_dir.glob(f"{stem}*")
    return path.read_bytes()


def _secrets(case_dir: Path) -> list[str]:
    lines = (case_dir / "secrets.txt").read_text().splitlines()
    return [line for line in lines if line and not line.startswith("# ")]


def test_fixture_folders_are_complete() -> None:
    assert len(FIXTURE_DIRS) >= 40
    for case_dir in FIXTURE_DIRS:
        assert (case_dir.parent / "SOURCE.txt").is_file(), case_dir
        assert {p.name.split(".")[0] for p in case_dir.iterdir()} >= {"input", "expected", "secrets"}


@pytest.mark.parametrize("case_dir", FIXTURE_DIRS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_capture_redacts_to_expected(case_dir: Path) -> None:
    raw, expected = _load(case_dir, "input"), _load(case_dir, "expected")
    secrets = _secrets(case_dir)
    result = redact(raw)
    out = result.content.decode()

    assert result.content == expected
    for secret in secrets:
        assert secret in raw.decode(), f"secrets.txt lists {secret!r}, which the input does not hold"
        assert secret not in out
    # Independent of the rules: no crypt hash and no typed (`7 ...`) value survives.
    assert not _HASH.search(out)
    for m in _TYPED_VALUE.finditer(out):
        assert m.group(1).strip('"') == REDACTED or _KEY_ID_ALGO.fullmatch(m.group(1)), m.group(0)
    # Every line that held no secret is still there, byte for byte.
    kept = Counter(
        line for line in raw.decode().splitlines() if line.strip() and not any(s in line for s in secrets)
    )
    assert not kept - Counter(out.splitlines())
    assert result.count == sum(result.kinds.values()) == out.count(REDACTED) - raw.decode().count(REDACTED)
    assert (result.count == 0) == (not secrets)


@pytest.mark.parametrize("case_dir", FIXTURE_DIRS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_capture_stays_parseable(case_dir: Path) -> None:
    (path,) = case_dir.glob("input*")
    raw, out = path.read_bytes(), redact(path.read_bytes()).content
    if path.suffix == ".json":
        json.loads(out)
    elif path.suffix in (".yaml", ".yml"):
        list(yaml.safe_load_all(out))
    else:
        assert out.count(b"\n") <= raw.count(b"\n")


def test_unparseable_secret_manifest_still_loses_its_data() -> None:
    manifest = (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-tls\n"
        "data:\n  tls.crt: {{ .Values.crt }}\n  tls.key: |\n    LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0t\n"
    )
    out, kinds = redact_text(manifest)
    assert "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0t" not in out
    assert "{{ .Values.crt }}" not in out
    assert out.startswith("apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-tls\ndata:\n")
    assert kinds == {"k8s-secret-data": 3}


def test_junos_prompt_is_not_mistaken_for_json() -> None:
    capture = "{master:0}\nuser@srx> show configuration | display set\nset snmp community JunosComm\n"
    assert redact_text(capture)[0] == capture.replace("JunosComm", REDACTED)


# --------------------------------------------------------------------------------------------------
# (3) Lines that checks need and that carry no secret: they must not change.

NOT_SECRETS = [
    "no enable password",
    "username admin privilege 15 role network-admin nopassword",
    "username pyclass passphrase  lifetime 99999 warntime 14 gracetime 3",
    "no password strength-check",
    "password strength-check",
    "service password-encryption",
    "no service password-encryption",
    "aaa authentication policy local allow-nopassword-remote-login",
    "   neighbor EVPN-OVERLAY-PEERS password shared-secret profile profile2 algorithm aes-128-cmac-96",
    "   isis authentication mode shared-secret profile profile1 algorithm sha-1 rx-disabled",
    "   exec /usr/bin/TerminAttr -cvaddr=192.168.1.12:9910 -cvauth=token,/tmp/token -cvvrf=MGMT",
    "   exec /usr/bin/TerminAttr -cvauth=token-secure,/tmp/cv-onboarding-token -cvvrf=MGMT",
    "    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",
    "    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",
    "-----BEGIN CERTIFICATE-----\nMIIC+zCCAeOgAwIBAgIJAKm7x1cUaPiBMA0G\n-----END CERTIFICATE-----",
    "snmp-server host 10.250.20.9 use-vrf management",
    "snmp-server host 10.250.20.10 version 3 auth snmpv3user",
    "snmp-server group NETOPS v3 priv read ALL",
    "snmp-server view ALL iso included",
    "snmp-server location DC1 row 4",
    "   private-vlan community primary vlan 110",
    "   neighbor EVPN-OVERLAY-PEERS send-community",
    " match community dept_community",
    "set policy-options community FRONTEND-RT members target:65000:200",
    "    community BACKEND-RT members target:65000:300;",
    " standby 4 authentication md5 key-chain HSRP-CHAIN",
    " ip ospf authentication message-digest",
    "   isis authentication mode md5",
    " ip rip authentication key-chain RIP-KEYS",
    " key 1",
    "key chain OSPF-KEYS",
    "  permit tcp any any eq tacacs",
    "ip tacacs source-interface Loopback0",
    "aaa group server tacacs+ TACACS-GROUP",
    "crypto isakmp policy 200",
    " authentication pre-share",
    " description password reset portal for tenant-a",
    " description secret project notes",
    "! the enable secret is managed by the vault",
    "# This user/password must exist on the switches",
    "    authentication-order [ tacplus password ];",
    "vrf instance MGMT",
    "ip route vrf MGMT 0.0.0.0/0 192.168.0.1",
    "interface Ethernet1/1\n  description to-be-spine1\n  mtu 9216\n  ip address 10.30.0.1/31",
    "router bgp 65101\n   neighbor 10.30.255.0 remote-as 65100\n   route-target import evpn 65000:300",
    '        "ClientToken": "bLnuq1506470152405",',
    '        "HttpTokens": "optional",',
    '        "NextToken": "",',
    '        "KeyName": "audit-key",',
    '  "PrivateIpAddress": "10.20.1.5",',
    '        "authorization": {"mode": "Webhook"},',
    "          secret:\n            namespace: tenant-a\n            name: externaltarget-tls",
    "  automountServiceAccountToken: false",
    "  - name: Authorization\n    mismatch: REPLACE",
    "kind: ConfigMap\ndata:\n  enable-policy: default",
    "2 123456789012 eni-0a1b2c3d 10.20.1.5 10.30.0.7 443 49152 6 10 840 1700000000 1700000060 ACCEPT OK",
    REDACTED,
    f"snmp-server community {REDACTED} ro",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_non_secrets_are_left_alone(text: str) -> None:
    assert redact_text(text) == (text, {})


# --------------------------------------------------------------------------------------------------
# (4) Idempotence: redacting a redacted capture changes nothing more and counts nothing.


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_table_case_is_idempotent(case: tuple[str, str, str | tuple[str, ...]]) -> None:
    once, _ = redact_text(case[1])
    assert redact_text(once) == (once, {})


@pytest.mark.parametrize("case_dir", FIXTURE_DIRS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_capture_is_idempotent(case_dir: Path) -> None:
    once = redact(_load(case_dir, "input")).content
    assert redact(once) == Redaction(content=once, count=0, kinds={})


# --------------------------------------------------------------------------------------------------
# (5) Bytes: non-UTF-8 round-trips exactly; binary formats pass through only by name or magic.


def test_non_utf8_bytes_round_trip() -> None:
    raw = (
        b"hostname sw\xe9-1\n"  # latin-1 e-acute, not UTF-8
        b"interface Ethernet1\n description caf\xc3\xa9 \xff\xfe\x00 uplink\n"
        b"username bob secret 0 p\xe4ss\xff\n"
        b"snmp-server community comm\x80unity ro\n"
    )
    result = redact(raw, "eos.running-config")
    assert result.content == (
        b"hostname sw\xe9-1\n"
        b"interface Ethernet1\n description caf\xc3\xa9 \xff\xfe\x00 uplink\n"
        b"username bob secret 0 <redacted>\n"
        b"snmp-server community <redacted> ro\n"
    )
    assert result.kinds == {"user-secret": 1, "snmp-community": 1}


def test_bytes_without_secrets_are_returned_unchanged() -> None:
    raw = bytes(range(256)) * 4
    assert redact(raw) == Redaction(content=raw, count=0, kinds={})


def test_flow_log_text_is_redacted_like_any_capture() -> None:
    """A file classified as a flow log is no longer passed through: a garbled line can hold anything."""
    line = b"2 123456789012 eni-1 10.0.0.1 10.0.0.2 22 5000 6 1 40 1 2 ACCEPT OK password hunter2\n"
    assert redact(line, "aws.flowlog").content == line.replace(b"hunter2", b"<redacted>")
    record = (
        b"2 123456789012 eni-0a1b2c3d 10.0.0.1 10.0.0.2 443 51000 6 10 840 1700000000 1700000060 ACCEPT OK\n"
    )
    assert redact(record, "aws.flowlog") == Redaction(content=record, count=0, kinds={})


@pytest.mark.parametrize(
    "content",
    [
        gzip.compress(b"2 1 eni-1 10.0.0.1 10.0.0.2 22 5000 6 1 40 1 2 ACCEPT OK\n"),
        b"PAR1" + b"\x00\x01" + b"PAR1",
    ],
    ids=["gzip-magic", "parquet-magic"],
)
def test_binary_formats_without_secrets_pass_through(content: bytes) -> None:
    assert redact(content, "aws.flowlog") == Redaction(content=content, count=0, kinds={})


@pytest.mark.parametrize(
    "content",
    [
        gzip.compress(b"Authorization: Bearer ghp_0123456789abcdefghijABCDEFGHIJ012345\n"),
        b"PAR1" + b"ghp_0123456789abcdefghijABCDEFGHIJ012345" + b"PAR1",
    ],
    ids=["gzip-magic", "parquet-magic"],
)
def test_binary_formats_holding_a_secret_are_refused(content: bytes) -> None:
    """Binary bytes cannot be edited in place: one holding a secret is refused, never stored."""
    with pytest.raises(RedactionRefused, match="binary content holds what looks like a secret"):
        redact(content, "aws.flowlog", origin="logs/x.gz")


def test_same_text_in_other_formats_is_redacted() -> None:
    line = b"enable secret 0 hunter2\n"
    assert redact(line, "eos.running-config").content == b"enable secret 0 <redacted>\n"
    assert redact(b"PAR1" + line, "").count == 1  # magic at the start only is not parquet


def test_config_inside_a_json_string_keeps_json_escapes() -> None:
    doc = json.dumps(
        {"running": "hostname sw\u00e9\nenable secret 5 $1$ab$cd\n", "tab": "a\tb"}, ensure_ascii=True
    )
    out, kinds = redact_text(doc)
    assert out == doc.replace("$1$ab$cd", REDACTED)
    assert kinds == {"enable-secret": 1}


# --------------------------------------------------------------------------------------------------
# (6) Logging: a planted secret never reaches the formatted output.


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    handler.addFilter(RedactingFilter())
    logger = logging.getLogger("tests.redact")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    yield stream
    logger.removeHandler(handler)


def test_filter_redacts_formatted_message(log_stream: io.StringIO) -> None:
    log = logging.getLogger("tests.redact")
    log.info("collected %s bytes: %r", 42, "username bob secret 0 Hunter2Hunter2\nhostname x")
    log.warning("headers %s", {"Authorization": "Bearer sk-live-abcdefghijklmnop"})
    output = log_stream.getvalue()
    assert "Hunter2Hunter2" not in output
    assert "sk-live-abcdefghijklmnop" not in output
    assert "collected 42 bytes" in output
    assert REDACTED in output


def test_filter_redacts_exception_text(log_stream: io.StringIO) -> None:
    log = logging.getLogger("tests.redact")
    try:
        raise ValueError("login failed for aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCY")
    except ValueError:
        log.exception("collector failed")
    output = log_stream.getvalue()
    assert "wJalrXUtnFEMIK7MDENGbPxRfiCY" not in output
    assert "collector failed" in output
    assert "ValueError" in output


def test_filter_leaves_clean_records_alone(log_stream: io.StringIO) -> None:
    log = logging.getLogger("tests.redact")
    log.info("normalized %d facts from %s", 17, "be-leaf1")
    assert log_stream.getvalue() == "INFO normalized 17 facts from be-leaf1\n"

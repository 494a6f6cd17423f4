"""The redaction rule table: one named rule per kind of secret, each a few precompiled patterns.

A pattern marks only the secret value, in groups whose names start with ``v``; everything else on
the line stays byte-identical so the normalizers can still parse the redacted config. Each pattern
has a lowercase ``gate`` substring: a capture whose lowercased text lacks it skips the regex, so a
1 MB capture costs a few dozen substring scans plus the regexes that can match. Patterns begin with
a literal keyword where possible, which lets the regex engine jump between occurrences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class Anchor(Enum):
    """What may stand before a match on its line; checked in Python, where look-behind can't reach."""

    LINE = "line"  # only indentation (or `line_prefix`): the keyword starts the config command
    YAML = "yaml"  # indentation and YAML list dashes
    WORD = "word"  # not glued to a preceding letter, digit, '_' or '-'
    ALNUM = "alnum"  # not glued to a preceding letter or digit
    NONE = "none"


class Scope(Enum):
    """How the body under a block header extends."""

    INDENT = "indent"  # following lines indented deeper than the header (IOS, EOS, NX-OS)
    BRACE = "brace"  # up to the matching closing brace (Junos)


@dataclass(frozen=True)
class Block:
    """A block header (matched at the start of a line): the pattern only counts inside such blocks."""

    header: re.Pattern[str]
    kind: Scope


@dataclass(frozen=True)
class Pattern:
    """One regex of a rule; `json_safe` ones never match across a JSON string's closing quote."""

    regex: re.Pattern[str]
    gate: str  # lowercase substring the text must hold for the regex to run
    groups: tuple[int, ...]  # the secret-value groups
    dispatch: tuple[tuple[int, str], ...] = ()  # (group, rule name): the rule is the group that matched
    anchor: Anchor = Anchor.WORD
    block: Block | None = None
    json_safe: bool = False
    reject_prefix: re.Pattern[str] | None = None  # line text before the match that vetoes it
    line_prefix: re.Pattern[str] | None = None  # with Anchor.LINE: what may precede besides indentation


@dataclass(frozen=True)
class Rule:
    """A named kind of secret. `fallback` rules skip lines that a specific rule has already matched."""

    name: str
    patterns: tuple[Pattern, ...]
    fallback: bool = False
    marks_line: bool = True  # False for tokens found anywhere (hashes, JWTs): they leave the line to others


SP = r"[ \t]+"
TYPE = rf"(?:[0-9]{SP})?"  # Cisco/Arista encryption type digit before the value
# Words that end a rest-of-line secret: options that may follow a key on AAA server lines.
_STOP = (
    r"(?:port|timeout|auth-port|acct-port|retransmit|single-connection|level-[12]|authentication"
    r"|accounting|vrf|use-vrf)\b"
)
# Options that may follow a local user's password (NX-OS puts the role after the hash).
_USER_STOP = r"(?:role|privilege|view|autocommand|nopassword|expire|shell|sshkey|ssh-key|priv-lvl)\b"
_DQ_BODY = r'[^"\\\n]*(?:\\.[^"\\\n]*)*'
# Names (of tags, env vars) that announce a credential in their value.
_SECRET_WORD = r"(?i:passw|secret|token|credential|api[_-]?key|private[_-]?key)"  # noqa: S105 (a pattern)


def tok(n: str = "") -> str:
    """A bare secret token: everything up to the next whitespace."""
    return rf"(?P<v{n}>\S+)"


def qv(n: str = "") -> str:
    """A double-quoted secret (only its inside is replaced, quotes kept) or a bare token.

    A bare token leaves a trailing Junos ';' outside, so the statement stays parseable.
    """
    return rf'(?:"(?P<v{n}q>{_DQ_BODY})"(?=[\s;]|$)|(?P<v{n}>\S+?)(?=;?(?:\s|$)))'


def rest(stop: str = _STOP) -> str:
    """A secret that runs to the end of the line (IOS keys may hold spaces), up to a known option."""
    return rf'(?:"(?P<vq>{_DQ_BODY})"(?=\s|$)|(?P<v>\S+(?:{SP}(?!{stop})\S+)*))'


def line_rest() -> str:
    """The rest of the line, for commands with nothing after the secret; a Junos ';' stays outside."""
    return rf'(?:"(?P<vq>{_DQ_BODY})"(?=[\s;]|$)|(?P<v>\S(?:[^\n]*?\S)?)(?=;?[ \t\r]*(?:\n|$)))'


def _json_val() -> str:
    """A JSON (or Python repr) string value; other JSON values never match, so JSON stays valid."""
    return rf"""(?:"(?P<vq>{_DQ_BODY})"|'(?P<vs>[^'\\\n]*)')"""


def _yaml_val() -> str:
    """A YAML scalar on the key's line: quoted, or plain up to the end of the line or a comment."""
    return rf"""(?:"(?P<vq>{_DQ_BODY})"|'(?P<vs>[^'\n]*)'|(?P<v>(?![{{\[|>&*!#])\S+(?:{SP}(?!#)\S+)*))"""


def _env_val() -> str:
    """A value in INI, env-file, shell or Python-repr syntax; never runs past a JSON string's end."""
    return rf"""(?:"(?P<vq>{_DQ_BODY})"|'(?P<vs>[^'\\\n]*)'|(?P<v>[^\s"'\\,;]+))"""


def _p(
    regex: str,
    gate: str,
    anchor: Anchor = Anchor.WORD,
    *,
    block: Block | None = None,
    json_safe: bool = False,
    reject_prefix: str | None = None,
    line_prefix: str | None = None,
) -> Pattern:
    assert gate == gate.lower(), gate
    compiled = re.compile(regex)
    return Pattern(
        regex=compiled,
        gate=gate,
        groups=tuple(i for name, i in sorted(compiled.groupindex.items()) if name.startswith("v")),
        dispatch=tuple(
            (i, name[len("rule_") :].replace("_", "-"))
            for name, i in sorted(compiled.groupindex.items())
            if name.startswith("rule_")
        ),
        anchor=anchor,
        block=block,
        json_safe=json_safe,
        reject_prefix=re.compile(reject_prefix) if reject_prefix else None,
        line_prefix=re.compile(rf"[ \t]*{line_prefix}") if line_prefix else None,
    )


def _json_keys(keys_by_rule: dict[str, tuple[str, ...]]) -> tuple[Pattern, ...]:
    """`"key": "value"` in raw JSON, `'key': 'value'` in Python reprs (log messages).

    One regex per quote style for all rules (a scan of the whole text each); the key's group says
    which rule the match belongs to.
    """
    keys = "|".join(
        f"(?P<rule_{rule.replace('-', '_')}>{'|'.join(names)})" for rule, names in keys_by_rule.items()
    )
    return (
        _p(rf'"(?:{keys})"[ \t\r\n]*:[ \t\r\n]*{_json_val()}', '"', Anchor.NONE, json_safe=True),
        _p(rf"'(?:{keys})'[ \t\r\n]*:[ \t\r\n]*{_json_val()}", "'", Anchor.NONE, json_safe=True),
    )


def _yaml_keys(gate: str, *keys: str) -> tuple[Pattern, ...]:
    """`key: value` as a YAML mapping entry starting its line (kubeconfig, manifests, CLI output)."""
    return tuple(_p(rf"{key}:{SP}{_yaml_val()}", gate, Anchor.YAML) for key in keys)


def _assign(gate: str, *keys: str) -> tuple[Pattern, ...]:
    """`KEY = value`, `KEY=value`, `"KEY": "value"` (INI, env files, shell exports, JSON, reprs)."""
    return tuple(_p(rf"{key}[\"']?[ \t]*[:=][ \t]*{_env_val()}", gate, json_safe=True) for key in keys)


def _block(header: str, kind: Scope) -> Block:
    return Block(header=re.compile(header), kind=kind)


_PEM_BEGIN = r"-----BEGIN (?P<t>(?:[A-Z0-9]+ )*)PRIVATE KEY(?P<b>(?: BLOCK)?)-----"
# Body characters; never five dashes, so the search for a block's END stops at the next BEGIN/END line
# (the scan stays linear however many BEGIN lines a hostile capture repeats).
_PEM_CHARS = r"(?:[A-Za-z0-9+/=:,.() \t\r\n]|-(?!----)|\\[rnt])"
_PEM_LINE = (
    r"(?:\r?\n|\\r?\\n)[ \t]*"
    r"(?:[A-Za-z0-9+/]+={0,2}|Proc-Type:[^\n\\\"]*|DEK-Info:[^\n\\\"]*|Comment:[^\n\\\"]*)"
    r"(?=[ \t]*(?:\r?\n|\\[rn]|\"|$))"  # whole lines only: the next config line is not key material
)

_TACACS_BLOCK = _block(r"tacacs(?: server|-server host)[ \t]+\S+", Scope.INDENT)
_RADIUS_BLOCK = _block(r"radius(?: server|-server host)[ \t]+\S+", Scope.INDENT)
_SERVER_PRIVATE_BLOCK = _block(r"server-private[ \t]+\S+", Scope.INDENT)
_TACPLUS_BLOCK = _block(r"tacplus-server\b[^{\n]*\{", Scope.BRACE)
_JUNOS_RADIUS_BLOCK = _block(r"radius-server\b[^{\n]*\{", Scope.BRACE)
_NEIGHBOR_BLOCK = _block(r"(?:neighbor|template[ \t]+peer(?:-session)?)[ \t]+\S+", Scope.INDENT)
_JUNOS_SNMP_BLOCK = _block(r"snmp[ \t]*\{", Scope.BRACE)
_MACSEC_PROFILE_BLOCK = _block(r"profile[ \t]+\S+", Scope.INDENT)
_MACSEC_CHAIN_BLOCK = _block(r"key chain[ \t]+\S+[ \t]+macsec\b", Scope.INDENT)
_JUNOS_PSK_BLOCK = _block(r"pre-shared-key[ \t]*\{", Scope.BRACE)
_HSRP_VRRP_PREFIX = rf"(?:(?:standby|vrrp){SP}\d+{SP}(?:peer{SP})?)?"
_PLAIN_AUTH = r"(?!(?:md5|ietf-md5|text|key-chain|sha\S*)\b)"  # `standby 1 authentication <plain>`
_KEY_ID = rf"key-id{SP}\d+{SP}algorithm{SP}\S+(?:{SP}rfc-5310)?{SP}key{SP}"

# Values after `password`/`secret` that are keywords, not secrets (policy and feature settings).
_KEYWORD_NOT_VALUE = (
    r"(?!(?:strength-check|encryption|encrypt|minimum|min-length|maximum|length|policy|shared-secret"
    r"|lifetime|history|profile|required|prompt|complexity|recovery|max-attempts|reuse-interval"
    r"|change|constraints?|hash|algorithm|mode|format|aging|expir\w*|options?|none)\b|[{};\[\]]+(?:\s|$))"
)
_GENERIC_TYPE = rf"(?:(?:[0-9]{{1,2}}|sha512|sha256|md5|scrypt|pbkdf2|cleartext|encrypted|hashed){SP})?"
# A line whose command only *mentions* a password: never a credential.
_PROSE_PREFIX = (
    r"^[ \t]*(?:no|description|remark|banner|alias|comment|name|title|help|echo|[!#]|//)(?:\s|$)"
    r"|\bdescription\b|\bremark\b"
)
_AUTH_HEADERS = (
    ("Authorization", "authorization"),
    ("authorization", "authorization"),
    ("AUTHORIZATION", "authorization"),
    ("X-Auth-Token", "x-auth-token"),
    ("X-API-Key", "x-api-key"),
    ("X-Api-Key", "x-api-key"),
    ("x-api-key", "x-api-key"),
    ("X-Vault-Token", "x-vault-token"),
    ("PRIVATE-TOKEN", "private-token"),
)
_AUTH_SCHEME = r"(?:Bearer|bearer|Basic|basic|Token|token|Digest|Negotiate)"
_NOT_BGP_PROFILE = r"(?!shared-secret\b)"

RULES: tuple[Rule, ...] = (
    Rule(
        "pem-private-key",
        (
            _p(
                rf"(?P<v>{_PEM_BEGIN}{_PEM_CHARS}*?-----END (?P=t)PRIVATE KEY(?P=b)-----)",
                "-----begin",
                Anchor.NONE,
                json_safe=True,
            ),
            # A block cut short (no END line) still hides its key lines.
            _p(
                rf"(?P<v>-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:{_PEM_LINE})*)",
                "-----begin",
                Anchor.NONE,
                json_safe=True,
            ),
        ),
        marks_line=False,
    ),
    Rule(
        "enable-secret",
        (
            _p(
                rf"enable(?:{SP}algorithm-type{SP}\S+)?{SP}(?:secret|password)(?:{SP}level{SP}\d+)?{SP}"
                rf"(?:(?:[0-9]|sha512){SP})?{rest()}",
                "enable",
                Anchor.LINE,
            ),
        ),
    ),
    Rule(
        "aaa-root-secret",
        (_p(rf"aaa{SP}root{SP}secret{SP}(?:(?:[0-9]|sha512){SP})?{tok()}", "secret", Anchor.LINE),),
    ),
    Rule(
        "user-secret",
        (
            _p(
                rf"username{SP}\S+(?:{SP}(?!(?:secret|password|passphrase)\b)\S+)*?{SP}"
                rf"(?:secret|password|passphrase){SP}(?!(?:lifetime|warntime|gracetime|expire)\b)"
                rf"(?:(?:[0-9]{{1,2}}|sha512|sha256|md5|scrypt|pbkdf2){SP})?{rest(_USER_STOP)}",
                "username",
                Anchor.LINE,
            ),
        ),
    ),
    Rule(
        "junos-encrypted-password",
        (
            _p(rf"encrypted-password{SP}{qv()}", "encrypted-password"),
            _p(rf"plain-text-password-value{SP}{qv()}", "plain-text-password-value"),
        ),
    ),
    Rule(
        "tacacs-key",
        (
            _p(
                rf"tacacs-server{SP}(?:host{SP}\S+(?:{SP}(?!key\b)\S+)*?{SP})?key{SP}{TYPE}{rest()}",
                "tacacs",
                Anchor.LINE,
            ),
            _p(rf"key{SP}{TYPE}{rest()}", "tacacs", Anchor.LINE, block=_TACACS_BLOCK),
            _p(rf"secret{SP}{qv()}", "tacplus", Anchor.LINE, block=_TACPLUS_BLOCK),
            _p(rf"tacplus-server{SP}\S+(?:{SP}\S+)*?{SP}secret{SP}{qv()}", "tacplus"),
        ),
    ),
    Rule(
        "radius-key",
        (
            _p(
                rf"radius-server{SP}(?:host{SP}\S+(?:{SP}(?!key\b)\S+)*?{SP})?key{SP}{TYPE}{rest()}",
                "radius",
                Anchor.LINE,
            ),
            _p(rf"key{SP}{TYPE}{rest()}", "radius", Anchor.LINE, block=_RADIUS_BLOCK),
            _p(rf"secret{SP}{qv()}", "radius", Anchor.LINE, block=_JUNOS_RADIUS_BLOCK),
            _p(rf"radius-server{SP}\S+(?:{SP}\S+)*?{SP}secret{SP}{qv()}", "radius"),
        ),
    ),
    Rule(
        "server-private-key",
        (
            _p(
                rf"server-private{SP}\S+(?:{SP}(?!key\b)\S+)*?{SP}key{SP}{TYPE}{rest()}",
                "server-private",
                Anchor.LINE,
            ),
            _p(rf"key{SP}{TYPE}{rest()}", "server-private", Anchor.LINE, block=_SERVER_PRIVATE_BLOCK),
        ),
    ),
    Rule(
        "snmp-community",
        (
            _p(rf"snmp-server{SP}community{SP}{qv()}", "community", Anchor.LINE),
            _p(rf"community{SP}{qv()}(?=[ \t]*[{{;])", "community", Anchor.LINE, block=_JUNOS_SNMP_BLOCK),
            _p(rf"set{SP}snmp{SP}community{SP}{qv()}", "community", Anchor.LINE),
        ),
    ),
    Rule(
        "snmp-host-community",
        (
            _p(
                rf"snmp-server{SP}host{SP}\S+(?:{SP}(?:vrf{SP}\S+|use-vrf{SP}\S+|informs|traps"
                rf"|version{SP}(?:1|2c)|udp-port{SP}\d+|dscp{SP}\d+))*{SP}"
                rf"(?!(?:vrf|use-vrf|informs|traps|version|udp-port|source-interface|filter-vrf|dscp)\b)"
                rf"{qv()}",
                "snmp-server",
                Anchor.LINE,
            ),
        ),
    ),
    Rule(
        "snmpv3-user-key",
        (
            _p(
                rf"snmp-server{SP}user{SP}\S+(?:{SP}(?!auth\b)\S+)*?{SP}auth{SP}(?:md5|sha\S*){SP}{tok()}"
                rf"(?:{SP}priv(?:{SP}(?:aes\S*|3?des\S*)(?:{SP}(?:128|192|256))?)?{SP}{tok('2')})?",
                "snmp-server",
                Anchor.LINE,
            ),
        ),
    ),
    Rule(
        "bgp-password",
        (
            _p(rf"neighbor{SP}\S+{SP}password{SP}{_NOT_BGP_PROFILE}{TYPE}{rest()}", "password", Anchor.LINE),
            _p(
                rf"password{SP}{_NOT_BGP_PROFILE}{TYPE}{rest()}",
                "password",
                Anchor.LINE,
                block=_NEIGHBOR_BLOCK,
            ),
        ),
    ),
    Rule(
        "ospf-auth-key",
        (_p(rf"ip{SP}ospf{SP}authentication-key{SP}{TYPE}{rest()}", "authentication-key", Anchor.LINE),),
    ),
    Rule(
        "ospf-md5-key",
        (_p(rf"message-digest-key{SP}\d+{SP}(?:md5|sha\S*){SP}{TYPE}{tok()}", "message-digest-key"),),
    ),
    Rule(
        "ntp-key",
        (
            _p(
                rf"ntp{SP}authentication-key{SP}\d+{SP}\S+{SP}{TYPE}{tok()}",
                "authentication-key",
                Anchor.LINE,
            ),
        ),
    ),
    Rule(
        "authentication-key",
        (_p(rf"authentication-key{SP}{TYPE}{qv()}", "authentication-key", reject_prefix=r"^[ \t]*ntp\b"),),
    ),
    Rule(
        "isis-auth-key",
        (
            _p(
                rf"authentication{SP}(?:{_KEY_ID}|key{SP}){TYPE}{tok()}",
                "authentication",
                Anchor.LINE,
                line_prefix=rf"(?:isis{SP})?",
            ),
            _p(rf"isis{SP}password{SP}{tok()}", "password", Anchor.LINE),
        ),
    ),
    Rule(
        "isis-area-password",
        (
            _p(rf"area-password{SP}{TYPE}{tok()}", "area-password", Anchor.LINE),
            _p(rf"domain-password{SP}{TYPE}{tok()}", "domain-password", Anchor.LINE),
        ),
    ),
    Rule(
        "hsrp-vrrp-auth",
        (
            _p(
                rf"authentication{SP}(?:(?:md5|ietf-md5){SP}key-string{SP}{TYPE}|text{SP}){tok()}",
                "authentication",
                Anchor.LINE,
                line_prefix=_HSRP_VRRP_PREFIX,
            ),
            _p(rf"standby{SP}\d+{SP}authentication{SP}{_PLAIN_AUTH}{tok()}", "standby", Anchor.LINE),
            _p(rf"vrrp{SP}\d+{SP}authentication{SP}{_PLAIN_AUTH}{tok()}", "vrrp", Anchor.LINE),
        ),
    ),
    Rule(
        "key-string",
        (
            _p(
                rf'key-string{SP}{TYPE}(?:"(?P<vq>{_DQ_BODY})"|(?P<v>\S+(?:{SP}(?!timeout\b)\S+)*))',
                "key-string",
            ),
        ),
    ),
    Rule(
        # MACsec: the CAK is the key, the CKN names it (and both are needed to join the association).
        "macsec-key",
        (
            # EOS `mac security / profile P / key <ckn> 7 <cak>`
            _p(
                rf"key{SP}(?P<v1>[0-9A-Fa-f]{{2,64}}){SP}(?:[0-9]{SP})?{tok('2')}",
                "key",
                Anchor.LINE,
                block=_MACSEC_PROFILE_BLOCK,
            ),
            # NX-OS/IOS `key chain K macsec / key <ckn> / key-octet-string 7 <cak>`
            _p(
                rf"key{SP}(?P<v>[0-9A-Fa-f]{{2,64}})(?=[ \t\r]*(?:\n|$))",
                "macsec",
                Anchor.LINE,
                block=_MACSEC_CHAIN_BLOCK,
            ),
            _p(rf"key-octet-string{SP}{TYPE}{tok()}", "key-octet-string"),
            # Junos `pre-shared-key { ckn <hex>; cak "$9$..."; }`
            _p(rf"(?:ckn|cak){SP}{qv()}", "ck", Anchor.LINE, block=_JUNOS_PSK_BLOCK),
        ),
    ),
    Rule(
        # EOS `session shared-key 7 x`, `pim ipv4 hello-authentication shared-key 7 x`, IPsec profiles.
        "shared-key",
        (_p(rf"shared-key{SP}{TYPE}{rest()}", "shared-key", reject_prefix=_PROSE_PREFIX),),
    ),
    Rule(
        # RADIUS dynamic authorization (CoA) clients: `client 10.0.0.5 server-key 7 x`.
        "server-key",
        (_p(rf"server-key{SP}{TYPE}{rest()}", "server-key", reject_prefix=_PROSE_PREFIX),),
    ),
    Rule(
        "pim-hello-auth",
        (
            _p(
                rf"ip{SP}pim{SP}hello-authentication{SP}ah-md5{SP}{TYPE}{tok()}",
                "hello-authentication",
                Anchor.LINE,
            ),
        ),
    ),
    Rule("ftp-password", (_p(rf"ip{SP}ftp{SP}password{SP}{TYPE}{rest()}", "ftp", Anchor.LINE),)),
    Rule("isakmp-key", (_p(rf"crypto{SP}isakmp{SP}key{SP}{TYPE}{tok()}", "isakmp", Anchor.LINE),)),
    Rule(
        "pre-shared-key",
        (
            _p(
                rf"pre-shared-key{SP}(?:(?:address|hostname){SP}\S+(?:{SP}(?!key\b)\S+)?{SP}key{SP}"
                rf"|(?:local|remote|ascii-text|hexadecimal){SP})?{TYPE}(?![{{;])(?=\S){qv()}",
                "pre-share",
            ),
            _p(rf"pre-share{SP}key{SP}{TYPE}{tok()}", "pre-share"),
        ),
    ),
    Rule(
        "config-key", (_p(rf"key{SP}config-key{SP}password-encrypt{SP}{rest()}", "config-key", Anchor.LINE),)
    ),
    Rule(
        "shared-secret-profile",
        (
            _p(
                rf"secret{SP}\d+{SP}(?:[0-9]|8a){SP}{tok()}(?={SP}(?:receive|transmit)-lifetime)",
                "lifetime",
                Anchor.LINE,
            ),
        ),
    ),
    Rule(
        "junos-secret",
        (
            _p(rf'secret{SP}"(?P<vq>{_DQ_BODY})"', "secret"),
            _p(rf'"(?P<vq>{_DQ_BODY})";[ \t]*## SECRET-DATA', "secret-data", Anchor.NONE),
        ),
    ),
    Rule(
        "terminattr-auth-key",
        (
            _p(r"-cvauth=key,(?P<v>[^\s\"'\\,]+)", "auth=key,", Anchor.NONE, json_safe=True),
            _p(r"-ingestauth=key,(?P<v>[^\s\"'\\,]+)", "auth=key,", Anchor.NONE, json_safe=True),
        ),
    ),
    Rule(
        "aws-secret-access-key",
        (
            *_assign("secret_access_key", "aws_secret_access_key", "AWS_SECRET_ACCESS_KEY"),
            *_yaml_keys("secret", "SecretAccessKey"),
        ),
    ),
    Rule(
        "aws-session-token",
        (
            *_assign("_session_token", "aws_session_token", "AWS_SESSION_TOKEN"),
            *_assign("_security_token", "aws_security_token", "AWS_SECURITY_TOKEN"),
            *_yaml_keys("sessiontoken", "SessionToken"),
        ),
    ),
    Rule(
        "authorization-header",
        tuple(
            pattern
            for header, gate in _AUTH_HEADERS
            for pattern in (
                # Quoted (JSON, reprs, YAML): only a string value, so raw JSON stays valid.
                _p(
                    rf"{header}[\"']?[ \t]*[:=][ \t]*[\"'](?:{_AUTH_SCHEME}{SP})?(?P<v>[^\s\"'\\]+)",
                    gate,
                    Anchor.ALNUM,
                    json_safe=True,
                ),
                # An HTTP header line or a log message.
                _p(
                    rf"{header}[ \t]*:[ \t]*(?:{_AUTH_SCHEME}{SP})?(?P<v>(?![{{\[\"'])[^\s\"'\\,;]+)",
                    gate,
                    Anchor.ALNUM,
                ),
            )
        ),
    ),
    Rule("k8s-secret-data", ()),  # found structurally (see redact.py), not by regex
    Rule(
        "kubeconfig-token",
        (
            *_yaml_keys("token", "token", "id-token", "refresh-token", "access-token"),
            *_yaml_keys("client-secret", "client-secret"),
        ),
    ),
    Rule("kubeconfig-client-key", (*_yaml_keys("client-key-data", "client-key-data"),)),
    Rule(
        "secret-field",
        (
            *_json_keys(
                {
                    "aws-secret-access-key": ("SecretAccessKey", "secretAccessKey"),
                    "aws-session-token": ("SessionToken", "sessionToken"),
                    "kubeconfig-token": (
                        "token",
                        "id-token",
                        "refresh-token",
                        "access-token",
                        "client-secret",
                    ),
                    "kubeconfig-client-key": ("client-key-data",),
                    "secret-field": (
                        "password",
                        "Password",
                        "passwd",
                        "PasswordData",
                        "secret",
                        "Secret",
                        "SecretString",
                        "clientSecret",
                        "client_secret",
                        "passphrase",
                        "Passphrase",
                        "passkey",  # SONiC TACPLUS/RADIUS
                        "bind_password",  # SONiC LDAP
                        "SNMP_USER_AUTH_PASSWORD",
                        "SNMP_USER_ENCRYPTION_PASSWORD",
                        "apiKey",
                        "api_key",
                        "privateKey",
                        "private_key",
                    ),
                }
            ),
            *_yaml_keys("passw", "password", "passwd"),
            *_yaml_keys("secret", "client_secret"),
            *_yaml_keys("api_key", "api_key"),
            *_yaml_keys("apikey", "apiKey"),
            *_yaml_keys("passphrase", "passphrase"),
        ),
    ),
    Rule(
        # AWS tags are {"Key": ..., "Value": ...} pairs: a tag named like a credential holds one.
        "secret-tag",
        (
            _p(
                rf'"Key"[ \t]*:[ \t]*"[^"\n]*{_SECRET_WORD}'
                rf'[^"\n]*"[ \t]*,\s*"Value"[ \t]*:[ \t]*{_json_val()}',
                '"key"',
                Anchor.NONE,
                json_safe=True,
            ),
        ),
    ),
    Rule(
        # SONiC config_db: the community string is the table key, flat ("SNMP_COMMUNITY|public") or nested
        # under "SNMP_COMMUNITY", where each entry is {"TYPE": "RO"|"RW"}.
        "sonic-snmp-community",
        (
            _p(r'"SNMP_COMMUNITY\|(?P<v>[^"\\\n]+)"', '"snmp_community|', Anchor.NONE, json_safe=True),
            _p(
                r'"(?P<v>[^"|\\\n]+)"[ \t\r\n]*:[ \t\r\n]*\{[ \t\r\n]*"TYPE"[ \t\r\n]*:[ \t\r\n]*"R[OW]"',
                '"type"',
                Anchor.NONE,
                json_safe=True,
            ),
        ),
    ),
    Rule(
        # Container env vars ({"name": "DB_PASSWORD", "value": "..."}) in pod specs and kubectl dumps.
        "secret-env",
        (
            _p(
                rf'"name"[ \t]*:[ \t]*"[^"\n]*{_SECRET_WORD}'
                rf'[^"\n]*"[ \t]*,\s*"value"[ \t]*:[ \t]*{_json_val()}',
                '"name"',
                Anchor.NONE,
                json_safe=True,
            ),
            _p(
                rf"name:[ \t]*[\"']?[A-Za-z0-9_.-]*{_SECRET_WORD}"
                rf"[A-Za-z0-9_.-]*[\"']?[ \t]*\r?\n[ \t]*(?:-[ \t]+)?value:[ \t]*{_yaml_val()}",
                "name:",
                Anchor.YAML,
            ),
        ),
    ),
    Rule(
        "aws-access-key-id",
        (
            _p(r"(?P<v>AKIA[A-Z0-9]{16})(?![A-Za-z0-9])", "akia", Anchor.ALNUM, json_safe=True),
            _p(r"(?P<v>ASIA[A-Z0-9]{16})(?![A-Za-z0-9])", "asia", Anchor.ALNUM, json_safe=True),
        ),
        marks_line=False,
    ),
    Rule(
        "bearer-token",
        (_p(r"Bearer[ \t]+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)", "bearer", json_safe=True),),
        marks_line=False,
    ),
    Rule(
        "jwt",
        (_p(r"(?P<v>eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*)", "eyj", json_safe=True),),
        marks_line=False,
    ),
    Rule(
        "crypt-hash",
        (_p(r"(?P<v>\$(?:1|2[aby]?|5|6|8|9|y)\$[A-Za-z0-9./$-]+)", "$", Anchor.NONE, json_safe=True),),
        marks_line=False,
    ),
    Rule(
        "generic-password",
        (
            _p(
                rf"password{SP}{_KEYWORD_NOT_VALUE}{_GENERIC_TYPE}{line_rest()}",
                "password",
                reject_prefix=_PROSE_PREFIX,
            ),
            _p(
                rf"passwd{SP}{_KEYWORD_NOT_VALUE}{_GENERIC_TYPE}{line_rest()}",
                "passwd",
                reject_prefix=_PROSE_PREFIX,
            ),
        ),
        fallback=True,
    ),
    Rule(
        "generic-secret",
        (
            _p(
                rf"secret{SP}{_KEYWORD_NOT_VALUE}{_GENERIC_TYPE}{line_rest()}",
                "secret",
                reject_prefix=_PROSE_PREFIX,
            ),
        ),
        fallback=True,
    ),
)

RULE_NAMES: tuple[str, ...] = tuple(rule.name for rule in RULES)

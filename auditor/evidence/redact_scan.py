"""The second, independent redaction layer: a secret scanner that knows no device syntax.

The named rules (redact_rules.py) know where each OS keeps its keys; this layer knows what secrets look
like wherever they are. It runs detect-secrets' regex plugins (cloud and SaaS tokens, JWTs, private-key
markers, basic auth in URLs), adds the token formats that release lacks (Hugging Face, newer OpenAI and
Anthropic keys, GCP API keys, Azure client secrets, GitHub fine-grained tokens), and finds credentials by
their place in a line: URL userinfo, command-line flags (`--token=x`, `--password x`, `curl -u u:p`),
environment assignments (`DB_PASSWORD=x`) and long high-entropy tokens.

Everything here is a linear-time regex scan over the whole text (no per-line Python loop), so it costs
about the same on a 100 MB flow log as a handful of substring searches. A hit is a span of the value only.
Hashes, resource ids, MAC and IPv6 addresses, ARNs, UUIDs and the public parts of certificates are never
hits: the checks read them.
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

__all__ = ["SCANNER_RULES", "ScanHit", "entropy", "is_secret_name", "scan"]

REDACTED = PLACEHOLDER = "<redacted>"


@dataclass(frozen=True)
class ScanHit:
    start: int
    end: int
    rule: str


# detect-secrets plugins whose patterns are precise enough to run on evidence. Left out on purpose:
# IPPublicDetector (public addresses are facts the checks read), the keyword and high-entropy plugins
# (replaced below by versions that know evidence formats), and the vendor keyword plugins
# (Artifactory, Cloudant, IBM, Softlayer) whose short prefixes match host and interface names.
_PLUGINS: tuple[tuple[str, type[RegexBasedDetector]], ...] = (
    ("aws-key", AWSKeyDetector),
    ("basic-auth", BasicAuthDetector),
    ("azure-storage-key", AzureStorageKeyDetector),
    ("discord-token", DiscordBotTokenDetector),
    ("github-token", GitHubTokenDetector),
    ("gitlab-token", GitLabTokenDetector),
    ("jwt-token", JwtTokenDetector),
    ("mailchimp-key", MailchimpDetector),
    ("npm-token", NpmDetector),
    ("openai-key", OpenAIDetector),
    ("pypi-token", PypiTokenDetector),
    ("sendgrid-key", SendGridDetector),
    ("slack-token", SlackDetector),
    ("square-token", SquareOAuthDetector),
    ("stripe-key", StripeDetector),
    ("telegram-token", TelegramBotTokenDetector),
    ("twilio-key", TwilioKeyDetector),
)

_B = r"(?<![A-Za-z0-9_])"  # not glued to a preceding token character
_E = r"(?![A-Za-z0-9_])"
# Token formats detect-secrets 1.5 does not know, or knows only in an older shape.
_EXTRA: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("huggingface-token", ("hf_",), rf"{_B}hf_[A-Za-z0-9]{{30,}}{_E}"),
    ("huggingface-token", ("api_org_",), rf"{_B}api_org_[A-Za-z0-9]{{30,}}{_E}"),
    ("openai-key", ("sk-",), rf"{_B}sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{{32,}}{_E}"),
    ("anthropic-key", ("sk-ant-",), rf"{_B}sk-ant-[A-Za-z0-9_-]{{32,}}{_E}"),
    ("github-token", ("github_pat_",), rf"{_B}github_pat_[A-Za-z0-9_]{{50,}}{_E}"),
    ("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), rf"{_B}gh[pousr]_[A-Za-z0-9]{{30,}}{_E}"),
    ("slack-token", ("xox",), rf"{_B}xox[abposre]-[A-Za-z0-9-]{{10,}}{_E}"),
    ("slack-token", ("xapp-",), rf"{_B}xapp-\d-[A-Za-z0-9-]{{10,}}{_E}"),
    ("gcp-api-key", ("aiza",), rf"{_B}AIza[0-9A-Za-z_-]{{35}}{_E}"),
    ("gcp-oauth-token", ("ya29.",), rf"{_B}ya29\.[0-9A-Za-z_-]{{20,}}"),
    (
        "azure-client-secret",
        ("q~",),
        r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
    ),
    ("azure-sas-signature", ("sig=",), r"(?i)[?&]sig=(?P<v>[A-Za-z0-9%+/=]{20,})"),
    ("stripe-key", ("_live_", "_test_"), rf"{_B}(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{{16,}}{_E}"),
    ("aws-key", ("akia", "asia", "abia", "acca"), rf"{_B}(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{{16}}{_E}"),
    ("jwt-token", ("eyj",), rf"{_B}eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"),
    (
        "k8s-bootstrap-token",
        ("token",),  # only where a token is spoken of (`kubeadm join --token`, `token:`)
        r"(?<![a-z0-9.])(?=[a-z]{0,5}[0-9])[a-z0-9]{6}\.(?=[a-z]{0,15}[0-9])[a-z0-9]{16}(?![a-z0-9.])",
    ),
    ("vault-token", ("hvs.", "hvb.", "hvr."), rf"{_B}hv[sbr]\.[A-Za-z0-9_-]{{24,}}{_E}"),
    (  # a PEM or SSH2 private key block, line by line: a truncated one stops at the first config line
        "private-key-marker",
        ("private key",),
        r"(?P<v>-{4,5} ?BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-{4,5}"
        r"(?:\r?\n[ \t]*(?:[A-Za-z0-9+/=]*[ \t\r]*(?=\n|$)|[A-Za-z-]+:[^\n]*))*"
        r"(?:\r?\n[ \t]*-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-{4,5})?)",
    ),
    (
        "private-key-marker",
        ("putty-user-key-file",),
        r"(?P<v>PuTTY-User-Key-File-\d+:[^\n]*(?:\r?\n(?!PuTTY-User-Key-File)[^\n]*){0,64})",
    ),
)

# Names that announce a credential in their value, as a word at the end of the name
# (`DB_PASSWORD`, `--api-token`, `clientSecret`); `secretName`, `password_file`, `tokenTTL` are not.
# Long words may be glued to what precedes them (`dbpassword`); short ones need a boundary (`bypass` is
# not a credential, `db_pass` and `dbPass` are).
_LONG_WORDS = (
    "password|passwd|passphrase|passwort|secret|token|apikey|api_key|api-key|accesskey|access_key|access-key"
    "|secretkey|secret_key|privatekey|private_key|private-key|authkey|auth_key|auth-key|credential|credentials"
    "|sharedkey|shared_key|shared-key|signingkey|signing_key|masterkey|encryptionkey|connectionstring"
    "|connection_string|webhookurl|webhook_url"
)
_SHORT_WORDS = "pass|pwd|psk|cak|ckn|sas|dsn|pat"
_LONG_NAME = re.compile(rf"(?i)(?:{_LONG_WORDS})$")
_SHORT_NAME = re.compile(rf"(?i)(?:{_SHORT_WORDS})$")
_NOT_SECRET_NAME = re.compile(
    r"(?i)(?:name|names|ref|file|path|dir|policy|length|len|type|id|ids|enabled|enable|required|version"
    r"|arn|expiry|expiration|expires|ttl|age|mode|format|seconds|timeout|count|min|max|size|prefix|suffix"
    r"|selector|source|from|mount|volume|template|hint|help|description|rotation|lifetime|keyref|key_ref)$"
    # request and paging tokens of cloud APIs: opaque, and not credentials
    r"|(?:client|next|continuation|pagination|idempotency|page|sync|resume|marker|request)[-_]?token$"
)


@functools.lru_cache(maxsize=8192)  # keys repeat: a describe dump asks about "Key" and "Value" 100,000 times
def is_secret_name(name: str) -> bool:
    """Whether a key, variable or flag name says its value is a credential."""
    bare = name.strip("-_ .$\"'")
    if not bare or len(bare) > 80 or _NOT_SECRET_NAME.search(bare):
        return False
    if _LONG_NAME.search(bare):
        return True
    m = _SHORT_NAME.search(bare)
    if m is None:
        return False
    i = m.start()
    return i == 0 or not bare[i - 1].isalpha() or (bare[i].isupper() and bare[i - 1].islower())


_ARG_CHARS = r"A-Za-z0-9_.-"
# `--api-token=x`, `--password x`, `-password=x` (one dash: Go flags); the flag's name ends in a secret word.
_CLI_FLAG = re.compile(  # starts with its literal `-` (fast search); the character before is checked after it
    rf"-(?<![^\s\"'=\[,(]-)-?(?P<name>[A-Za-z][{_ARG_CHARS}]*)(?:=|[ \t]+|\"[ \t]*,[ \t]*\")"
    rf"(?P<q>[\"']?)(?P<v>(?!-)[^\s\"',\]\\]+)"
)
# curl/wget/httpie credentials: `-u user:pass`, `--user user:pass`, `--password=x` (wget), `-H 'X-Token: x'`.
_CURL_USER = re.compile(
    r"(?<![^\s\"'\[,])(?:-u|--user|--proxy-user)(?:=|[ \t]+|\"[ \t]*,[ \t]*\")"
    r"[\"']?[^\s:\"']*:(?P<v>[^\s\"',\]\\]+)"
)
# `NAME=value`, `export NAME=value`, `NAME: value` in env files and `spring.datasource.password=value`.
_ASSIGN_VALUE = re.compile(r"[ \t]*(?P<q>[\"']?)(?P<v>[^\s\"'&;,\\=]+={0,2})")  # `=` only as base64 padding
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_XML_ELEMENT = re.compile(r"<(?P<name>[A-Za-z_][\w.:-]{0,60})>(?P<v>[^<\s][^<]{0,4096}?)</(?P=name)>")
# scheme://user:password@host (also with JSON's escaped slashes).
_URL_USERINFO = re.compile(
    r"(?i)\b[a-z][a-z0-9+.-]*:\\?/\\?/(?P<user>[^\s:/?#@\"'<>\\]*):(?P<v>[^\s/?#@\"'<>\\]+)@(?=[\w\[.-])"
)
# Long runs of token characters, delimited on both sides (a path or host name is not one token).
_DELIM = r"\s\"'`,;:()\[\]{}<>|\\"
_TOKEN = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")  # its ends are checked in Python (see _delimited)
_DELIMS = frozenset(" \t\r\n\"'`,;:()[]{}<>|\\")
_HEX_LIKE = re.compile(r"[0-9a-fA-F-]+")
_ID_PREFIX = re.compile(
    r"(?:vpc|subnet|sg|sgr|eni|igw|eigw|nat|rtb|acl|i|ami|vol|snap|pcx|tgw|tgw-attach|tgw-rtb|vpce|fl|eipalloc"
    r"|eipassoc|lt|cgw|vgw|dopt|pl|prefix|r|vpn|cvpn|lb|tg|ca|cert|key|rule|al|ra)-[0-9a-zA-Z]+$"
)
_PUBLIC_BLOCK = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*(?:CERTIFICATE|PUBLIC KEY|CERTIFICATE REQUEST|X509 CRL|DH PARAMETERS)-----"
    r"[\s\S]*?-----END [A-Z0-9 ]+-----"
    r"|\b(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)[ \t]+AAAA[A-Za-z0-9+/=]+"
)
ENTROPY_LIMIT = 4.5  # bits per character over the base64 alphabet: detect-secrets' default
_GATES: dict[str, tuple[str, ...]] = {
    "aws-key": ("akia", "asia", "a3t", "abia", "acca", "aws"),
    "azure-storage-key": ("accountkey=",),
    "basic-auth": ("@",),
    "discord-token": (".",),
    "github-token": ("gh", "github_pat_"),
    "gitlab-token": ("gl", "gr1348941"),
    "jwt-token": ("eyj",),
    "mailchimp-key": ("-us",),
    "npm-token": ("_authtoken",),
    "openai-key": ("sk-",),
    "pypi-token": ("pypi-",),
    "sendgrid-key": ("sg.",),
    "slack-token": ("xox", "hooks.slack.com"),
    "square-token": ("sq0csp-",),
    "stripe-key": ("k_live_",),
    "telegram-token": (":",),
    "twilio-key": ("ac", "sk"),
}


def _compile_plugins() -> list[tuple[str, tuple[str, ...], re.Pattern[str]]]:
    out: list[tuple[str, tuple[str, ...], re.Pattern[str]]] = []
    for name, cls in _PLUGINS:
        for regex in cls().denylist:
            out.append((name, _GATES.get(name, ("",)), regex))
    for name, gates, pattern in _EXTRA:
        out.append((name, gates, re.compile(pattern)))
    return out


_PATTERNS = _compile_plugins()
_PATTERN_RULES = tuple(dict.fromkeys(name for name, _, _ in _PATTERNS))
SCANNER_RULES: tuple[str, ...] = (
    *_PATTERN_RULES,
    "basic-auth",
    "cli-secret-flag",
    "cli-user-password",
    "secret-assignment",
    "xml-secret-element",
    "high-entropy-string",
)


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def scan(text: str, lowered: str | None = None) -> list[ScanHit]:
    """Every secret this layer finds in `text` (spans of the values only)."""
    lowered = text.lower() if lowered is None else lowered
    hits: list[ScanHit] = []
    hits.extend(_patterns(text, lowered))
    if "@" in text:
        hits.extend(ScanHit(*m.span("v"), "basic-auth") for m in _URL_USERINFO.finditer(text))
    if any(word in lowered for word in _NAME_GATES):
        if "-" in text:
            hits.extend(_cli_flags(text))
        if "=" in text:
            hits.extend(_assignments(text))
        if "</" in text:  # <pre_shared_key>x</pre_shared_key> in the VPN configuration XML AWS returns
            hits.extend(
                ScanHit(*m.span("v"), "xml-secret-element")
                for m in _XML_ELEMENT.finditer(text)
                if is_secret_name(m["name"].rsplit(":", 1)[-1]) and _is_literal(m["v"].strip())
            )
    hits.extend(_high_entropy(text))
    return [h for h in hits if text[h.start : h.end] != PLACEHOLDER and h.start < h.end]


def _patterns(text: str, lowered: str) -> Iterator[ScanHit]:
    present: dict[str, bool] = {}  # each gate searched once per text
    for name, gates, regex in _PATTERNS:
        if not any(present[g] if g in present else present.setdefault(g, g in lowered) for g in gates):
            continue
        for m in regex.finditer(text):
            if "v" in regex.groupindex:
                start, end = m.span("v")
            elif regex.groups and m.start(1) > m.start():  # a value group after its context (`://u:(p)@`)
                start, end = m.span(1)
            else:  # no group, or a prefix group (`(ghp|gho)_...`): the whole match is the secret
                start, end = m.span()
            value = text[start:end].strip("\"' \t\r\n")
            if value and PLACEHOLDER not in value:
                offset = text.find(value, start, end)
                yield ScanHit(offset, offset + len(value), name)


def _cli_flags(text: str) -> Iterator[ScanHit]:
    for m in _CLI_FLAG.finditer(text):
        if is_secret_name(m["name"]) and _is_literal(m["v"]):
            yield ScanHit(*m.span("v"), "cli-secret-flag")
    for m in _CURL_USER.finditer(text):
        if _is_literal(m["v"]):
            yield ScanHit(*m.span("v"), "cli-user-password")


def _assignments(text: str) -> Iterator[ScanHit]:
    """`NAME=value`: each `=` is found by substring search, and the name read backwards from it."""
    pos = text.find("=")
    while pos != -1:
        m = _ASSIGN_VALUE.match(text, pos + 1)
        name = _name_before(text, pos) if m else ""
        if m and name and is_secret_name(name.rsplit(".", 1)[-1]) and _is_literal(m["v"]):
            yield ScanHit(*m.span("v"), "secret-assignment")
        pos = text.find("=", pos + 1)


_NAME_GATES = (
    "pass",
    "pwd",
    "secret",
    "token",
    "key",
    "credential",
    "psk",
    "cak",
    "ckn",
    "sas",
    "dsn",
    "pat",
)


def _name_before(text: str, pos: int) -> str:
    """The name ending just before `pos` (spaces allowed in between), at most 80 characters, or ""."""
    end = pos
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    start = end
    while start > 0 and end - start <= 80 and text[start - 1] in _NAME_CHARS:
        start -= 1
    if end - start > 80 or start == end or not (text[start].isalpha() or text[start] == "_"):
        return ""
    return text[start:end]


def _is_literal(value: str) -> bool:
    """A value, not a reference to one (`$(TOKEN)`, `${PASS}`, `<redacted>`, `{{ .Values.x }}`, `:8443`)."""
    return bool(value) and value[0] not in "$<{%*:" and value not in ("true", "false", "null", "none", "None")


def _high_entropy(text: str) -> Iterator[ScanHit]:
    public: list[tuple[int, int]] | None = None
    n = len(text)
    for m in _TOKEN.finditer(text):
        start, end = m.span()
        if (start and text[start - 1] not in _DELIMS and text[start - 1] != "=") or (
            end < n and text[end] not in _DELIMS
        ):
            continue  # part of a longer word: a path, a host name, a dotted name
        value = m.group()
        if not _random_looking(value):
            continue
        if public is None:
            public = [p.span() for p in _PUBLIC_BLOCK.finditer(text)]
        if any(s <= start < e for s, e in public) or _is_public_material(value):
            continue
        if _in_arn(text, start):
            continue
        yield ScanHit(start, end, "high-entropy-string")


@functools.lru_cache(maxsize=8192)  # names and ids repeat across a dump
def _random_looking(value: str) -> bool:
    if _HEX_LIKE.fullmatch(value) or _ID_PREFIX.match(value) or value.startswith("AAAA"):
        return False  # hashes, UUIDs and MAC-like hex, resource ids, SSH public keys
    return entropy(value) > ENTROPY_LIMIT and _mixed(value) and not _is_name(value)


_SEGMENTS = re.compile(r"[-_/]+")


def _is_name(value: str) -> bool:
    """A generated resource name (`CM-SecurityGroups-1367ZK9SYUAGQ-ECSHostSecurityGroup-1MRE4Z7`): several
    separated segments, most of them words or numbers. Random tokens seldom have more than one separator."""
    parts = [p for p in _SEGMENTS.split(value) if p]
    if len(parts) < 3:
        return False
    return sum(1 for p in parts if p.isalpha() or p.isdigit()) * 2 >= len(parts)


def _in_arn(text: str, start: int) -> bool:
    """Whether the token is a part of an ARN (`arn:aws:cloudformation:...:stack/name/uuid`)."""
    word = max(text.rfind(c, max(0, start - 2048), start) for c in " \t\n\"'`,;()[]{}<>|\\") + 1
    return text.startswith("arn:", word)


def _mixed(value: str) -> bool:
    """Upper and lower case letters and digits: random tokens have all three, words and paths rarely."""
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )


def _is_public_material(value: str) -> bool:
    """Base64 of a certificate or public key (kubeconfig CA data, caBundle): evidence, not a secret."""
    if not value.startswith(("LS0t", "MII")):
        return False
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=False)
    except (binascii.Error, ValueError):
        return False
    if value.startswith("LS0t"):
        head = decoded[:80]
        return b"PRIVATE KEY" not in head and (b"CERTIFICATE" in head or b"PUBLIC KEY" in head)
    # DER: a certificate's SEQUENCE starts with a TBSCertificate SEQUENCE; a private key with INTEGER 0.
    return len(decoded) > 8 and decoded[0] == 0x30 and b"\x02\x01\x00" not in decoded[:8]

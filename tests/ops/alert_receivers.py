"""Real local receivers for the alert sinks: an HTTP server, UDP and TCP syslog listeners with an RFC 5424
parser, an SMTP server (aiosmtpd) with STARTTLS on a certificate from a CA made here, and a port where
nothing listens."""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass
class WebhookReceiver:
    url: str
    bodies: list[bytes] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    fail_first: int = 0  # answer 500 to this many requests first


@contextmanager
def webhook_receiver(fail_first: int = 0) -> Iterator[WebhookReceiver]:
    receiver = WebhookReceiver("", fail_first=fail_first)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if receiver.fail_first > 0:
                receiver.fail_first -= 1
                self.send_response(500)
                self.end_headers()
                return
            receiver.bodies.append(body)
            receiver.headers.append(dict(self.headers))
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/alerts"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


def wait_for(done: Callable[[], bool], tries: int = 200) -> None:
    """Until a listener thread has caught up (bounded: at most 200 x 25 ms)."""
    for _ in range(tries):
        if done():
            return
        time.sleep(0.025)


def closed_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- syslog -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Syslog5424:
    pri: int
    version: int
    timestamp: str
    hostname: str
    app_name: str
    procid: str
    msgid: str
    sd_id: str
    params: dict[str, str]
    msg: str

    @property
    def facility(self) -> int:
        return self.pri // 8

    @property
    def severity(self) -> int:
        return self.pri % 8


_HEADER = re.compile(r"^<(\d{1,3})>(\d) (\S+) (\S+) (\S+) (\S+) (\S+) ")
_PARAM = re.compile(r'([^= \]"]{1,32})="((?:[^"\\\]]|\\["\\\]])*)"')


def parse_5424(data: bytes) -> Syslog5424:
    """RFC 5424 header, one SD-ELEMENT (escapes undone) and MSG (the BOM required before UTF-8 text)."""
    text = data.decode("utf-8")
    head = _HEADER.match(text)
    assert head, text
    rest = text[head.end() :]
    assert rest.startswith("["), rest
    sd_id, _, rest = rest[1:].partition(" ")
    params: dict[str, str] = {}
    while not rest.startswith("]"):
        m = _PARAM.match(rest)
        assert m, rest
        params[m[1]] = re.sub(r"\\([\"\\\]])", r"\1", m[2])
        rest = rest[m.end() :].lstrip(" ")
    msg = rest[1:]
    assert msg.startswith(" \ufeff"), msg[:10]
    pri, version, stamp, host, app, procid, msgid = head.groups()
    return Syslog5424(int(pri), int(version), stamp, host, app, procid, msgid, sd_id, params, msg[2:])


@contextmanager
def udp_listener() -> Iterator[tuple[int, list[bytes]]]:
    got: list[bytes] = []
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.2)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                got.append(sock.recv(65535))
            except TimeoutError:
                continue

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield int(sock.getsockname()[1]), got
    finally:
        stop.set()
        thread.join()
        sock.close()


@contextmanager
def tcp_listener() -> Iterator[tuple[int, list[bytes]]]:
    """Accepts connections and keeps the raw bytes of each (the test de-frames them)."""
    streams: list[bytes] = []
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                chunks = []
                while chunk := conn.recv(65536):
                    chunks.append(chunk)
                streams.append(b"".join(chunks))

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1]), streams
    finally:
        stop.set()
        thread.join()
        server.close()


def octet_frames(stream: bytes) -> list[bytes]:
    """RFC 6587 octet counting: `MSG-LEN SP SYSLOG-MSG`, repeated."""
    frames = []
    while stream:
        length, _, rest = stream.partition(b" ")
        assert length.isdigit(), stream[:20]
        frames.append(rest[: int(length)])
        stream = rest[int(length) :]
    return frames


# --- SMTP with STARTTLS --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pki:
    ca: Path
    cert: Path
    key: Path


def make_pki(folder: Path) -> Pki:
    """A CA and a server certificate it signed, for 127.0.0.1 and localhost."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "auditor test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    pki = Pki(folder / "ca.pem", folder / "server.pem", folder / "server.key")
    pki.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    pki.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pki.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return pki


@dataclass
class SmtpReceiver:
    port: int
    messages: list[tuple[str, list[str], bytes, bool]] = field(default_factory=list)  # from, to, data, tls
    logins: list[tuple[bytes, bytes]] = field(default_factory=list)


@contextmanager
def smtp_receiver(pki: Pki, user: str, password: str) -> Iterator[SmtpReceiver]:
    """aiosmtpd that requires STARTTLS before anything else and a login over TLS."""
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    receiver = SmtpReceiver(closed_port())

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            receiver.messages.append(
                (envelope.mail_from, list(envelope.rcpt_tos), envelope.content, session.ssl is not None)
            )
            return "250 OK"

    def authenticator(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        assert isinstance(data, LoginPassword)
        receiver.logins.append((data.login, data.password))
        return AuthResult(success=data.login == user.encode() and data.password == password.encode())

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki.cert, pki.key)
    controller = Controller(
        Handler(),
        hostname="127.0.0.1",
        port=receiver.port,
        tls_context=context,
        require_starttls=True,
        auth_require_tls=True,
        auth_required=True,
        authenticator=authenticator,
    )
    controller.start()
    try:
        yield receiver
    finally:
        controller.stop()

"""A UFM stand-in for tests: HTTPS on loopback with a throwaway CA, basic auth, and a request log."""

from __future__ import annotations

import base64
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.devsim.ca import TestPki, make_pki

PKEYS = "/ufmRest/resources/pkeys?guids_data=true"


@dataclass
class UfmStandIn:
    url: str
    pki: TestPki
    body: bytes
    username: str = "auditor"
    password: str = "s3cret-ufm"
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)  # (method, path, auth user)


def _handler(state: UfmStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _user(self) -> str | None:
            header = self.headers.get("Authorization", "")
            if not header.startswith("Basic "):
                return None
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
            return user if (user, password) == (state.username, state.password) else f"!{user}"

        def do_GET(self) -> None:
            user = self._user()
            state.requests.append(("GET", self.path, user))
            if user is None or user.startswith("!"):
                self._send(401, b'{"error": "Unauthorized"}')
            elif self.path == PKEYS:
                self._send(200, state.body)
            else:
                self._send(404, b'{"error": "Not Found"}')

        def do_POST(self) -> None:
            state.requests.append(("POST", self.path, self._user()))
            self._send(405, b"{}")

        def _send(self, code: int, body: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def ufm_server(folder: Path, body: bytes) -> Iterator[UfmStandIn]:
    """Serve `body` as the P_Key resource on https://127.0.0.1:<ephemeral port> until the block ends."""
    pki = make_pki(folder)
    state = UfmStandIn(url="", pki=pki, body=body)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki.cert_file, pki.key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    state.url = f"https://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

"""A loopback HTTP proxy in front of moto's server that answers one chosen API action late (or never in
time), so a client read timeout on that action alone can be tested against real AWS wire traffic."""

from __future__ import annotations

import http.client
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


class SlowProxy:
    """`url` forwards to `upstream`; a request whose body or query names `Action=<slow_action>` waits
    `delay` seconds first. `delayed` counts those requests."""

    def __init__(self, upstream: str, slow_action: str, delay: float) -> None:
        self.upstream = urlsplit(upstream)
        self.marker = f"Action={slow_action}".encode()
        self.delay = delay
        self.delayed = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _forward(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if proxy.marker in body or proxy.marker in self.path.encode():
                    proxy.delayed += 1
                    time.sleep(proxy.delay)
                conn = http.client.HTTPConnection(
                    str(proxy.upstream.hostname), proxy.upstream.port, timeout=30
                )
                headers = {k: v for k, v in self.headers.items() if k.lower() != "connection"}
                conn.request(self.command, self.path, body=body, headers=headers)
                answer = conn.getresponse()
                data = answer.read()
                try:
                    self.send_response(answer.status)
                    for key, value in answer.getheaders():
                        if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                            self.send_header(key, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client timed out and left
                    self.close_connection = True
                finally:
                    conn.close()

            do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = _forward

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> SlowProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

"""An Arista eAPI endpoint: JSON-RPC `runCmds` over HTTPS (POST /command-api) with Basic auth,
answering json- or text-format requests from the device's captured outputs, logging every command."""

from __future__ import annotations

import base64
import json
import re
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.devsim.allowlist import CommandLog
from tests.devsim.device import Device


class _Handler(BaseHTTPRequestHandler):
    server: _EapiServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        dev = self.server.device
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if dev.behaviour == "hang":
            self.server.stopping.wait()
            return
        expected = base64.b64encode(f"{dev.username}:{dev.password}".encode()).decode()
        if self.path != "/command-api":
            self._reply(404, {"error": "not found"})
            return
        if self.headers.get("Authorization") != f"Basic {expected}":
            self._reply(401, {"error": "Unauthorized"})
            return
        req = json.loads(body)
        params = req.get("params", {})
        fmt = params.get("format") or "json"
        results: list[Any] = []
        for i, cmd in enumerate(params.get("cmds", [])):
            text = cmd.get("cmd", "") if isinstance(cmd, dict) else str(cmd)
            self.server.log.add(dev.name, text)
            if dev.delay and text != "enable":
                time.sleep(dev.delay)
            if dev.hang_on is not None and " ".join(text.split()) == dev.hang_on:
                self.server.stopping.wait()  # never answer
                return
            refused = dev.errors.get(" ".join(text.split()))
            if refused is not None and not refused.strip():  # no error, just nothing in the answer
                results.append({"output": refused} if fmt == "text" else {})
                continue
            if refused is not None:
                self._reply(200, _error(req, i, params["cmds"], text, results, refused))
                return
            result = _run(dev, text, fmt)
            if result is None:
                self._reply(
                    200,
                    {
                        "jsonrpc": "2.0",
                        "id": req.get("id"),
                        "error": {
                            "code": 1002,
                            "message": f"CLI command {i + 1} of {len(params['cmds'])} '{text}' failed: invalid command",
                            "data": [*results, {"errors": ["Invalid input (at token 1)"]}],
                        },
                    },
                )
                return
            results.append(result)
        self._reply(200, {"jsonrpc": "2.0", "id": req.get("id"), "result": results})


# eAPI's error codes (EOS Command API guide): 1002 the CLI did not accept the command, 1005 the user may
# not run it, 1000 the command was accepted but could not run (e.g. the interface it names is absent).
def _error(
    req: dict[str, Any], i: int, cmds: list[Any], text: str, done: list[Any], cli: str
) -> dict[str, Any]:
    """The JSON-RPC error EOS answers when command `i` fails with the CLI error `cli`: the results of the
    commands before it, then its own error (the CLI message without its "% ")."""
    if re.match(r"%? ?(Invalid input|Incomplete command|Ambiguous command)", cli):
        code, why = 1002, "invalid command"
    elif re.match(r"%? ?(Authorization denied|Permission denied)", cli):
        code, why = 1005, "permission to run command denied"
    else:
        code, why = 1000, "could not run command"
    errors = [line.removeprefix("% ").strip() for line in cli.strip().splitlines() if line.strip(" ^")]
    return {
        "jsonrpc": "2.0",
        "id": req.get("id"),
        "error": {
            "code": code,
            "message": f"CLI command {i + 1} of {len(cmds)} '{text}' failed: {why}",
            "data": [*done, {"errors": errors}],
        },
    }


def _run(dev: Device, cmd: str, fmt: str) -> Any:
    cmd = " ".join(cmd.split())
    if cmd == "enable":
        return {} if fmt == "json" else {"output": ""}
    if fmt == "json":
        return dev.json.get(cmd)
    out = dev.answer(cmd)
    return None if out is None else {"output": out}


class _EapiServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, device: Device, log: CommandLog, ssl_ctx: ssl.SSLContext) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.device = device
        self.log = log
        self.stopping = threading.Event()
        self.socket = ssl_ctx.wrap_socket(self.socket, server_side=True, do_handshake_on_connect=False)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client refusing our certificate is a test case, not a server error

    def get_request(self) -> tuple[Any, Any]:
        sock, addr = self.socket.accept()
        sock.settimeout(10)
        return sock, addr


def serve_eapi(device: Device, log: CommandLog, cert_file: str, key_file: str) -> _EapiServer:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert_file, key_file)
    server = _EapiServer(device, log, ctx)
    device.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, name=f"eapi-{device.name}", daemon=True).start()
    return server


def stop_eapi(server: _EapiServer) -> None:
    server.stopping.set()
    server.shutdown()
    server.server_close()

"""Small HTTP services the operations tests start on loopback (stdlib only):

- RecordingProxy: forwards every request to the sandbox Keeper and records
  the path and headers Keeper received (traceparent, X-Request-Id);
- OtlpReceiver: an OTLP/HTTP traces endpoint taking JSON bodies, keeping the
  spans it was sent;
- FakeAuthorizationServer: an OAuth authorization server's metadata, dynamic
  client registration and token endpoint, handing out a fixed access token
  (a sandbox API key), recording what it was asked.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class _Service:
    """A ThreadingHTTPServer on a free loopback port, on its own thread."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.server.owner = self  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _Quiet(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # no access log on stderr
        pass

    def _body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _reply(self, status: int, body: bytes = b"", content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, value: object) -> None:
        self._reply(status, json.dumps(value).encode())


class RecordingProxy(_Service):
    """Forwards requests to `upstream` (http://host:port) and records them."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.seen: list[dict] = []
        self.lock = threading.Lock()
        super().__init__(_ProxyHandler)

    def api_requests(self) -> list[dict]:
        """The Keeper API requests seen (admin endpoints left out)."""
        with self.lock:
            return [r for r in self.seen if r["path"].startswith("/api/")]


class _ProxyHandler(_Quiet):
    def _forward(self) -> None:
        proxy: RecordingProxy = self.server.owner  # type: ignore[attr-defined]
        body = self._body()
        headers = {k.lower(): v for k, v in self.headers.items()}
        with proxy.lock:
            proxy.seen.append({"method": self.command, "path": self.path, "headers": headers})
        conn = http.client.HTTPConnection(*proxy.upstream, timeout=30)
        forwarded = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        conn.request(self.command, self.path, body=body or None, headers=forwarded)
        answer = conn.getresponse()
        data = answer.read()
        self.send_response(answer.status)
        for k, v in answer.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(k, v)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        conn.close()

    do_GET = _forward
    do_POST = _forward


class OtlpReceiver(_Service):
    """An OTLP/HTTP JSON traces endpoint (`POST /v1/traces`)."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.content_types: list[str] = []
        self.lock = threading.Lock()
        super().__init__(_OtlpHandler)

    def spans(self) -> list[dict]:
        """Every span received, with its resource's attributes under `_resource`."""
        out = []
        with self.lock:
            for body in self.requests:
                for rs in body.get("resourceSpans", []):
                    resource = {a["key"]: a["value"] for a in rs.get("resource", {}).get("attributes", [])}
                    for ss in rs.get("scopeSpans", []):
                        for span in ss.get("spans", []):
                            out.append({**span, "_resource": resource})
        return out

    def wait_for(self, predicate, timeout: float = 15.0) -> list[dict]:
        """Waits until the spans received satisfy `predicate`; returns them."""
        deadline = time.monotonic() + timeout
        while True:
            spans = self.spans()
            if predicate(spans):
                return spans
            if time.monotonic() > deadline:
                raise AssertionError(f"spans never matched; got {json.dumps(spans, indent=1)[:3000]}")
            time.sleep(0.1)


class _OtlpHandler(_Quiet):
    def do_POST(self) -> None:
        receiver: OtlpReceiver = self.server.owner  # type: ignore[attr-defined]
        body = self._body()
        if self.path != "/v1/traces":
            return self._json(404, {})
        with receiver.lock:
            receiver.content_types.append(self.headers.get("content-type", ""))
            receiver.requests.append(json.loads(body))
        self._json(200, {"partialSuccess": {}})


class FakeAuthorizationServer(_Service):
    """An authorization server that registers any client and issues `token`."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.seen: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        super().__init__(_AuthHandler)

    def metadata(self) -> dict:
        return {
            "issuer": self.url,
            "authorization_endpoint": self.url + "/authorize",
            "token_endpoint": self.url + "/token",
            "registration_endpoint": self.url + "/register",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        }

    def paths(self) -> list[str]:
        with self.lock:
            return [f"{method} {path}" for method, path in self.seen]


class _AuthHandler(_Quiet):
    def _record(self) -> FakeAuthorizationServer:
        owner: FakeAuthorizationServer = self.server.owner  # type: ignore[attr-defined]
        with owner.lock:
            owner.seen.append((self.command, urlsplit(self.path).path))
        return owner

    def do_GET(self) -> None:
        owner = self._record()
        if urlsplit(self.path).path in (
            "/.well-known/oauth-authorization-server",
            "/.well-known/openid-configuration",
        ):
            return self._json(200, owner.metadata())
        self._json(404, {})

    def do_POST(self) -> None:
        owner = self._record()
        body = self._body()
        path = urlsplit(self.path).path
        if path == "/register":
            client = json.loads(body)
            client.update({"client_id": "herald-test-client", "token_endpoint_auth_method": "none"})
            return self._json(201, client)
        if path == "/token":
            form = parse_qs(body.decode())
            if form.get("grant_type") != ["authorization_code"] or form.get("code") != ["the-code"]:
                return self._json(400, {"error": "invalid_grant"})
            return self._json(200, {"access_token": owner.token, "token_type": "Bearer", "expires_in": 3600})
        self._json(404, {})

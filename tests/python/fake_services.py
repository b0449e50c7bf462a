"""Small HTTP services the operations tests start on loopback (stdlib only):

- RecordingProxy: forwards every request to the sandbox Keeper and records
  the path and headers Keeper received (traceparent, X-Request-Id);
- OtlpReceiver: an OTLP/HTTP traces endpoint taking JSON bodies, keeping the
  spans it was sent;
(the OAuth authorization server is tests/python/oauth_server.py).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


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

"""Small HTTP services the operations tests start on loopback (stdlib only):

- RecordingProxy: forwards every request to the sandbox Keeper and records
  the path and headers Keeper received (traceparent, X-Request-Id); given a
  `schema` body, it answers every schema read with it instead (a Domain too
  large or too hostile for the sandbox's own data);
- OtlpReceiver: an OTLP/HTTP traces endpoint taking JSON bodies, keeping the
  spans it was sent;
- HoldingKeeper: a TCP proxy before the sandbox Keeper that holds each API
  request's answer for a while, watching the connection, and records when
  Herald closed it (a cancelled call) or when it was answered;
(the OAuth authorization server is tests/e2e-python/oauth_server.py).
"""

from __future__ import annotations

import http.client
import json
import select
import socket
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

    def __init__(self, upstream: str, schema: bytes | None = None) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        # The body of every `GET …/schema` answer, when given (not forwarded).
        self.schema = schema
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
        if proxy.schema is not None and self.command == "GET" and self.path.split("?")[0].endswith("/schema"):
            self._reply(200, proxy.schema)
            return
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


class HoldingKeeper:
    """A TCP proxy before the sandbox Keeper (`upstream`): each `/api/`
    request is held for `hold_s` seconds, the connection watched meanwhile,
    then forwarded and answered (other paths are forwarded at once, and so
    is the schema read for the tools' search hints, which a stdio session
    starts on its own: no call made it). Each held request is recorded:
    when it arrived, and when Herald closed the connection (`closed`) or it
    was answered (`answered`), in `time.monotonic()` seconds."""

    def __init__(self, upstream: str, hold_s: float) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.hold_s = hold_s
        self.held: list[dict] = []
        self.lock = threading.Lock()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self._stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._stop = True
        self.sock.close()

    def records(self) -> list[dict]:
        with self.lock:
            return [dict(r) for r in self.held]

    def wait_for(self, predicate, timeout: float = 30.0) -> list[dict]:
        """Waits until the records satisfy `predicate`; returns them."""
        deadline = time.monotonic() + timeout
        while True:
            records = self.records()
            if predicate(records):
                return records
            if time.monotonic() > deadline:
                raise AssertionError(f"the held requests never matched: {records}")
            time.sleep(0.01)

    def _accept(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        buffered = b""
        try:
            while True:
                while b"\r\n\r\n" not in buffered:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buffered += chunk
                head, buffered = buffered.split(b"\r\n\r\n", 1)
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    k, _, v = line.partition(":")
                    headers[k.strip().lower()] = v.strip()
                length = int(headers.get("content-length") or 0)
                while len(buffered) < length:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buffered += chunk
                body, buffered = buffered[:length], buffered[length:]
                held = path.startswith("/api/") and not path.split("?")[0].endswith("/schema")
                if held and not self._hold(conn, path):
                    return
                conn.sendall(self._forward(method, path, headers, body))
        except OSError:
            return
        finally:
            conn.close()

    def _hold(self, conn: socket.socket, path: str) -> bool:
        """Holds an answer; False when Herald closed the connection first."""
        record = {"path": path, "received": time.monotonic()}
        with self.lock:
            self.held.append(record)
        deadline = record["received"] + self.hold_s
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([conn], [], [], left)
            if readable:
                try:
                    data = conn.recv(1, socket.MSG_PEEK)
                except OSError:
                    data = b""
                if not data:
                    with self.lock:
                        record["closed"] = time.monotonic()
                    return False
                time.sleep(0.01)
        with self.lock:
            record["answered"] = time.monotonic()
        return True

    def _forward(self, method: str, path: str, headers: dict, body: bytes) -> bytes:
        upstream = http.client.HTTPConnection(*self.upstream, timeout=30)
        sent = {k: v for k, v in headers.items() if k not in ("host", "connection", "content-length")}
        upstream.request(method, path, body=body or None, headers=sent)
        answer = upstream.getresponse()
        data = answer.read()
        upstream.close()
        out = [f"HTTP/1.1 {answer.status} {answer.reason}"]
        out += [f"{k}: {v}" for k, v in answer.getheaders()
                if k.lower() not in ("transfer-encoding", "connection", "content-length")]
        out.append(f"content-length: {len(data)}")
        return ("\r\n".join(out) + "\r\n\r\n").encode("latin-1") + data

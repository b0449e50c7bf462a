"""Status codes for malformed requests, over raw sockets on loopback:
broken chunked framing is a 400 (not the 413 of a body past the
limit), and a JSON-RPC batch or a body with a key twice gets a JSON-RPC 400
(-32600) with a message saying what to send instead, never rmcp's plain-text
415. None of them reaches Keeper."""

from __future__ import annotations

import json
import socket

import pytest

BODY = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'


@pytest.fixture
def herald(sandbox, http_herald_factory):
    return http_herald_factory(
        sandbox.url,
        env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true", "LOREBASE__HERALD__HTTP__MAX_BODY_BYTES": "4096"},
    )


def exchange(url: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Sends `request` as is on a new connection; the answer's status,
    headers (lowercase names) and body (read to the connection's end)."""
    host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            assert chunk, f"closed without an answer: {data!r}"
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        headers = dict((k.strip().lower(), v.strip()) for k, v in (line.split(":", 1) for line in lines[1:]))
        length = int(headers.get("content-length", "0"))
        while len(body) < length:
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
    return int(lines[0].split()[1]), headers, body


def chunked(chunks: bytes) -> bytes:
    return (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nConnection: close\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + chunks
    )


def sized(body: bytes) -> bytes:
    return (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nConnection: close\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    ) + body


def json_rpc_error(status: int, headers: dict[str, str], body: bytes) -> dict:
    assert headers["content-type"].startswith("application/json"), (status, headers, body)
    answer = json.loads(body)
    assert answer["jsonrpc"] == "2.0" and answer["id"] is None, answer
    return answer["error"]


GOOD = b"%x\r\n%s\r\n0\r\n\r\n" % (len(BODY), BODY)

BROKEN_FRAMING = {
    "size zz": b"zz\r\n" + BODY + b"\r\n0\r\n\r\n",
    "size -1": b"-1\r\n" + BODY + b"\r\n0\r\n\r\n",
    "size 2^72": b"%x\r\n" % (1 << 72) + BODY + b"\r\n0\r\n\r\n",
    # Declares 10 bytes, gives 3: the end chunk is read as data, then "zz" stands where CRLF must.
    "short chunk": b"a\r\nabc\r\n0\r\n\r\nzz\r\n",
    # Longer than declared: after 3 bytes the CRLF is missing.
    "long chunk": b"3\r\n" + BODY + b"\r\n0\r\n\r\n",
    "LF-only lines": b"%x\n%s\n0\n\n" % (len(BODY), BODY),
}


def test_a_well_framed_chunked_body_is_answered(herald):
    status, _, body = exchange(herald.url, chunked(GOOD))
    assert status == 200, body
    assert json.loads(body)["id"] == 1


@pytest.mark.parametrize("case", sorted(BROKEN_FRAMING))
def test_broken_chunked_framing_is_a_bad_request(herald, sandbox, case):
    before = sandbox.requests()
    status, headers, body = exchange(herald.url, chunked(BROKEN_FRAMING[case]))
    assert status == 400, (case, body)
    error = json_rpc_error(status, headers, body)
    assert error["code"] == -32600
    assert "framing" in error["message"], error
    assert "exceeds" not in error["message"], error
    assert sandbox.requests() == before


def test_a_chunked_body_past_the_limit_is_still_413(herald):
    big = b"%x\r\n%s\r\n" % (3000, b" " * 3000)
    status, headers, body = exchange(herald.url, chunked(big * 2 + b"0\r\n\r\n"))
    assert status == 413, body
    assert "exceeds 4096 bytes" in json_rpc_error(status, headers, body)["message"]


@pytest.mark.parametrize(
    "body, needle",
    [
        (b"[" + BODY + b"]", "batches"),
        (b"[" + BODY + b", " + BODY + b"]", "send each message in its own POST"),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "method": "tools/list"}', "`method` appears twice"),
        (b'{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "ping"}', "`id` appears twice in the message"),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": '
            b'{"name": "lorebase_get", "name": "lorebase_execute", "arguments": {}}}',
            "`name` appears twice in params",
        ),
    ],
)
def test_batches_and_repeated_keys_get_a_json_rpc_400(herald, sandbox, body, needle):
    before = sandbox.requests()
    status, headers, answer = exchange(herald.url, sized(body))
    assert status == 400, answer
    error = json_rpc_error(status, headers, answer)
    assert error["code"] == -32600, error
    assert needle in error["message"], error
    assert sandbox.requests() == before

"""Graceful shutdown: SIGTERM/SIGINT let in-flight calls finish, then Herald
exits 0; stdio Herald exits when the host closes stdin or sends SIGTERM."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time

import httpx2
import pytest

from conftest import start_sandbox, start_stdio_herald, stop

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001"}},
}


def wait_until(predicate, timeout: float = 30.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.02)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_in_flight_calls_finish_on_shutdown(binaries, http_herald_factory, sig):
    keeper = start_sandbox(binaries, "none")
    try:
        herald = http_herald_factory(keeper.url, env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"})
        # Keeper holds the next API call for 2 s: the call is in flight while we signal.
        keeper.admin("POST", "faults", {"count": 1, "delay_ms": 2000})
        before = keeper.requests()
        answer: dict = {}

        def call() -> None:
            with httpx2.Client(timeout=60) as c:
                r = c.post(herald.url, content=json.dumps(CALL), headers=HEADERS)
                answer["status"] = r.status_code
                answer["body"] = r.json()

        t = threading.Thread(target=call)
        t.start()
        wait_until(lambda: keeper.requests() > before, what="the call to reach Keeper")
        herald.proc.send_signal(sig)
        t.join(60)
        assert answer.get("status") == 200, answer
        result = answer["body"]["result"]
        assert result["isError"] is False
        assert "Kavsen Alloys" in result["content"][0]["text"]
        assert herald.proc.wait(timeout=30) == 0
        with pytest.raises(httpx2.ConnectError):
            httpx2.get(f"{herald.base}/healthz", timeout=5)
    finally:
        stop(keeper.proc)


def test_stdio_exits_when_stdin_closes(binaries, sandbox):
    proc = start_stdio_herald(binaries, sandbox.url)
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    assert proc.stdout.read() == b""


def test_stdio_exits_on_sigterm(binaries, sandbox):
    proc = start_stdio_herald(binaries, sandbox.url, stderr=subprocess.PIPE)
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    proc.stdin.write((json.dumps(init) + "\n").encode())
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0


def test_sigterm_finishes_while_clients_hold_half_sent_requests(sandbox, http_herald_factory):
    # A half-sent request line, and full headers with 10 of 100 body bytes,
    # must not keep Herald running after SIGTERM: it exits 0 within 5 s.
    import socket

    herald = http_herald_factory(sandbox.url)
    host, port = herald.base.removeprefix("http://").rsplit(":", 1)
    half_line = socket.create_connection((host, int(port)))
    half_line.sendall(b"POST /mcp HT")
    half_body = socket.create_connection((host, int(port)))
    half_body.sendall(
        b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n{\"jsonrpc\""
    )
    time.sleep(0.3)
    started = time.monotonic()
    herald.proc.send_signal(signal.SIGTERM)
    assert herald.proc.wait(timeout=10) == 0
    assert time.monotonic() - started < 5
    half_line.close()
    half_body.close()

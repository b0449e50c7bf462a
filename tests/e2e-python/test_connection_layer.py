"""The connection layer under clients that misuse their connections, end to
end against the sandbox Keeper on real ports.

- A client that sends its whole request and then shuts its sending side
  (`shutdown(SHUT_WR)`) has left: its call is cancelled.
- `metrics.port` goes through the same connection layer as the MCP port:
  2,100 half-sent requests to it hold at most its 64 connections (and the
  refusals in flight), never all of Herald's descriptors, and MCP calls go
  on; a foreign `Host` gets 403 there; `metrics.bearer_token` asks scrapes
  for a bearer.
"""

from __future__ import annotations

import json
import os
import socket
import time

import httpx2
import pytest
from conftest import http_session, start_http_herald, stop
from fake_services import HoldingKeeper
from test_metrics import metrics_url_in

CALL = json.dumps(
    {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
     "params": {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001"}}}
).encode()


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_a_client_that_shuts_its_side_while_its_call_runs_has_left(binaries, sandbox):
    # An end of stream cannot be told from a client that
    # closed, and MCP 2026-07-28 makes a disconnect a cancellation: the call is cancelled,
    # its Keeper request aborted, and the connection closed without an answer.
    keeper = HoldingKeeper(sandbox.url, hold_s=5.0)
    try:
        herald = start_http_herald(binaries, keeper.url, env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"})
        try:
            host, port = herald.base.split("//")[1].rsplit(":", 1)
            with socket.create_connection((host, int(port)), timeout=10) as s:
                s.sendall(
                    f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                    f"Accept: application/json, text/event-stream\r\nContent-Length: {len(CALL)}\r\n\r\n".encode()
                    + CALL
                )
                keeper.wait_for(lambda rs: len(rs) == 1)
                s.shutdown(socket.SHUT_WR)
                started = time.monotonic()
                assert s.recv(65536) == b""
                assert time.monotonic() - started < 2
            (record,) = keeper.wait_for(lambda rs: "closed" in rs[0] or "answered" in rs[0])
            assert "closed" in record, record
        finally:
            stop(herald.proc)
    finally:
        keeper.close()


@pytest.mark.anyio
async def test_half_sent_requests_to_the_metrics_port_cannot_starve_mcp_calls(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env={
        "LOREBASE__HERALD__METRICS__PORT": "0",
        "LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true",
    })
    url = metrics_url_in(herald.stderr.text)
    host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
    baseline = open_fds(herald.proc.pid)
    held: list[socket.socket] = []
    peak = 0
    try:
        for i in range(2100):
            try:
                s = socket.create_connection((host, int(port)), timeout=5)
                s.sendall(f"GET /metrics HTTP/1.1\r\nHost: {host}\r\n".encode())
                held.append(s)
            except OSError:
                pass
            if i % 100 == 99:
                peak = max(peak, open_fds(herald.proc.pid))
        peak = max(peak, open_fds(herald.proc.pid))
        print(json.dumps({"half_sent": len(held), "herald_fds_before": baseline, "herald_peak_fds": peak}))
        # 64 connections, at most 256 refusals being answered, and evicted ones whose
        # task has not closed them yet (a moment, longer on a loaded machine): not 2,100.
        assert peak < baseline + 700, (baseline, peak)
        started = time.monotonic()
        async with http_session(herald.url) as session:
            for _ in range(5):
                result = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
                assert not result.is_error
        assert time.monotonic() - started < 10
        # A scrape still gets in: it evicts the oldest half-sent request.
        time.sleep(0.2)
        assert httpx2.get(url, timeout=5).status_code == 200
    finally:
        for s in held:
            s.close()


def test_the_metrics_port_keeps_to_the_host_rules_and_its_bearer(sandbox, http_herald_factory, tmp_path):
    token = tmp_path / "metrics-token"
    token.write_text("scrape-me-7f3a\n")
    herald = http_herald_factory(sandbox.url, env={
        "LOREBASE__HERALD__METRICS__PORT": "0",
        "LOREBASE__HERALD__METRICS__BEARER_TOKEN": f"secret://file/{token}",
    })
    url = metrics_url_in(herald.stderr.text)
    assert httpx2.get(url, timeout=5).status_code == 401
    assert httpx2.get(url, headers={"Authorization": "Bearer scrape-me-7f3b"}, timeout=5).status_code == 401
    ok = httpx2.get(url, headers={"Authorization": "Bearer scrape-me-7f3a"}, timeout=5)
    assert ok.status_code == 200 and "herald_build_info" in ok.text
    foreign = httpx2.get(url, headers={"Authorization": "Bearer scrape-me-7f3a", "Host": "evil.example"}, timeout=5)
    assert foreign.status_code == 403
    # The MCP listener's /metrics is gone (a port of its own), and the token is never logged.
    assert httpx2.get(herald.base + "/metrics", timeout=5).status_code == 404
    assert "scrape-me-7f3a" not in herald.stderr.text()


def test_a_literal_metrics_bearer_is_refused(binaries, sandbox):
    import subprocess

    from conftest import clean_env

    run = subprocess.run(
        [binaries["herald"], "--transport", "streamable_http", "--port", "0"],
        env=clean_env({"LOREBASE_URL": sandbox.url, "LOREBASE_DOMAIN": "supply",
                       "LOREBASE__HERALD__METRICS__BEARER_TOKEN": "plain-token-9"}),
        capture_output=True, text=True, timeout=30,
    )
    assert run.returncode == 2, run.stderr
    assert "metrics.bearer_token" in run.stderr and "secret://env/NAME" in run.stderr
    assert "plain-token-9" not in run.stderr

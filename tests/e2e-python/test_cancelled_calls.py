"""Calls whose client has gone stop, end to end: Herald
over real stdio pipes and a real HTTP port, before a Keeper that holds its
answers on loopback (fake_services.HoldingKeeper, before the sandbox).

- `notifications/cancelled` over stdio (the official SDK sends it when a
  call is abandoned) and a client that closes its socket over HTTP: each
  Keeper request is aborted at once (Keeper sees its connection close), the
  audit line and `tool_calls_total` say `cancelled`, and the session goes on;
- 64 clients that start a call and close at once give their connection
  slots back: `/healthz` answers 200, never 503;
- a host that closes Herald's stdout: Herald ends the session and exits
  within 1 s, and no later call reaches Keeper.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time

import anyio
import httpx2
import pytest
from conftest import clean_env, start_stdio_herald, stop
from fake_services import HoldingKeeper
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ANONYMOUS = {"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"}
CALLS = 10
# How long after a cancel Keeper must see its connection close (the issue
# asks for 100 ms; the bound asserted leaves room for a loaded CI machine,
# the times measured are printed).
CLOSE_BOUND_S = 0.5


def call_line(call_id: int) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": call_id, "method": "tools/call",
         "params": {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001"}}}
    ).encode()


def post(host: str, port: int, body: bytes) -> bytes:
    return (
        f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def audit_outcomes(stderr: str) -> list[str]:
    out = []
    for line in stderr.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("target") == "herald::audit":
            out.append(record.get("outcome"))
    return out


@pytest.fixture
def holding_keeper(sandbox):
    keeper = HoldingKeeper(sandbox.url, hold_s=5.0)
    yield keeper
    keeper.close()


@pytest.mark.anyio
async def test_calls_cancelled_over_stdio_stop_their_keeper_requests(binaries, holding_keeper, tmp_path):
    params = StdioServerParameters(
        command=binaries["herald"],
        args=["--log-format", "json"],
        env=clean_env({"LOREBASE_URL": holding_keeper.url, "LOREBASE_DOMAIN": "supply"}),
    )
    errlog_path = tmp_path / "stderr"
    with open(errlog_path, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()

                async def abandoned() -> None:
                    # The SDK sends notifications/cancelled for a call it abandons.
                    with anyio.move_on_after(0.5):
                        await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})

                async with anyio.create_task_group() as group:
                    for _ in range(CALLS):
                        group.start_soon(abandoned)
                cancelled = time.monotonic()
                records = holding_keeper.wait_for(
                    lambda rs: len(rs) == CALLS and all("closed" in r or "answered" in r for r in rs),
                    timeout=15,
                )
                late = [round(r["closed"] - cancelled, 3) for r in records if "closed" in r]
                print(json.dumps({"closed_after_cancel_s": late}))
                assert len(late) == CALLS, records
                assert max(late) < CLOSE_BOUND_S, late
                # The session goes on.
                holding_keeper.hold_s = 0
                result = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
                assert result.is_error is False
    outcomes = audit_outcomes(errlog_path.read_text())
    assert outcomes.count("cancelled") == CALLS and outcomes.count("ok") == 1, outcomes


def test_clients_that_close_their_socket_cancel_their_calls(holding_keeper, http_herald_factory):
    herald = http_herald_factory(holding_keeper.url, args=["--log-format", "json"], env=ANONYMOUS)
    host, port = herald.base.split("//")[1].rsplit(":", 1)
    clients = []
    for i in range(CALLS):
        s = socket.create_connection((host, int(port)), timeout=10)
        s.sendall(post(host, int(port), call_line(i + 1)))
        clients.append(s)
    holding_keeper.wait_for(lambda rs: len(rs) == CALLS, timeout=15)
    time.sleep(0.5)
    for s in clients:
        s.close()
    gone = time.monotonic()
    records = holding_keeper.wait_for(
        lambda rs: all("closed" in r or "answered" in r for r in rs), timeout=15
    )
    late = [round(r["closed"] - gone, 3) for r in records if "closed" in r]
    print(json.dumps({"closed_after_disconnect_s": late}))
    assert len(late) == CALLS, records
    assert max(late) < CLOSE_BOUND_S, late
    metrics = httpx2.get(f"{herald.base}/metrics", timeout=5).text
    cancelled = re.search(r'tool_calls_total\{[^}]*outcome="cancelled"[^}]*\} (\d+)', metrics)
    assert cancelled and int(cancelled.group(1)) == CALLS, metrics[-3000:]
    stop(herald.proc)
    herald.stderr.join()
    outcomes = audit_outcomes(herald.stderr.text())
    assert outcomes.count("cancelled") == CALLS, outcomes


def test_a_cancellation_posted_over_http_stops_the_callers_call(holding_keeper, http_herald_factory):
    # Stateless HTTP: the notification comes in a POST of its own (the TypeScript SDK's way);
    # another caller's cancellation of the same id cancels nothing.
    herald = http_herald_factory(holding_keeper.url, args=["--log-format", "json"], env=ANONYMOUS)
    host, port = herald.base.split("//")[1].rsplit(":", 1)
    mine = socket.create_connection((host, int(port)), timeout=10)
    mine.sendall(post(host, int(port), call_line(7)))
    holding_keeper.wait_for(lambda rs: len(rs) == 1, timeout=15)
    cancel = json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": 7, "reason": "the user stopped it"}})
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    other = httpx2.post(herald.url, content=cancel, headers={**headers, "authorization": "Bearer someone-else"}, timeout=5)
    assert other.status_code == 202
    time.sleep(0.3)
    assert "closed" not in holding_keeper.records()[0]
    r = httpx2.post(herald.url, content=cancel, headers=headers, timeout=5)
    cancelled = time.monotonic()
    assert r.status_code == 202, r.text
    (record,) = holding_keeper.wait_for(lambda rs: "closed" in rs[0] or "answered" in rs[0], timeout=15)
    assert "closed" in record, record
    print(json.dumps({"closed_after_http_cancel_s": round(record["closed"] - cancelled, 3)}))
    assert record["closed"] - cancelled < CLOSE_BOUND_S
    answer = mine.recv(65536)
    mine.close()
    assert b"-32800" in answer, answer[:300]


def test_abandoned_calls_give_their_connection_slots_back(sandbox, http_herald_factory):
    keeper = HoldingKeeper(sandbox.url, hold_s=8.0)
    try:
        herald = http_herald_factory(
            keeper.url, env={**ANONYMOUS, "LOREBASE__HERALD__HTTP__MAX_CONNECTIONS": "64"}
        )
        host, port = herald.base.split("//")[1].rsplit(":", 1)
        clients = []
        for i in range(64):
            s = socket.create_connection((host, int(port)), timeout=10)
            s.sendall(post(host, int(port), call_line(i + 1)))
            clients.append(s)
        keeper.wait_for(lambda rs: len(rs) == 64, timeout=15)
        for s in clients:
            s.close()
        time.sleep(0.3)
        statuses = []
        with httpx2.Client(timeout=2) as c:
            for _ in range(10):
                # A new connection each time: it needs a slot of its own.
                statuses.append(c.get(f"{herald.base}/healthz", headers={"Connection": "close"}).status_code)
                time.sleep(0.1)
        assert statuses == [200] * 10, statuses
        records = keeper.wait_for(lambda rs: all("closed" in r or "answered" in r for r in rs), timeout=15)
        assert all("closed" in r for r in records), records
    finally:
        keeper.close()


def start_stdio(binaries, keeper_url: str) -> subprocess.Popen:
    proc = start_stdio_herald(binaries, keeper_url)
    initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}
    proc.stdin.write(json.dumps(initialize).encode() + b"\n")
    proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 0
    return proc


def test_a_host_that_closes_stdout_ends_the_process(binaries, sandbox):
    keeper = HoldingKeeper(sandbox.url, hold_s=5.0)
    try:
        proc = start_stdio(binaries, keeper.url)
        try:
            # One call in flight when the host closes Herald's stdout.
            proc.stdin.write(call_line(1) + b"\n")
            proc.stdin.flush()
            keeper.wait_for(lambda rs: len(rs) == 1)
            proc.stdout.close()
            closed = time.monotonic()
            for i in range(49):
                try:
                    proc.stdin.write(call_line(i + 2) + b"\n")
                    proc.stdin.flush()
                except BrokenPipeError:
                    break
            proc.wait(timeout=5)
            took = time.monotonic() - closed
            print(json.dumps({"exited_after_s": round(took, 3), "code": proc.returncode}))
            assert took < 1.0, took
            assert proc.returncode == 0
            records = keeper.records()
            assert len(records) == 1, records
            assert "closed" in records[0], records
        finally:
            stop(proc)
    finally:
        keeper.close()


def test_a_host_that_closes_stdout_while_idle_ends_the_process(binaries, sandbox):
    proc = start_stdio(binaries, sandbox.url)
    try:
        before = sandbox.requests()
        proc.stdout.close()
        closed = time.monotonic()
        proc.wait(timeout=5)
        took = time.monotonic() - closed
        assert took < 1.0, took
        assert proc.returncode == 0
        assert sandbox.requests() == before
    finally:
        with_pipe_closed = proc.stdin
        stop(proc)
        try:
            with_pipe_closed.close()
        except OSError:
            pass


def test_stdio_exits_within_a_second_when_stdout_is_a_closed_pipe_at_start(binaries, sandbox):
    # The host's end is gone before Herald writes anything.
    read, write = os.pipe()
    os.close(read)
    proc = subprocess.Popen(
        [binaries["herald"]], stdin=subprocess.PIPE, stdout=write, stderr=subprocess.DEVNULL,
        env=clean_env({"LOREBASE_URL": sandbox.url}),
    )
    os.close(write)
    try:
        proc.wait(timeout=5)
        assert proc.returncode == 0
    finally:
        stop(proc)

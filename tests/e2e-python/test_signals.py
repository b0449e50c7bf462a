"""Signals while serving: SIGHUP never stops Herald (it
re-discovers the remote MCP servers' tools, test_remote_tools.py, or says
there is nothing to reload), and a second SIGTERM exits at once with code
130 after writing the log lines still waiting, "second signal: exiting now"
among them. Real binaries, real signals, the sandbox Keeper."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time

import httpx2

from conftest import StderrCollector, start_sandbox, start_stdio_herald, stop
from test_shutdown import CALL, HEADERS, wait_until

IN_FLIGHT = 64
NOTHING_TO_RELOAD = "SIGHUP: nothing to reload"


def test_sighup_over_http_cuts_no_call_and_says_there_is_nothing_to_reload(binaries, http_herald_factory):
    keeper = start_sandbox(binaries, "none")
    try:
        herald = http_herald_factory(keeper.url, env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"})
        # Keeper holds each of the next 64 API calls for 1.5 s: all in flight at the SIGHUP.
        keeper.admin("POST", "faults", {"count": IN_FLIGHT, "delay_ms": 1500})
        before = keeper.requests()
        answers: list[tuple[int, dict]] = []
        lock = threading.Lock()

        def call() -> None:
            with httpx2.Client(timeout=60) as c:
                r = c.post(herald.url, content=json.dumps(CALL), headers=HEADERS)
                with lock:
                    answers.append((r.status_code, r.json()))

        threads = [threading.Thread(target=call) for _ in range(IN_FLIGHT)]
        for t in threads:
            t.start()
        wait_until(lambda: keeper.requests() >= before + IN_FLIGHT, what="64 calls to reach Keeper")
        herald.proc.send_signal(signal.SIGHUP)
        for t in threads:
            t.join(60)
        assert len(answers) == IN_FLIGHT
        for status, body in answers:
            assert status == 200, body
            assert body["result"]["isError"] is False, body
        assert herald.proc.poll() is None, "SIGHUP does not stop Herald"
        wait_until(lambda: NOTHING_TO_RELOAD in herald.stderr.text(), timeout=5, what="the log line")
        # Still serving after it.
        with httpx2.Client(timeout=30) as c:
            r = c.post(herald.url, content=json.dumps(CALL), headers=HEADERS)
            assert r.status_code == 200 and r.json()["result"]["isError"] is False
    finally:
        stop(keeper.proc)


def stdio_herald(keeper_url: str, binaries) -> tuple[subprocess.Popen, StderrCollector]:
    proc = start_stdio_herald(binaries, keeper_url, stderr=subprocess.PIPE)
    return proc, StderrCollector(proc.stderr)


def rpc(proc: subprocess.Popen, message: dict) -> dict:
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()
    while True:
        answer = json.loads(proc.stdout.readline())
        if answer.get("id") == message["id"]:
            return answer


INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}


def test_sighup_over_stdio_keeps_the_session(binaries, sandbox):
    proc, stderr = stdio_herald(sandbox.url, binaries)
    try:
        # Before the host initializes, then during the session.
        wait_until(lambda: "serving MCP over stdio" in stderr.text(), timeout=30, what="Herald to start")
        proc.send_signal(signal.SIGHUP)
        wait_until(lambda: stderr.text().count(NOTHING_TO_RELOAD) == 1, timeout=5, what="the log line")
        assert rpc(proc, INIT)["result"]["serverInfo"]
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.send_signal(signal.SIGHUP)
        wait_until(lambda: stderr.text().count(NOTHING_TO_RELOAD) == 2, timeout=5, what="a second log line")
        answer = rpc(proc, {**CALL, "id": 2})
        assert answer["result"]["isError"] is False, answer
        assert proc.poll() is None
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    finally:
        stop(proc)


def test_a_second_sigterm_exits_130_and_its_line_reaches_stderr(binaries, http_herald_factory):
    keeper = start_sandbox(binaries, "none")
    try:
        herald = http_herald_factory(keeper.url, env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"})
        # A call Keeper holds for 20 s keeps the graceful shutdown waiting.
        keeper.admin("POST", "faults", {"count": 1, "delay_ms": 20000})
        before = keeper.requests()

        def call() -> None:
            try:
                with httpx2.Client(timeout=60) as c:
                    c.post(herald.url, content=json.dumps(CALL), headers=HEADERS)
            except httpx2.HTTPError:
                pass  # cut by the exit, as asked

        threading.Thread(target=call, daemon=True).start()
        wait_until(lambda: keeper.requests() > before, what="the call to reach Keeper")
        herald.proc.send_signal(signal.SIGTERM)
        wait_until(lambda: "shutdown requested" in herald.stderr.text(), timeout=5, what="the first signal's line")
        started = time.monotonic()
        herald.proc.send_signal(signal.SIGTERM)
        assert herald.proc.wait(timeout=10) == 130
        assert time.monotonic() - started < 5, "exits now, not after the call"
        herald.stderr.join()
        assert "second signal: exiting now" in herald.stderr.text(), herald.stderr.text()
    finally:
        stop(keeper.proc)

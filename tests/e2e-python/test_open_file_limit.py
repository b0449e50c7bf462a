"""The slow-client attack at the common open-file limit.

`benches/slow_clients.py` (the HTTP hardening check: attackers holding
half-sent requests, a normal client's /healthz and tool call each answered
within 1 s) with 1,500 attackers, the default `http.max_connections`
(1,024), and Herald started as under `ulimit -n 1024`: Herald raises its soft
open-file limit to the hard one, and keeps its connection limit below what
the descriptors allow (saying so once), so a slow client is evicted before
`accept` runs out of descriptors, and `accept` never meets EMFILE. The attack itself runs with this process's
own (higher) limit.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest
from conftest import StderrCollector, clean_env, stop
from fake_services import HoldingKeeper

ROOT = Path(__file__).resolve().parents[2]
ATTACKERS = 1500


def attack(binaries, tmp_path, *limit_args: str, attackers: int = ATTACKERS) -> tuple[dict, str]:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < attackers + 200:
        pytest.skip(f"the attack needs {attackers + 200} descriptors; the hard limit is {hard}")
    stderr = tmp_path / "herald.stderr"
    run = subprocess.run(
        [sys.executable, str(ROOT / "benches/slow_clients.py"), "--attackers", str(attackers),
         "--seconds", "4", "--assert", "--herald-stderr", str(stderr), *limit_args],
        env={**os.environ, "HERALD_BIN": binaries["herald"], "SANDBOX_BIN": binaries["sandbox"]},
        capture_output=True, text=True, timeout=180,
    )
    result = json.loads(run.stdout.strip().splitlines()[-1]) if run.stdout.strip() else {}
    print(json.dumps(result))
    assert run.returncode == 0, f"{result}\n{run.stderr[-2000:]}"
    return result, stderr.read_text()


def test_slow_clients_at_ulimit_n_1024_do_not_stall_others(binaries, tmp_path):
    # Soft and hard limit 1,024 (`ulimit -n 1024`): nothing to raise, so the limit is lowered.
    result, stderr = attack(binaries, tmp_path, "--herald-ulimit-n", "1024")
    assert result["herald_nofile"] == [1024, 1024], result
    assert result["all_answered_within_1s"], result
    notices = [line for line in stderr.splitlines() if "http.max_connections is 1024" in line]
    assert len(notices) == 1, stderr[-2000:]
    assert "using 640 connections" in notices[0], notices
    # `accept` never ran out of descriptors: the loop holds at most
    # 640 connections + 256 refusals of sockets, evicted ones still closing included.
    assert "cannot accept connections" not in stderr, stderr[-2000:]
    assert "out of file descriptors" not in stderr, stderr[-2000:]


def test_the_soft_open_file_limit_is_raised_to_the_hard_one(binaries, tmp_path):
    # `ulimit -Sn 1024` under a higher hard limit: Herald raises its soft limit, nothing is
    # lowered. 1,100 attackers, past the 1,024 descriptors Herald started with (EMFILE unless
    # raised), under an http.max_connections of 2,048: the raise alone lets them all in, no
    # eviction (the test above has that).
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    result, stderr = attack(
        binaries, tmp_path, "--herald-soft-ulimit-n", "1024", "--max-connections", "2048", attackers=1100
    )
    assert result["herald_nofile"] == [hard, hard], result
    assert result["all_answered_within_1s"], result
    assert "http.max_connections is" not in stderr, stderr[-2000:]
    assert "cannot accept connections" not in stderr, stderr[-2000:]


def test_accept_never_runs_out_of_descriptors_when_calls_hold_keeper_connections(binaries, sandbox, tmp_path):
    # Under `ulimit -n 256` (64 connections after the clamp), 64 calls that
    # Keeper holds each take a Keeper connection too, and 400 more clients are refused (503,
    # each refusal holding its socket up to 1 s): that is past 256 descriptors, and `accept`
    # met EMFILE. Herald stops taking connections 32 descriptors short of the limit and
    # closes new ones at once; the calls are answered, /healthz answers afterwards.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < 2000:
        pytest.skip(f"the test needs 2,000 descriptors; the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    keeper = HoldingKeeper(sandbox.url, hold_s=3.0)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    proc = subprocess.Popen(
        [binaries["herald"], "--transport", "streamable_http", "--port", "0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit,
        env=clean_env({"LOREBASE_URL": keeper.url, "LOREBASE_DOMAIN": "supply",
                       "LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"}),
    )
    stderr = StderrCollector(proc.stderr)
    held: list[socket.socket] = []
    try:
        ready = json.loads(proc.stdout.readline().decode().split(" ", 1)[1])
        host, port = ready["url"].split("//")[1].split("/")[0].rsplit(":", 1)
        call = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001"}}}).encode()
        request = (f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                   f"Accept: application/json, text/event-stream\r\nContent-Length: {len(call)}\r\n\r\n").encode() + call
        callers = []
        for _ in range(64):
            s = socket.create_connection((host, int(port)), timeout=10)
            s.sendall(request)
            callers.append(s)
        keeper.wait_for(lambda rs: len(rs) >= 60, timeout=15)
        for _ in range(400):
            try:
                held.append(socket.create_connection((host, int(port)), timeout=2))
            except OSError:
                pass
        time.sleep(1.5)
        answered = 0
        for s in callers:
            s.settimeout(10)
            if s.recv(65536).startswith(b"HTTP/1.1 200"):
                answered += 1
            s.close()
        for s in held:
            s.close()
        held.clear()
        time.sleep(1.2)
        healthz = httpx2.get(f"http://{host}:{port}/healthz", timeout=2).status_code
        text = stderr.text()
        print(json.dumps({"calls_answered": answered, "healthz": healthz}))
        assert "cannot accept connections" not in text, text[-2000:]
        assert "out of file descriptors" not in text, text[-2000:]
        assert answered == 64, answered
        assert healthz == 200
    finally:
        for s in held:
            s.close()
        stop(proc)
        keeper.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

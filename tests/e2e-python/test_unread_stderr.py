"""A host that pipes Herald's stderr and never reads it.

The MCP specification lets a stdio client "capture, forward, or ignore" the
server's stderr. Herald writes an audit line per call; once the 64 KiB pipe
is full, logging must not block the calls: lines are dropped and counted
(`herald_log_lines_dropped_total` on /metrics), one warning says how many once
stderr is read again, and `log.audit_file` still has every audit line.

Real pipes, raw JSON-RPC (newline-delimited, as the stdio transport is), the
real binary and the sandbox Keeper.
"""

from __future__ import annotations

import json
import queue
import re
import socket
import subprocess
import threading
import time

from conftest import StderrCollector, clean_env, stop
from test_metrics import scrape

CALLS = 3000
# No call may take longer (the bound); a call that never answers
# (stderr full, logging blocking) fails the test after ANSWER_WAIT_S.
MAX_CALL_S = 1.0
ANSWER_WAIT_S = 10.0
DROPPED = "herald_log_lines_dropped_total"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class JsonRpcPipe:
    """Newline-delimited JSON-RPC over a process's stdin and stdout."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.answers: queue.Queue[dict | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.next_id = 0

    def _pump(self) -> None:
        for raw in iter(self.proc.stdout.readline, b""):
            message = json.loads(raw)
            if "id" in message:
                self.answers.put(message)
        self.answers.put(None)

    def send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        try:
            answer = self.answers.get(timeout=ANSWER_WAIT_S)
        except queue.Empty:
            raise AssertionError(f"request {self.next_id} ({method}) got no answer within {ANSWER_WAIT_S} s") from None
        assert answer is not None, "Herald closed stdout"
        assert answer["id"] == self.next_id, answer
        return answer


def test_a_host_that_never_reads_stderr_does_not_stop_herald(binaries, sandbox, tmp_path):
    port = free_port()
    audit_file = tmp_path / "audit.jsonl"
    proc = subprocess.Popen(
        [binaries["herald"]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,  # never read until the calls are over
        env=clean_env(
            {
                "LOREBASE_URL": sandbox.url,
                "LOREBASE_DOMAIN": "supply",
                "LOREBASE__HERALD__METRICS__PORT": str(port),
                "LOREBASE__HERALD__LOG__AUDIT_FILE": str(audit_file),
            }
        ),
    )
    try:
        rpc = JsonRpcPipe(proc)
        init = rpc.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "unread-stderr", "version": "1"}},
        )
        assert "result" in init, init
        rpc.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

        slowest = 0.0
        for i in range(CALLS):
            started = time.monotonic()
            answer = rpc.request("tools/call", {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001"}})
            took = time.monotonic() - started
            slowest = max(slowest, took)
            assert answer["result"].get("isError") is not True, answer
            assert took < MAX_CALL_S, f"call {i + 1} took {took:.3f} s"
        print(f"{CALLS} calls, the slowest {slowest * 1000:.1f} ms")

        # The pipe (64 KiB) cannot hold 3,000 audit lines, nor can the buffer.
        dropped = scrape(f"http://127.0.0.1:{port}/metrics")[(DROPPED, ())]
        assert dropped > 0, "stderr was never read: lines must have been dropped"
        print(f"dropped {dropped:.0f} lines")

        # The audit file has every call's line, none dropped.
        deadline = time.monotonic() + 10
        while True:
            lines = [json.loads(line) for line in audit_file.read_text().splitlines()]
            if len(lines) >= CALLS or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        calls = [line for line in lines if line.get("tool") == "lorebase_get" and line.get("outcome") == "ok"]
        assert len(calls) == CALLS, f"{len(calls)} audit lines in the file for {CALLS} calls"

        # Reading stderr now: the lines that waited, then one warning with the count.
        errors = StderrCollector(proc.stderr)
        deadline = time.monotonic() + 10
        while not re.search(r"(\d+) log lines were dropped", errors.text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        said = re.findall(r"(\d+) log lines were dropped", errors.text())
        assert said, f"no dropped-lines warning on stderr:\n{errors.text()[-2000:]}"
        assert sum(int(n) for n in said) == dropped, (said, dropped)
        assert scrape(f"http://127.0.0.1:{port}/metrics")[(DROPPED, ())] == dropped
        proc.stdin.close()
        assert proc.wait(timeout=15) == 0
    finally:
        stop(proc)

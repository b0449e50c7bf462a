"""MCP over stdio, as a host drives it: newline-delimited JSON-RPC on a child's
pipes. Cold start (spawn to the first answered ``tools/list``) and per-call
latency of ``tools/call`` on one connection, plus the two floors the figures
are read against: the same Keeper call made straight with curl, and the pipe
round trip of this client through ``cat``."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from . import procs

PROTOCOL = "2025-11-25"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                         "clientInfo": {"name": "herald-bench", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def _line(message: dict) -> bytes:
    return (json.dumps(message, separators=(",", ":")) + "\n").encode()


class StdioSession:
    """One server process and its pipes; ``start`` is taken just before spawn."""

    def __init__(self, argv: list[str], env: dict[str, str], stderr: Path, stderr_pipe: bool = False):
        """``stderr_pipe``: the server's stderr is a pipe that another process (``cat``)
        drains into the log, as an MCP host reads it, rather than the log file itself."""
        self.stderr = open(stderr, "ab")
        self.drain: subprocess.Popen | None = None
        self.start = time.perf_counter()
        # Buffered pipes: an unbuffered stdout would be read one byte per syscall.
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE if stderr_pipe else self.stderr, env=env)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if stderr_pipe:
            assert self.proc.stderr is not None
            self.drain = subprocess.Popen(["cat"], stdin=self.proc.stderr, stdout=self.stderr)
            self.proc.stderr.close()
        self.stdin = self.proc.stdin
        self.out = self.proc.stdout

    def send(self, message: dict | bytes) -> None:
        self.stdin.write(message if isinstance(message, bytes) else _line(message))
        self.stdin.flush()

    def answer(self, wanted_id: int) -> dict:
        """The response to ``wanted_id`` (notifications and other lines skipped)."""
        while True:
            raw = self.out.readline()
            if not raw:
                raise RuntimeError(f"the server closed stdout (exit {self.proc.poll()})")
            message = json.loads(raw)
            if message.get("id") == wanted_id:
                return message

    def handshake(self) -> float:
        """initialize, initialized, tools/list as a host sends them; seconds since spawn."""
        self.send(INITIALIZE)
        self.answer(1)
        self.send(INITIALIZED)
        self.send(TOOLS_LIST)
        listed = self.answer(2)
        elapsed = time.perf_counter() - self.start
        if "result" not in listed or not listed["result"].get("tools"):
            raise RuntimeError(f"tools/list failed: {str(listed)[:300]}")
        return elapsed

    def close(self) -> None:
        try:
            self.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            procs.stop(self.proc)
        if self.drain is not None:
            try:
                self.drain.wait(5)
            except subprocess.TimeoutExpired:
                procs.stop(self.drain)
        self.stderr.close()


def cold_start(argv: list[str], env: dict[str, str], stderr: Path) -> tuple[float, int]:
    """Seconds from spawn to the tools/list answer, and RSS (KiB) right after it."""
    s = StdioSession(argv, env, stderr)
    try:
        elapsed = s.handshake()
        rss = procs.rss_kb(s.proc.pid)
    finally:
        s.close()
    return elapsed, rss


def call_message(i: int, tool: str, arguments: dict) -> bytes:
    return _line({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                  "params": {"name": tool, "arguments": arguments}})


def per_call(argv: list[str], env: dict[str, str], stderr: Path, tool: str, arguments: dict, expect: str,
             calls: int, warmup: int, stderr_pipe: bool = False) -> tuple[list[float], int, float]:
    """Latencies (seconds) of ``calls`` sequential tools/call on one connection after
    ``warmup`` untimed ones; the failed answers; the server's CPU seconds per call.
    The server's stderr is the log file (``stderr_pipe``: a pipe that another process
    drains, as a host reads it; docs/benchmarks.md compares the two)."""
    s = StdioSession(argv, env, stderr, stderr_pipe=stderr_pipe)
    latencies, failed = [], 0
    try:
        s.handshake()
        for i in range(warmup):
            s.send(call_message(1000 + i, tool, arguments))
            s.answer(1000 + i)
        cpu0 = procs.cpu_seconds(s.proc.pid)
        for i in range(calls):
            msg = call_message(100_000 + i, tool, arguments)
            t0 = time.perf_counter()
            s.send(msg)
            raw = s.out.readline()
            latencies.append(time.perf_counter() - t0)
            if b'"isError":false' not in raw or expect.encode() not in raw:
                failed += 1
        cpu = procs.cpu_seconds(s.proc.pid) - cpu0
    finally:
        s.close()
    return latencies, failed, cpu / max(calls, 1)


def pipe_floor(tool: str, arguments: dict, calls: int, stderr: Path) -> list[float]:
    """The round trip of this client's own pipe I/O: the same line echoed by ``cat``."""
    s = StdioSession(["cat"], dict(os.environ), stderr)
    latencies = []
    try:
        for i in range(calls):
            msg = call_message(i, tool, arguments)
            t0 = time.perf_counter()
            s.send(msg)
            s.out.readline()
            latencies.append(time.perf_counter() - t0)
    finally:
        s.close()
    return latencies


def curl_floor(url: str, key: str, calls: int, warmup: int) -> list[float]:
    """The same Keeper call made straight with curl on one kept-alive connection:
    ``time_total`` of each transfer (the first ``warmup`` dropped)."""
    argv = ["curl", "-s", "-H", f"Authorization: Bearer {key}", "-w", "%{time_total}\\n"]
    for _ in range(calls + warmup):
        argv += ["-o", "/dev/null", url]
    out = subprocess.run(argv, check=True, capture_output=True, text=True, timeout=600).stdout
    values = [float(v) for v in out.split()]
    if len(values) != calls + warmup:
        raise RuntimeError(f"curl reported {len(values)} transfers, expected {calls + warmup}")
    return values[warmup:]

"""The bounds of a stdio message, over real pipes: each
line is probed before rmcp builds a tree, with the same bounds as an HTTP
body (JSON values, nesting): one 14 MB line of 7 million values gets the
same tool error as over HTTP and costs Herald well under 100 MB at its peak;
lines that are not JSON (invalid UTF-8, a NUL, 100,000-deep nesting, two
values) get a JSON-RPC -32700 answer, a line past the byte cap -32600, and
the session goes on.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading

from conftest import clean_env, run_bench, stop

PEAK_BOUND_KB = 100 * 1024


class Lines:
    """Herald's stdout lines, read on a thread."""

    def __init__(self, stream) -> None:
        self.q: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream) -> None:
        for raw in iter(stream.readline, b""):
            self.q.put(json.loads(raw))
        self.q.put(None)

    def next(self, timeout: float = 20) -> dict:
        line = self.q.get(timeout=timeout)
        assert line is not None, "Herald closed stdout"
        return line


def peak_rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_stdio_lines_are_bounded_like_http_bodies(binaries, sandbox):
    proc = subprocess.Popen(
        [binaries["herald"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=clean_env({"LOREBASE_URL": sandbox.url, "LOREBASE_DOMAIN": "supply"}),
    )
    out = Lines(proc.stdout)

    def send(line: bytes) -> None:
        proc.stdin.write(line + b"\n")
        proc.stdin.flush()

    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}).encode())
        assert out.next()["id"] == 0
        send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        before_kb = peak_rss_kb(proc.pid)

        # 7 million values in one 14 MB line.
        zeros = b",".join([b"0"] * 7_000_000)
        big = (b'{"jsonrpc": "2.0", "id": "big", "method": "tools/call", "params": '
               b'{"name": "lorebase_execute", "arguments": {"x": [' + zeros + b"]}}}")
        assert len(big) > 14_000_000
        send(big)
        answer = out.next(timeout=60)
        peak_kb = peak_rss_kb(proc.pid)
        print(json.dumps({"rss_peak_before_kb": before_kb, "rss_peak_after_big_line_kb": peak_kb}))
        assert answer["id"] == "big", answer
        assert answer["result"]["isError"] is True, answer
        text = answer["result"]["content"][0]["text"]
        assert text.startswith("[bad-arguments] the request holds 7000"), text
        assert peak_kb < PEAK_BOUND_KB, peak_kb

        deep = b"[" * 100_000 + b"]" * 100_000
        not_json = [
            b'{"jsonrpc": "2.0", "id": 1, "method": "\xff\xfe"}',  # invalid UTF-8
            b'{"jsonrpc": "2.0", "id": 2, "method": "pi\x00ng"}',  # a NUL
            b"\x00",
            deep,
            b'{"jsonrpc": "2.0", "id": 3, "method": "ping"} {}',  # two values
            b"not json",
        ]
        for line in not_json:
            send(line)
            answer = out.next()
            assert answer["id"] is None, (line[:40], answer)
            assert answer["error"]["code"] == -32700, (line[:40], answer)

        # Not a JSON-RPC message, a batch: -32600.
        for line in (b"[]", b"42", b'{"jsonrpc": "2.0"}'):
            send(line)
            answer = out.next()
            assert answer["error"]["code"] == -32600, (line, answer)

        # Past the byte cap (16 MiB): -32600, the line never kept whole.
        send(b'{"x": "' + b"a" * (17 << 20) + b'"}')
        answer = out.next(timeout=60)
        assert answer["id"] is None and answer["error"]["code"] == -32600, answer
        assert "bytes" in answer["error"]["message"], answer

        # The session goes on.
        send(json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                         "params": {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001"}}}).encode())
        answer = out.next()
        assert answer["id"] == 9 and answer["result"]["isError"] is False, answer
        assert peak_rss_kb(proc.pid) < PEAK_BOUND_KB
    finally:
        proc.stdin.close()
        stop(proc)


def test_a_host_that_reads_no_answers_stops_herald_reading_stdin(binaries):
    """A host writing `lorebase_schema` calls for a few seconds and reading nothing: once the
    answers owed (running or unwritten) reach their bound, Herald stops reading stdin, so its
    writes block; RSS and descriptors stay bounded (Keeper connections with them), no
    "Too many open files"; once the host reads, every id is answered exactly once
    (benches/stdio_unread.py: the figures and the 60 s run in docs/benchmarks.md)."""
    result = run_bench(binaries, "stdio_unread.py", "--seconds", "3", "--max-taken", "2000")
    assert result["answered"] == result["calls_written"] > 0, result

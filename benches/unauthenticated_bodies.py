"""Memory of requests refused for want of a token (Herald answers
401 before reading the body).

Starts a Herald as an OAuth resource server (Streamable HTTP, loopback; no
authorization server is needed, as no token is ever sent) and opens N
connections that each send the head of a 1 MiB `tools/call` whose
`arguments.x` is an array of zeros (about 524,000 of them), then the body
but its last byte, then — all at once — the last byte. Each must be answered
401 with the `resource_metadata` challenge. Herald's RSS at start, its peak
(VmHWM) and its RSS 2 s after are measured.

Prints one JSON line; exits 1 with --assert when a request was not answered
401 or the peak grew by more than --max-growth-mb (default 64).

    .venv/bin/python benches/unauthenticated_bodies.py --connections 64 --assert

Loopback only; stops by itself.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))
sys.path.insert(0, str(ROOT / "tests" / "replicas"))

from harness.procs import peak_rss_kb, reset_peak, rss_kb, stop  # noqa: E402
from replicas import free_ports, ready_line, scrubbed_env  # noqa: E402

BODY_BYTES = 1 << 20


def body() -> bytes:
    head = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lorebase_get","arguments":{"x":['
    tail = b"0]}}}"
    zeros = (BODY_BYTES - len(head) - len(tail)) // 2
    return head + b"0," * zeros + tail


def attack(port: int, payload: bytes, go: threading.Event, answers: list[str]) -> None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            s.sendall(
                f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n"
                f"accept: application/json, text/event-stream\r\ncontent-length: {len(payload)}\r\n\r\n".encode()
            )
            try:
                s.sendall(payload[:-1])
                go.wait(20)
                s.sendall(payload[-1:])
            except OSError:
                pass  # answered (and closed) before the whole body: the point
            answers.append(s.recv(4096).decode(errors="replace").split("\r\n", 1)[0])
    except OSError as e:
        answers.append(f"error: {e}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--max-growth-mb", type=float, default=64.0)
    ap.add_argument("--assert", dest="check", action="store_true")
    ap.add_argument("--herald", default=os.environ.get("HERALD_BIN", str(ROOT / "target/debug/lorebase-herald")))
    args = ap.parse_args()
    (port,) = free_ports(1)
    herald = subprocess.Popen(
        [args.herald],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=scrubbed_env({
            "LOREBASE_URL": "http://127.0.0.1:9",
            "LOREBASE__HERALD__TRANSPORT": "streamable_http",
            "LOREBASE__HERALD__HTTP__PORT": str(port),
            "LOREBASE__HERALD__HTTP__AUTHORIZATION_SERVERS": "http://127.0.0.1:9",
            "LOREBASE__HERALD__HTTP__RESOURCE_URL": f"http://127.0.0.1:{port}/mcp",
            "LOREBASE__HERALD__HTTP__KEEPER_TOKEN": "forward",
        }),
    )
    try:
        ready_line(herald, "LOREBASE_HERALD_READY ")
        time.sleep(0.5)
        start = rss_kb(herald.pid)
        peak_reset = reset_peak(herald.pid)
        payload = body()
        go = threading.Event()
        answers: list[str] = []
        threads = [threading.Thread(target=attack, args=(port, payload, go, answers)) for _ in range(args.connections)]
        began = time.monotonic()
        for t in threads:
            t.start()
        time.sleep(1.0)
        go.set()
        for t in threads:
            t.join(30)
        seconds = time.monotonic() - began
        peak = peak_rss_kb(herald.pid)
        time.sleep(2)
        after = rss_kb(herald.pid)
    finally:
        stop(herald)
    refused = sum(a.startswith("HTTP/1.1 401") for a in answers)
    result = {
        "connections": args.connections,
        "body_bytes": len(payload),
        "answered_401": refused,
        "other_answers": sorted({a for a in answers if not a.startswith("HTTP/1.1 401")})[:5],
        "seconds": round(seconds, 2),
        "rss_mb": {"start": round(start / 1024, 1), "peak": round(peak / 1024, 1), "after_2s": round(after / 1024, 1)},
        "peak_measured_since_start": peak_reset,
    }
    print(json.dumps(result))
    if args.check:
        growth = (peak - start) / 1024
        if refused != args.connections:
            print(f"FAIL: {args.connections - refused} requests not answered 401", file=sys.stderr)
            return 1
        if peak_reset and growth > args.max_growth_mb:
            print(f"FAIL: the peak grew by {growth:.1f} MB (bound {args.max_growth_mb})", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

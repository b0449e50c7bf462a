"""Clients that never read their answers, bounded.

Starts the sandbox Keeper and a Herald (Streamable HTTP, loopback, an
`http.max_connections` of --max-connections), then opens --attackers
connections, each with a 4 KiB receive buffer, that pipeline --pipelined
`tools/list` requests and never read a byte. Meanwhile a normal client, every
half second on a new connection, asks `GET /healthz` and calls `lorebase_get`,
each with a 1 s timeout, for --seconds (from a second after the attack). Then the attackers leave.

Prints one JSON line: the normal client's probes answered within 1 s, its
worst times, Herald's peak open file descriptors and RSS (MB). With --assert,
exits 1 unless every probe was answered within 1 s.

    .venv/bin/python benches/never_reading.py --attackers 64 --max-connections 64 --seconds 10 --assert

Loopback only; stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))

from harness.procs import add_binary_options, peak_rss_kb, reset_peak, rss_kb  # noqa: E402
from slow_clients import FAILURES, herald_over_sandbox, http_once, probe, probe_summary, report  # noqa: E402

LIST = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()


def pipelining(host: str, port: int, count: int) -> socket.socket | None:
    """A connection that has sent `count` `tools/list` requests (as many as
    the server took within a second) and reads nothing."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        s.connect((host, port))
    except OSError:
        s.close()
        return None
    request = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {len(LIST)}\r\n\r\n"
    ).encode() + LIST
    s.settimeout(1.0)
    try:
        s.sendall(request * count)
    except OSError:
        pass  # the server stopped reading: the point of the attack
    return s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attackers", type=int, default=64)
    ap.add_argument("--pipelined", type=int, default=1000, help="tools/list requests each attacker sends (more answers than the kernel buffers hold)")
    ap.add_argument("--max-connections", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=10.0, help="how long the normal client probes")
    ap.add_argument("--assert", dest="check", action="store_true")
    add_binary_options(ap)
    args = ap.parse_args()

    env = {"LOREBASE__HERALD__HTTP__MAX_CONNECTIONS": str(args.max_connections)}
    with herald_over_sandbox(args.herald, args.sandbox, env) as (herald, host, port):
        for _ in range(10):
            asyncio.run(http_once(host, port, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 5))
        rss_start = rss_kb(herald.pid)
        reset_peak(herald.pid)
        started = time.monotonic()
        held = [s for s in (pipelining(host, port, args.pipelined) for _ in range(args.attackers)) if s]
        attack_s = time.monotonic() - started
        time.sleep(1.0)  # the attack settles: the answers stall
        probes, peak_fds = asyncio.run(probe(host, port, herald.pid, args.seconds, period=0.5))
        for s in held:
            s.close()
        result = {
            "attackers": len(held),
            "pipelined_each": args.pipelined,
            "max_connections": args.max_connections,
            "attack_setup_s": round(attack_s, 1),
            **probe_summary(probes),
            "herald_peak_open_fds": peak_fds,
            "rss_mb": {"start": round(rss_start / 1024, 1), "peak": round(peak_rss_kb(herald.pid) / 1024, 1)},
            "probe_failures": FAILURES[:3],
        }
        return report(result, args.check)


if __name__ == "__main__":
    sys.exit(main())

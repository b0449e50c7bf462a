"""Clients that never read their answers (issue 27, item 2), bounded.

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
import os
import socket
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))

from harness.procs import peak_rss_kb, reset_peak, rss_kb  # noqa: E402
from slow_clients import CALL, FAILURES, herald_over_sandbox, http_once, open_fds  # noqa: E402

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


async def probe(host: str, port: int, pid: int, seconds: float) -> tuple[list, int]:
    probes: list[tuple[str, int, float]] = []
    peak_fds = 0
    get = f"GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
    post = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {len(CALL)}\r\n\r\n"
    ).encode() + CALL
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        tick = time.monotonic()
        for name, request in (("healthz", get), ("tool_call", post)):
            status, took = await http_once(host, port, request, 1.0)
            probes.append((name, status, took))
        peak_fds = max(peak_fds, open_fds(pid))
        await asyncio.sleep(max(0.0, 0.5 - (time.monotonic() - tick)))
    return probes, peak_fds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attackers", type=int, default=64)
    ap.add_argument("--pipelined", type=int, default=1000, help="tools/list requests each attacker sends (more answers than the kernel buffers hold)")
    ap.add_argument("--max-connections", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=10.0, help="how long the normal client probes")
    ap.add_argument("--assert", dest="check", action="store_true")
    ap.add_argument("--herald", default=os.environ.get("HERALD_BIN", str(ROOT / "target/debug/lorebase-herald")))
    ap.add_argument("--sandbox", default=os.environ.get("SANDBOX_BIN", str(ROOT / "target/debug/lorebase-sandbox")))
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
        probes, peak_fds = asyncio.run(probe(host, port, herald.pid, args.seconds))
        for s in held:
            s.close()
        ok = [p for p in probes if p[1] == 200 and p[2] < 1.0]
        result = {
            "attackers": len(held),
            "pipelined_each": args.pipelined,
            "max_connections": args.max_connections,
            "attack_setup_s": round(attack_s, 1),
            "probes": len(probes),
            "probes_answered_within_1s": len(ok),
            "worst_healthz_s": round(max((p[2] for p in probes if p[0] == "healthz"), default=0), 3),
            "worst_tool_call_s": round(max((p[2] for p in probes if p[0] == "tool_call"), default=0), 3),
            "all_answered_within_1s": len(ok) == len(probes) and len(probes) > 0,
            "herald_peak_open_fds": peak_fds,
            "rss_mb": {"start": round(rss_start / 1024, 1), "peak": round(peak_rss_kb(herald.pid) / 1024, 1)},
            "probe_failures": FAILURES[:3],
        }
        print(json.dumps(result))
        if args.check and not result["all_answered_within_1s"]:
            print("FAILED: a normal client was not answered within 1 s", file=sys.stderr)
            return 1
        return 0


if __name__ == "__main__":
    sys.exit(main())

"""A bounded attack with bodies that expand in memory.

Starts the sandbox Keeper and a Herald (Streamable HTTP, loopback), then opens
--connections connections that each send a `tools/call` of about 1 MiB whose
`arguments.x` is an array of --values zeros (2 bytes each on the wire, a
32-byte `serde_json::Value` each once parsed), holding back the last byte
until every connection has sent the rest; then all send their last byte at
once and read their answers. Herald's RSS is sampled every 50 ms throughout,
and afterwards until it falls under --after-mb or --settle seconds pass, with
nothing else happening.

Prints one JSON line: the answers' statuses (and whether the answer was the
guard's tool error), Herald's RSS at start, peak (VmHWM) and after (MB), and
how long RSS took to fall under --after-mb. Exits 1 with --assert when the
peak reaches --peak-mb or RSS is not under --after-mb within --settle seconds.

    .venv/bin/python benches/big_arguments.py                       # 64 x 524,000 zeros
    .venv/bin/python benches/big_arguments.py --assert              # in the test command
    .venv/bin/python benches/big_arguments.py --values 49950 --assert   # just under the guard's bound
    .venv/bin/python benches/big_arguments.py --values 49950 --shape object --assert

Loopback only; stops by itself (every socket has a 60 s timeout).
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))

from harness.check import verdict  # noqa: E402
from harness.procs import add_binary_options, peak_rss_kb, reset_peak, rss_kb  # noqa: E402
from slow_clients import herald_over_sandbox  # noqa: E402


def call_body(values: int, call_id: int, shape: str = "array", separator: str = ",") -> bytes:
    if shape == "array":
        zeros = separator.join(["0"] * values)
    else:  # an object of values / 2 keys (each key is a value too), in the array's place
        zeros = ",".join(f'"k{i}": 0' for i in range(values // 2))
        zeros = "{" + zeros + "}"
        return (
            '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": '
            '{"name": "lorebase_execute", "arguments": {"operation": "flag_supplier_risk", '
            '"parameters": {}, "x": %s}}}' % (call_id, zeros)
        ).encode()
    return (
        '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": '
        '{"name": "lorebase_execute", "arguments": {"operation": "flag_supplier_risk", '
        '"parameters": {}, "x": [%s]}}}' % (call_id, zeros)
    ).encode()


def request_of(host: str, body: bytes, keep_alive: bool = False) -> bytes:
    connection = "" if keep_alive else "Connection: close\r\n"
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\n{connection}"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    return head + body


def read_answer(sock: socket.socket) -> tuple[int, bytes]:
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head[9:12]) if head.startswith(b"HTTP/1.1 ") else 0
    return status, body


class Sampler(threading.Thread):
    """Samples a process's RSS every 50 ms (the highest seen, and the last)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.highest, self.last, self.stop = pid, 0, 0, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.last = rss_kb(self.pid)
            self.highest = max(self.highest, self.last)
            time.sleep(0.05)


def attack(args, host: str, port: int) -> dict:
    bodies = [request_of(host, call_body(args.values, i + 1, args.shape)) for i in range(args.connections)]
    socks = []
    for request in bodies:
        s = socket.create_connection((host, port), timeout=60)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(request[:-1])
        socks.append(s)
    time.sleep(args.hold)  # every body but its last byte is in Herald
    for s, request in zip(socks, bodies):
        s.sendall(request[-1:])
    statuses: dict[str, int] = {}
    tool_errors = 0
    for s in socks:
        try:
            status, body = read_answer(s)
        except OSError:
            status, body = 0, b""
        finally:
            s.close()
        statuses[str(status)] = statuses.get(str(status), 0) + 1
        if status == 200 and b"[bad-arguments] the request holds" in body:
            tool_errors += 1
    return {"body_bytes": len(bodies[0]) - bodies[0].index(b"\r\n\r\n") - 4, "statuses": statuses, "guard_tool_errors": tool_errors}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--values", type=int, default=524000, help="zeros in arguments.x (524,000: a 1 MiB body)")
    ap.add_argument("--shape", choices=["array", "object"], default="array", help="arguments.x: an array of zeros, or an object of values/2 keys")
    ap.add_argument("--hold", type=float, default=1.0, help="seconds the last bytes are held back")
    ap.add_argument("--settle", type=float, default=20.0, help="seconds to wait for RSS to fall after the answers")
    ap.add_argument("--peak-mb", type=float, default=400.0, help="--assert: the peak must stay under this")
    ap.add_argument("--after-mb", type=float, default=100.0, help="--assert: RSS must fall under this within --settle")
    ap.add_argument("--assert", dest="check", action="store_true", help="exit 1 past --peak-mb or --after-mb")
    add_binary_options(ap)
    args = ap.parse_args()

    with herald_over_sandbox(args.herald, args.sandbox, {}) as (herald, host, port):
        time.sleep(0.5)
        rss_start = rss_kb(herald.pid)
        reset_peak(herald.pid)
        sampler = Sampler(herald.pid)
        sampler.start()
        started = time.monotonic()
        result = attack(args, host, port)
        answered = time.monotonic()
        fell_after = None
        while time.monotonic() - answered < args.settle:
            if rss_kb(herald.pid) < args.after_mb * 1024:
                fell_after = time.monotonic() - answered
                break
            time.sleep(0.1)
        sampler.stop.set()
        sampler.join()
        rss_after = rss_kb(herald.pid)
        peak = max(peak_rss_kb(herald.pid), sampler.highest)
        result = {
            "connections": args.connections,
            "values": args.values,
            "shape": args.shape,
            **result,
            "attack_s": round(answered - started, 2),
            "rss_mb": {"start": round(rss_start / 1024, 1), "peak": round(peak / 1024, 1), "after": round(rss_after / 1024, 1)},
            "fell_under_after_mb_in_s": None if fell_after is None else round(fell_after, 1),
            "herald_running": herald.poll() is None,
        }
        print(json.dumps(result))
        if args.check:
            failed = []
            if peak >= args.peak_mb * 1024:
                failed.append(f"peak RSS {peak / 1024:.0f} MB >= {args.peak_mb:.0f} MB")
            if fell_after is None:
                failed.append(f"RSS {rss_after / 1024:.0f} MB not under {args.after_mb:.0f} MB {args.settle:.0f} s after the answers")
            return verdict(failed, result["herald_running"])
        return 0


if __name__ == "__main__":
    sys.exit(main())

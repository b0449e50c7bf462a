"""Large bodies beside small calls.

Starts the sandbox Keeper and a Herald (Streamable HTTP, loopback, anonymous
callers), then, in a process of its own, --clients connections that each post
a legal `tools/call` of --values JSON values (49,900 by default: about 150 KB,
under the guard's bound of 50,000) back to back on one kept-alive connection.
Meanwhile, in this process, a small client calls `lorebase_get` every
--interval seconds on its own kept-alive connection, and a medium one calls
with --medium-values values (2,000: past the 1,024 values that reserve from the
budget of values in flight) the same way. No valid key is involved: the
sandbox runs without authentication, and Herald parses the bodies either way.

Prints one JSON line: the small and medium calls' p50 / p99 / worst (ms) and
failures, during the attack and, first, on the idle server (--baseline
seconds); how many large calls were answered (by status) and their p50; the
ratio of the small calls' p99 to the large calls' p50 (a small call that
queues behind large ones takes about as long as they do; one that does not,
a small part of it); Herald's peak RSS; and the load average. Exits 1 with
--assert when a small or medium call failed, the small calls' p99 reaches
--p99-ms, or the ratio reaches --ratio.

    .venv/bin/python benches/large_bodies.py                                  # 64 clients, 10 s
    .venv/bin/python benches/large_bodies.py --herald target/release/lorebase-herald --sandbox target/release/lorebase-sandbox
    .venv/bin/python benches/large_bodies.py --clients 32 --seconds 5 --assert   # in the test command

Loopback only; stops by itself (a small or medium call times out after 30 s, a large one after 90 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))

from big_arguments import Sampler, call_body as big_call_body, request_of as big_request_of  # noqa: E402
from harness.check import verdict  # noqa: E402
from harness.procs import add_binary_options, peak_rss_kb, reset_peak  # noqa: E402
from slow_clients import herald_over_sandbox  # noqa: E402

#: A large call may wait its turn up to 60 s in Herald (the lane's share of the budget).
LARGE_TIMEOUT_S = 90.0

SMALL = {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001"}}


def call_body(values: int, call_id: int = 1) -> bytes:
    """A `tools/call` whose arguments hold `values` JSON values in all (the
    call's own six and an array of zeros), 3 bytes a value: 49,900 are ~150 KB."""
    return big_call_body(max(values - 6, 0), call_id, separator=", ")


def request_of(host: str, body: bytes) -> bytes:
    return big_request_of(host, body, keep_alive=True)


async def read_answer(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One HTTP/1.1 answer with a Content-Length (what Herald sends for JSON)."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return status, await reader.readexactly(length)


class Connection:
    """One kept-alive connection; a request that fails opens a new one."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def call(self, request: bytes, timeout: float = 30.0) -> tuple[int, bytes]:
        try:
            async with asyncio.timeout(timeout):
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
                self.writer.write(request)
                await self.writer.drain()
                return await read_answer(self.reader)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError):
            self.close()
            return 0, b""

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def large_clients(host: str, port: int, clients: int, values: int, seconds: float, out) -> None:
    """The attack, in a process of its own: `clients` connections posting the
    same large body back to back for `seconds`."""

    async def one(request: bytes, stop_at: float, stats: dict) -> None:
        conn = Connection(host, port)
        while time.monotonic() < stop_at:
            started = time.monotonic()
            status, _ = await conn.call(request, timeout=LARGE_TIMEOUT_S)
            stats["times"].append(time.monotonic() - started)
            stats["statuses"][str(status)] = stats["statuses"].get(str(status), 0) + 1
        conn.close()

    async def run() -> dict:
        request = request_of(host, call_body(values))
        stats: dict = {"times": [], "statuses": {}, "body_bytes": len(call_body(values))}
        stop_at = time.monotonic() + seconds
        await asyncio.gather(*(one(request, stop_at, stats) for _ in range(clients)))
        return stats

    out.put(asyncio.run(run()))


async def paced(host: str, port: int, body: bytes, interval: float, seconds: float) -> dict:
    """Calls on one kept-alive connection, one every `interval` seconds (or as
    soon as the one before is answered, when it took longer)."""
    conn = Connection(host, port)
    request = request_of(host, body)
    times, failures = [], 0
    stop_at = time.monotonic() + seconds
    while time.monotonic() < stop_at:
        started = time.monotonic()
        status, answer = await conn.call(request)
        elapsed = time.monotonic() - started
        if status != 200 or b'"result"' not in answer:
            failures += 1
        else:
            times.append(elapsed)
        await asyncio.sleep(max(0.0, interval - elapsed))
    conn.close()
    return {"calls": len(times) + failures, "failures": failures, **summary(times)}


def summary(times: list[float]) -> dict:
    if not times:
        return {"p50_ms": None, "p99_ms": None, "worst_ms": None}
    times = sorted(times)
    pick = lambda q: round(times[min(len(times) - 1, int(q * len(times)))] * 1000, 1)  # noqa: E731
    return {"p50_ms": pick(0.50), "p99_ms": pick(0.99), "worst_ms": round(times[-1] * 1000, 1)}


async def probes(host: str, port: int, args, seconds: float) -> tuple[dict, dict]:
    small = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": SMALL}).encode()
    medium = call_body(args.medium_values)
    return await asyncio.gather(
        paced(host, port, small, args.interval, seconds),
        paced(host, port, medium, args.interval, seconds),
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=64, help="connections posting large bodies back to back")
    ap.add_argument("--values", type=int, default=49_900, help="JSON values of each large body (the guard's bound is 50,000)")
    ap.add_argument("--medium-values", type=int, default=2_000, help="JSON values of the medium calls")
    ap.add_argument("--seconds", type=float, default=10.0, help="length of the attack")
    ap.add_argument("--baseline", type=float, default=2.0, help="seconds of small and medium calls before it")
    ap.add_argument("--interval", type=float, default=0.02, help="seconds between two small (and two medium) calls")
    ap.add_argument("--p99-ms", type=float, default=50.0, help="--assert: the small calls' p99 must stay under this")
    ap.add_argument("--ratio", type=float, default=0.25, help="--assert: small p99 / large p50 must stay under this")
    ap.add_argument("--assert", dest="check", action="store_true")
    add_binary_options(ap)
    args = ap.parse_args()

    load_before = os.getloadavg()[0]
    with herald_over_sandbox(args.herald, args.sandbox, {}) as (herald, host, port):
        time.sleep(0.5)
        base_small, base_medium = asyncio.run(probes(host, port, args, args.baseline))
        reset_peak(herald.pid)
        sampler = Sampler(herald.pid)
        sampler.start()
        out: multiprocessing.Queue = multiprocessing.Queue()
        attack = multiprocessing.Process(
            target=large_clients, args=(host, port, args.clients, args.values, args.seconds, out)
        )
        attack.start()
        time.sleep(min(1.0, args.seconds / 4))  # the attack at full pressure
        small, medium = asyncio.run(probes(host, port, args, args.seconds - min(1.0, args.seconds / 4) - 0.5))
        large = out.get(timeout=args.seconds + LARGE_TIMEOUT_S + 30)
        attack.join(timeout=10)
        sampler.stop.set()
        sampler.join()
        peak = max(peak_rss_kb(herald.pid), sampler.highest)
        large_summary = summary(large["times"])
        ratio = None
        if small["p99_ms"] is not None and large_summary["p50_ms"]:
            ratio = round(small["p99_ms"] / large_summary["p50_ms"], 3)
        result = {
            "clients": args.clients,
            "values": args.values,
            "large_body_bytes": large["body_bytes"],
            "idle": {"small": base_small, "medium": base_medium},
            "small": small,
            "medium": medium,
            "large": {"answered": large["statuses"], **large_summary},
            "small_p99_over_large_p50": ratio,
            "peak_rss_mb": round(peak / 1024, 1),
            "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
            "herald_running": herald.poll() is None,
        }
    print(json.dumps(result))
    if args.check:
        failed = []
        for name in ("small", "medium"):
            if result[name]["failures"] or not result[name]["calls"]:
                failed.append(f"{result[name]['failures']} of {result[name]['calls']} {name} calls failed")
        if small["p99_ms"] is None or small["p99_ms"] >= args.p99_ms:
            failed.append(f"small calls' p99 {small['p99_ms']} ms >= {args.p99_ms} ms")
        if ratio is None or ratio >= args.ratio:
            failed.append(f"small p99 / large p50 {ratio} >= {args.ratio}")
        if set(large["statuses"]) != {"200"}:
            failed.append(f"large calls answered {large['statuses']}")
        return verdict(failed, result["herald_running"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One address floods the connection table; clients from other addresses
must still be served (the fair share of `http.max_connections`), bounded.

Starts the sandbox Keeper and a Herald (Streamable HTTP on 127.0.0.1, an
`http.max_connections` of --max-connections), then attacks from 127.0.0.1,
in processes of their own (--procs), in one of two ways:

- `--mode hold`: --attackers kept-alive connections, each sending
  `GET /healthz` every 1.5 s (no credential needed), reopened when closed;
- `--mode churn`: --rate new connections a second, each sending
  `GET /healthz` and then holding the connection open for --hold seconds
  without reading.

Meanwhile --clients legitimate clients, each from its own loopback address
(127.0.0.2, 127.0.0.3, ...), ask `GET /healthz` on a new connection every
--period seconds for --seconds (from a second after the attack starts), each
with a 5 s timeout.

Prints one JSON line: the legitimate requests, their p50/p99/max seconds,
how many were refused (503), how many closed without an answer, and how
many timed out. With --assert, exits 1 when p99 passes --p99 seconds or any
was refused or closed without an answer.

    .venv/bin/python benches/one_address_flood.py --mode hold --attackers 1024 --max-connections 1024 --seconds 10 --assert
    .venv/bin/python benches/one_address_flood.py --mode churn --rate 3000 --max-connections 1024 --p99 0.5 --assert

Loopback only (127.0.0.0/8); stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))

import os  # noqa: E402

from harness.procs import add_binary_options, cpu_seconds  # noqa: E402
from slow_clients import herald_over_sandbox, open_fds, raise_nofile  # noqa: E402

HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


async def read_answer(reader: asyncio.StreamReader) -> int:
    """One answer's status (its body read by content-length)."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    await reader.readexactly(length)
    return int(head[9:12])


async def holder(host: str, port: int, halt: asyncio.Event, stats: dict) -> None:
    """A kept-alive connection asking /healthz every 1.5 s, reopened when closed."""
    while not halt.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            stats["connect_errors"] += 1
            await asyncio.sleep(0.1)
            continue
        stats["connections"] += 1
        try:
            while not halt.is_set():
                writer.write(HEALTHZ)
                await writer.drain()
                async with asyncio.timeout(5):
                    await read_answer(reader)
                await asyncio.sleep(1.5)
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError):
            pass
        finally:
            writer.close()


async def churner(host: str, port: int, hold: float, stats: dict) -> None:
    """A new connection that asks /healthz and holds on without reading."""
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError:
        stats["connect_errors"] += 1
        return
    stats["connections"] += 1
    try:
        writer.write(HEALTHZ)
        await writer.drain()
        await asyncio.sleep(hold)
    except OSError:
        pass
    finally:
        writer.close()


async def attack(args, host: str, port: int, share: int, ramped, stop, counts) -> None:
    stats = {"connections": 0, "connect_errors": 0}
    halt = asyncio.Event()
    tasks: set = set()
    if args.mode == "hold":
        for i in range(share):
            tasks.add(asyncio.create_task(holder(host, port, halt, stats)))
            if i % 200 == 199:
                await asyncio.sleep(0.02)
        ramped.set()
        while not stop.is_set():
            await asyncio.sleep(0.1)
    else:
        ramped.set()
        started = time.monotonic()
        made = 0
        while not stop.is_set():
            due = int((time.monotonic() - started) * share)
            for _ in range(due - made):
                task = asyncio.create_task(churner(host, port, args.hold, stats))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            made = max(made, due)
            await asyncio.sleep(0.005)
    halt.set()
    for t in list(tasks):
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    counts[0] += stats["connections"]
    counts[1] += stats["connect_errors"]


def attack_process(args, host, port, share, ramped, stop, counts) -> None:
    raise_nofile()
    asyncio.run(attack(args, host, port, share, ramped, stop, counts))


async def legitimate(host: str, port: int, address: str, seconds: float, period: float, seen: list) -> None:
    """One client from `address`: /healthz on a new connection every `period` s."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        tick = time.monotonic()
        outcome = "answered"
        status = 0
        try:
            async with asyncio.timeout(5):
                reader, writer = await asyncio.open_connection(host, port, local_addr=(address, 0))
                writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                await writer.drain()
                try:
                    status = await read_answer(reader)
                except asyncio.IncompleteReadError:
                    outcome = "closed_without_answer"
                except ConnectionResetError:
                    outcome = "closed_without_answer"
                writer.close()
        except TimeoutError:
            outcome = "timed_out"
        except OSError:
            outcome = "connect_error"
        took = time.monotonic() - tick
        if outcome == "answered" and status != 200:
            outcome = "refused" if status == 503 else f"http_{status}"
        seen.append((outcome, took))
        await asyncio.sleep(max(0.0, period - took))


async def legitimate_clients(host: str, port: int, pid: int, args) -> tuple[list, int]:
    seen: list = []
    peak_fds = 0

    async def watch_fds() -> None:
        nonlocal peak_fds
        while True:
            peak_fds = max(peak_fds, open_fds(pid))
            await asyncio.sleep(0.5)

    watcher = asyncio.create_task(watch_fds())
    await asyncio.gather(*(
        legitimate(host, port, f"127.0.0.{2 + i}", args.seconds, args.period, seen)
        for i in range(args.clients)
    ))
    watcher.cancel()
    return seen, peak_fds


def quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=["hold", "churn"], default="hold")
    ap.add_argument("--attackers", type=int, default=1024, help="hold: kept-alive connections")
    ap.add_argument("--rate", type=int, default=1000, help="churn: new connections a second")
    ap.add_argument("--hold", type=float, default=5.0, help="churn: seconds each connection is held")
    ap.add_argument("--procs", type=int, default=2, help="attacking processes")
    ap.add_argument("--max-connections", type=int, default=1024)
    ap.add_argument("--per-peer", type=int, help="http.max_connections_per_peer (default: Herald's)")
    ap.add_argument("--clients", type=int, default=8, help="legitimate clients, one address each")
    ap.add_argument("--period", type=float, default=0.25)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--p99", type=float, default=1.0, help="--assert: the bound on p99, seconds")
    ap.add_argument("--assert", dest="check", action="store_true")
    add_binary_options(ap)
    args = ap.parse_args()

    raise_nofile()
    env = {"LOREBASE__HERALD__HTTP__MAX_CONNECTIONS": str(args.max_connections)}
    if args.per_peer:
        env["LOREBASE__HERALD__HTTP__MAX_CONNECTIONS_PER_PEER"] = str(args.per_peer)
    with herald_over_sandbox(args.herald, args.sandbox, env) as (herald, host, port):
        total = args.attackers if args.mode == "hold" else args.rate
        ctx = multiprocessing.get_context("fork")
        stop = ctx.Event()
        counts = ctx.Array("q", 2)
        procs = []
        for i in range(args.procs):
            share = total // args.procs + (1 if i < total % args.procs else 0)
            ramped = ctx.Event()
            p = ctx.Process(target=attack_process, args=(args, host, port, share, ramped, stop, counts))
            p.start()
            procs.append((p, ramped))
        for _, ramped in procs:
            ramped.wait(60)
        time.sleep(1.0)
        cpu_before = cpu_seconds(herald.pid)
        load = os.getloadavg()[0]
        seen, peak_fds = asyncio.run(legitimate_clients(host, port, herald.pid, args))
        herald_cpu = cpu_seconds(herald.pid) - cpu_before
        stop.set()
        for p, _ in procs:
            p.join(30)
            if p.is_alive():
                p.kill()
        times = [t for outcome, t in seen if outcome == "answered"]
        outcomes: dict[str, int] = {}
        for outcome, _ in seen:
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        result = {
            "mode": args.mode,
            "attack": f"{args.attackers} kept-alive /healthz every 1.5 s" if args.mode == "hold"
            else f"{args.rate} new connections/s, each held {args.hold} s",
            "max_connections": args.max_connections,
            "max_connections_per_peer": args.per_peer or "default",
            "attack_connections": counts[0],
            "attack_connect_errors": counts[1],
            "legitimate": len(seen),
            "outcomes": outcomes,
            "p50_s": round(quantile(times, 0.50), 3),
            "p99_s": round(quantile(times, 0.99), 3),
            "max_s": round(max(times, default=0.0), 3),
            "herald_peak_open_fds": peak_fds,
            "herald_cpu_s": round(herald_cpu, 1),
            "load_average_1m": round(load, 1),
        }
        print(json.dumps(result))
        failed = []
        if result["p99_s"] > args.p99:
            failed.append(f"p99 {result['p99_s']} s > {args.p99} s")
        bad = {k: v for k, v in outcomes.items() if k != "answered"}
        if bad:
            failed.append(f"not answered 200: {bad}")
        if herald.poll() is not None:
            failed.append("Herald exited")
        if args.check and failed:
            print("FAILED: " + "; ".join(failed), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

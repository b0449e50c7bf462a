"""A bounded soak of one Herald under N clients plus the slow-client attack:
loopback only, stops by itself.

Starts the sandbox Keeper and a Herald (Streamable HTTP), then for --minutes:
N clients, each on its own kept-alive connection, call tools back to back (a
mix of reads, and one hostile call in ten: a 100 KB ref, arguments as an
array, a 300-issue write; each must come back as the error it is, within
output.max_chars); at the same time the slow-client attack of
benches/slow_clients.py holds --attackers connections that never finish a
request. Herald's RSS and open file descriptors are sampled every second.

Prints one JSON line: calls, unexpected errors (with the first few),
latency p50/p99/max, calls per second, the attack's size, Herald's RSS at
start, peak and end (MB), its open file descriptors at start, peak and end,
and a timeline: for each --window seconds, the calls, errors, p50/p99 and
Herald's RSS and fds at the window's end (so a leak or a slowdown over time
shows). Exits 1 with --assert on any unexpected error or
when the RSS grows more than --max-growth-mb from the end of the first window to
the end of the last (the attack's connections take memory the allocator keeps:
the start is no baseline for a leak).

    .venv/bin/python benches/soak.py --clients 64 --minutes 10 --attackers 2000 \\
        --herald target/release/lorebase-herald --sandbox target/release/lorebase-sandbox
    .venv/bin/python benches/soak.py --clients 8 --minutes 0.25 --attackers 100 --assert
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))
sys.path.insert(0, str(ROOT / "tests" / "replicas"))

from harness.procs import peak_rss_kb, reset_peak, rss_kb  # noqa: E402
from harness.procs import stop as stop_process  # noqa: E402
from replicas import ready_line, scrubbed_env  # noqa: E402
from slow_clients import attack_process, http_herald_env, open_fds  # noqa: E402

MAX_CHARS = 12_000


def call(i: int, name: str, arguments) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    ).encode()


# (name, body, what is expected: "ok", "tool-error" or "invalid-params")
READS = [
    ("get", call(1, "lorebase_get", {"ref": "Supplier/S-1001"}), "ok"),
    ("query", call(2, "lorebase_query", {"query": {"kind": "Supplier", "where": {"attr": "risk_score", "op": "gte", "value": 50}}}), "ok"),
    ("search", call(3, "lorebase_search", {"query": "Kavsen alloys", "limit": 5}), "ok"),
    ("history", call(4, "lorebase_history", {"ref": "Supplier/S-1001", "values": True}), "ok"),
    ("neighborhood", call(5, "lorebase_neighborhood", {"seeds": ["Supplier/S-1001"], "depth": 2, "format": "json"}), "ok"),
    ("schema", call(6, "lorebase_schema", {"kinds": ["Supplier"]}), "ok"),
]
HOSTILE = [
    ("huge_ref", call(7, "lorebase_get", {"ref": "A" * 100_000}), "tool-error"),
    ("array_arguments", call(8, "lorebase_get", ["Supplier/S-1001"]), "invalid-params"),
    ("300_issues", call(9, "lorebase_execute", {"operation": "update_supplier", "parameters": {f"p{i}": 1 for i in range(300)}}), "tool-error"),
]


def request(host: str, body: bytes) -> bytes:
    return (
        f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def verdict(status: int, body: bytes, expected: str) -> str | None:
    """None when the answer is what `expected` says; else why not."""
    if status != 200:
        return f"HTTP {status}"
    try:
        answer = json.loads(body)
    except ValueError:
        return "not JSON"
    if expected == "invalid-params":
        return None if answer.get("error", {}).get("code") == -32602 else f"not -32602: {str(answer)[:80]}"
    result = answer.get("result")
    if not result:
        return f"no result: {str(answer)[:80]}"
    text = result["content"][0]["text"]
    if len(text) > MAX_CHARS:
        return f"{len(text)} chars"
    if expected == "ok":
        return None if not result.get("isError") else f"tool error: {text[:80]}"
    lines = text.split("\n")
    if result.get("isError") and lines[0].startswith("[") and lines[-1].startswith("next: "):
        return None
    return f"not a tool error: {text[:80]}"


async def client(n: int, host: str, port: int, end: float, out: dict) -> None:
    reader = writer = None
    i = n
    while time.monotonic() < end:
        i += 1
        name, body, expected = HOSTILE[i % len(HOSTILE)] if i % 10 == 0 else READS[i % len(READS)]
        started = time.monotonic()
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection(host, port)
            async with asyncio.timeout(30):
                writer.write(request(host, body))
                await writer.drain()
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")),
                    0,
                )
                answer = await reader.readexactly(length)
            why = verdict(int(head[9:12]), answer, expected)
            if b"connection: close" in head.lower():
                writer.close()
                reader = writer = None
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError) as e:
            why = f"{type(e).__name__}: {e}"[:100]
            if writer is not None:
                writer.close()
            reader = writer = None
        out["latencies"].append((started - out["origin"], time.monotonic() - started))
        out["calls"] += 1
        if why:
            out["errors"] += 1
            out["error_times"].append(started - out["origin"])
            if len(out["first_errors"]) < 5:
                out["first_errors"].append(f"{name}: {why}")
    if writer is not None:
        writer.close()


def clients_process(n: int, host: str, port: int, seconds: float, results) -> None:
    out = {"calls": 0, "errors": 0, "first_errors": [], "latencies": [], "error_times": [], "origin": time.monotonic()}

    async def run() -> None:
        end = out["origin"] + seconds
        await asyncio.gather(*(client(k, host, port, end, out) for k in range(n)))

    asyncio.run(run())
    results.put(out)


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, max(0, int(len(sorted_values) * q) - 1))]


def timeline(out: dict, samples: list[tuple[float, int, int]], window: float, seconds: float) -> list[dict]:
    """Per window: calls, errors, p50/p99 (ms) of the calls started in it, and
    Herald's RSS (MB) and open fds at its last sample."""
    rows = []
    start = 0.0
    while start < seconds - 1e-9:
        end = min(start + window, seconds)
        took = sorted(t for at, t in out["latencies"] if start <= at < end)
        sample = next((s for s in reversed(samples) if s[0] < end), samples[0] if samples else (0.0, 0, 0))
        rows.append(
            {
                "t_s": round(end),
                "calls": len(took),
                "errors": sum(1 for at in out["error_times"] if start <= at < end),
                "p50_ms": round(percentile(took, 0.5) * 1000, 2),
                "p99_ms": round(percentile(took, 0.99) * 1000, 2),
                "rss_mb": round(sample[1] / 1024, 1),
                "fds": sample[2],
            }
        )
        start = end
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--attackers", type=int, default=2000, help="slow connections held meanwhile (0: none)")
    ap.add_argument("--window", type=float, default=60.0, help="seconds per timeline row")
    ap.add_argument("--max-growth-mb", type=float, default=50.0, help="--assert: most RSS growth from the first window's end to the last's")
    ap.add_argument("--assert", dest="check", action="store_true")
    ap.add_argument("--herald", default=os.environ.get("HERALD_BIN", str(ROOT / "target/debug/lorebase-herald")))
    ap.add_argument("--sandbox", default=os.environ.get("SANDBOX_BIN", str(ROOT / "target/debug/lorebase-sandbox")))
    args = ap.parse_args()
    seconds = args.minutes * 60

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    keeper = subprocess.Popen(
        [args.sandbox, "--port", "0", "--auth", "none"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=scrubbed_env({})
    )
    herald = None
    try:
        keeper_url = ready_line(keeper, "LOREBASE_SANDBOX_READY ")["url"]
        env = http_herald_env(keeper_url)
        herald = subprocess.Popen([args.herald], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=scrubbed_env(env))
        url = ready_line(herald, "LOREBASE_HERALD_READY ")["url"]
        host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
        port = int(port)

        ctx = multiprocessing.get_context("fork")
        # Warm-up: a few seconds of the same load, then the baseline.
        warm = ctx.Queue()
        ctx.Process(target=clients_process, args=(min(args.clients, 8), host, port, 3.0, warm)).start()
        warm.get(timeout=120)
        time.sleep(0.5)
        rss_start = rss_kb(herald.pid)
        fds_start = open_fds(herald.pid)
        reset_peak(herald.pid)

        ramped, stop = ctx.Event(), ctx.Event()
        counts = ctx.Array("q", 2)
        attack_args = argparse.Namespace(attackers=args.attackers, interval=10.0, reconnect=1.0)
        attack = None
        if args.attackers:
            attack = ctx.Process(target=attack_process, args=(attack_args, host, port, ramped, stop, counts))
            attack.start()
            ramped.wait(timeout=600)
        results = ctx.Queue()
        load = ctx.Process(target=clients_process, args=(args.clients, host, port, seconds, results))
        started = time.monotonic()
        load.start()
        peak_sampled = rss_start
        samples: list[tuple[float, int, int]] = []  # (seconds since the load started, RSS KiB, fds)
        out = None
        while out is None:
            rss_now, fds_now = rss_kb(herald.pid), open_fds(herald.pid)
            samples.append((time.monotonic() - started, rss_now, fds_now))
            peak_sampled = max(peak_sampled, rss_now)
            try:
                out = results.get(timeout=1.0)
            except Exception:  # queue.Empty: keep sampling
                if time.monotonic() - started > seconds + 120:
                    raise RuntimeError("the clients did not finish") from None
        elapsed = time.monotonic() - started
        load.join(timeout=30)
        stop.set()
        if attack:
            attack.join(timeout=60)
        rss_peak = max(peak_sampled, peak_rss_kb(herald.pid))
        time.sleep(3)  # clients and attackers gone; their connections closed
        rss_end = rss_kb(herald.pid)
        fds_end = open_fds(herald.pid)
        latencies = sorted(t for _, t in out["latencies"]) or [0.0]
        result = {
            "clients": args.clients,
            "minutes": args.minutes,
            "calls": out["calls"],
            "calls_per_s": round(out["calls"] / elapsed, 1),
            "unexpected_errors": out["errors"],
            "first_errors": out["first_errors"],
            "latency_ms": {
                "p50": round(statistics.median(latencies) * 1000, 2),
                "p99": round(percentile(latencies, 0.99) * 1000, 2),
                "max": round(latencies[-1] * 1000, 2),
            },
            "attackers": args.attackers,
            "attacker_connections_opened": counts[0],
            "rss_mb": {"start": round(rss_start / 1024, 1), "peak": round(rss_peak / 1024, 1), "end": round(rss_end / 1024, 1)},
            "fds": {"start": fds_start, "peak": max((s[2] for s in samples), default=fds_start), "end": fds_end},
            "herald_alive": herald.poll() is None,
            "timeline": timeline(out, samples, args.window, seconds),
        }
        print(json.dumps(result))
        if args.check:
            # A leak shows as growth while the load holds steady: from the end
            # of the first window (the attack ramped up; the memory its
            # connections took stays with the allocator) to the end.
            rows = result["timeline"]
            growth = rows[-1]["rss_mb"] - rows[0]["rss_mb"] if len(rows) > 1 else (rss_end - rss_start) / 1024
            if out["errors"] or not result["herald_alive"] or growth > args.max_growth_mb or out["calls"] == 0:
                print(f"FAILED: {out['errors']} unexpected errors, RSS growth {growth:.1f} MB", file=sys.stderr)
                return 1
        return 0
    finally:
        # Herald first (its drain is bounded), then the Keeper it talks to.
        for proc in (herald, keeper):
            if proc:
                stop_process(proc, grace=10.0)


if __name__ == "__main__":
    sys.exit(main())

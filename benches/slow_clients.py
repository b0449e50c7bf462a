"""A bounded slow-client attack on one Herald.

Starts the sandbox Keeper and a Herald (Streamable HTTP, loopback), then opens
N attacker connections that each start a request and send one more header line
every --interval seconds, never finishing it; an attacker whose connection is
closed opens a new one at once, so the pressure stays at N. Meanwhile a normal
client, on a new connection each time, asks `GET /healthz` and calls
`lorebase_get` once a second, each with a 1 s timeout. Then the attackers leave.

Prints one JSON line: the attack's size, how many connections Herald held at
most (open file descriptors), the normal client's worst times and whether every
probe was answered within 1 s, and Herald's RSS at start, peak and end (MB).
Exits 1 with --assert when a probe failed or took 1 s or more.

    .venv/bin/python benches/slow_clients.py --attackers 20000 --seconds 30
    .venv/bin/python benches/slow_clients.py --attackers 300 --max-connections 64 --seconds 5 --assert

Loopback only; stops by itself. Attackers above the open-file limit need it
raised (this script raises its own soft limit to the hard one). --herald-ulimit-n N
starts Herald alone as under `ulimit -n N` (soft and hard limit N; --herald-soft-ulimit-n:
the soft one only), the attack keeping this script's limit; the JSON line then gives
Herald's limits once it started (`herald_nofile`: soft, hard).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))
sys.path.insert(0, str(ROOT / "tests" / "replicas"))

from harness.procs import add_binary_options, peak_rss_kb, reset_peak, rss_kb  # noqa: E402
from replicas import ready_line, scrubbed_env  # noqa: E402

CALL = json.dumps(
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001"}}}
).encode()


FAILURES: list[str] = []


def http_herald_env(keeper_url: str) -> dict[str, str]:
    """The environment of a Herald on Streamable HTTP (any free loopback
    port, anonymous callers) over the sandbox Keeper at ``keeper_url``."""
    return {
        "LOREBASE_URL": keeper_url,
        "LOREBASE_DOMAIN": "supply",
        "LOREBASE__HERALD__TRANSPORT": "streamable_http",
        "LOREBASE__HERALD__HTTP__PORT": "0",
        "LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true",
    }


@contextlib.contextmanager
def herald_over_sandbox(herald_bin: str, sandbox_bin: str, env: dict[str, str], stderr_path: str | None = None, preexec=None):
    """The sandbox Keeper and a Herald over it (Streamable HTTP, loopback,
    `env` added); yields (the Herald process, its host, its port) and kills
    both after. HERALD_LOG (a file) keeps Herald's debug log."""
    keeper = subprocess.Popen([sandbox_bin, "--port", "0", "--auth", "none"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=scrubbed_env({}))
    herald = None
    try:
        keeper_url = ready_line(keeper, "LOREBASE_SANDBOX_READY ")["url"]
        env = {**http_herald_env(keeper_url), **env}
        if os.environ.get("HERALD_LOG"):
            env["RUST_LOG"] = os.environ.get("HERALD_RUST_LOG", "debug")
        log = subprocess.DEVNULL
        if os.environ.get("HERALD_LOG") or stderr_path:
            log = open(os.environ.get("HERALD_LOG") or stderr_path, "wb")
        # Herald keeps the open-file limit it inherits unless `preexec` sets one.
        herald = subprocess.Popen([herald_bin], stdout=subprocess.PIPE, stderr=log, env=scrubbed_env(env), preexec_fn=preexec)
        url = ready_line(herald, "LOREBASE_HERALD_READY ")["url"]
        host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
        yield herald, host, int(port)
    finally:
        for proc in (herald, keeper):
            if proc and proc.poll() is None:
                proc.kill()
                proc.wait()


def nofile_of(pid: int) -> list[int]:
    """A process's open-file limits (soft, hard), from /proc."""
    with open(f"/proc/{pid}/limits") as limits:
        for line in limits:
            if line.startswith("Max open files"):
                soft, hard = line.split()[3:5]
                return [int(soft), int(hard)]
    return []


def limited(soft: int | None, hard: int | None):
    """A preexec_fn giving the child these open-file limits (None: as is)."""
    if soft is None and hard is None:
        return None

    def apply() -> None:
        cur_soft, cur_hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        new_hard = cur_hard if hard is None else hard
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft or cur_soft, new_hard), new_hard))

    return apply


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


async def http_once(host: str, port: int, request: bytes, timeout: float) -> tuple[int, float]:
    """One request on a new connection; (status, seconds). Status 0: failed."""
    started = time.monotonic()
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(request)
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = await reader.readexactly(length)
            writer.close()
            status = int(head[9:12])
            if status == 200 and b"\"isError\":true" in body:
                status = 0
            if status != 200:
                # An answer, but not the one asked for: which, for the report.
                FAILURES.append(f"{request[:4].decode()} at {time.monotonic():.2f}: HTTP {int(head[9:12])}: {body[:160]!r}"[:240])
            return status, time.monotonic() - started
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError) as e:
        FAILURES.append(f"{request[:4].decode()} at {time.monotonic():.2f}: {type(e).__name__}: {e}"[:120])
        return 0, time.monotonic() - started


def raise_nofile() -> None:
    """This process's soft open-file limit raised to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def hold_then_cancel(tasks: list, stop, halt: asyncio.Event | None = None) -> None:
    """Waits until `stop` (a process Event) is set, then sets `halt` and
    cancels `tasks`."""
    while not stop.is_set():
        await asyncio.sleep(0.1)
    if halt is not None:
        halt.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def attacker(host: str, port: int, interval: float, reconnect: float, stop: asyncio.Event, stats: dict) -> None:
    first = True
    while not stop.is_set():
        if not first:
            # Like slowloris, a dropped connection is opened again on the next round.
            await asyncio.sleep(reconnect)
        first = False
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            stats["connect_errors"] += 1
            await asyncio.sleep(0.1)
            continue
        stats["connections"] += 1
        try:
            writer.write(f"POST /mcp HTTP/1.1\r\nHost: {host}\r\n".encode())
            i = 0
            while not stop.is_set():
                await writer.drain()
                # Closed by the server: read gives EOF; otherwise wait the interval.
                try:
                    async with asyncio.timeout(interval):
                        if await reader.read(1024) == b"":
                            break
                except TimeoutError:
                    pass
                writer.write(f"X-Slow-{i}: {'a' * 16}\r\n".encode())
                i += 1
        except OSError:
            pass
        finally:
            writer.close()


async def attackers(args, host: str, port: int, ramped, stop, counts) -> None:
    """The attack, in its own process (so it cannot slow the probes down)."""
    stats = {"connections": 0, "connect_errors": 0}
    halt = asyncio.Event()
    tasks = []
    for i in range(args.attackers):
        tasks.append(asyncio.create_task(attacker(host, port, args.interval, args.reconnect, halt, stats)))
        if i % 500 == 499:
            await asyncio.sleep(0.05)
    ramped.set()
    await hold_then_cancel(tasks, stop, halt)
    counts[0], counts[1] = stats["connections"], stats["connect_errors"]


def attack_process(args, host, port, ramped, stop, counts) -> None:
    raise_nofile()
    asyncio.run(attackers(args, host, port, ramped, stop, counts))


async def probe(host: str, port: int, pid: int, seconds: float, period: float = 1.0) -> tuple[list, int]:
    """A normal client, every `period` seconds for `seconds`: /healthz and a
    tool call, each on a new connection with a 1 s timeout. (The probes, and
    Herald's peak open descriptors.)"""
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
        await asyncio.sleep(max(0.0, period - (time.monotonic() - tick)))
    return probes, peak_fds


def probe_summary(probes: list) -> dict:
    """How the normal client fared: answered within 1 s, and its worst times."""
    ok = [p for p in probes if p[1] == 200 and p[2] < 1.0]
    return {
        "probes": len(probes),
        "probes_answered_within_1s": len(ok),
        "worst_healthz_s": round(max((p[2] for p in probes if p[0] == "healthz"), default=0), 3),
        "worst_tool_call_s": round(max((p[2] for p in probes if p[0] == "tool_call"), default=0), 3),
        "all_answered_within_1s": len(ok) == len(probes) and len(probes) > 0,
    }


def report(result: dict, check: bool) -> int:
    """Prints the JSON line; 1 when `check` and a probe was not answered in time."""
    print(json.dumps(result))
    if check and not result["all_answered_within_1s"]:
        print("FAILED: a normal client was not answered within 1 s", file=sys.stderr)
        return 1
    return 0


def attack(args, host: str, port: int, pid: int) -> dict:
    ctx = multiprocessing.get_context("fork")
    ramped, stop = ctx.Event(), ctx.Event()
    counts = ctx.Array("q", 2)
    worker = ctx.Process(target=attack_process, args=(args, host, port, ramped, stop, counts))
    ramp_started = time.monotonic()
    worker.start()
    ramped.wait(timeout=600)
    ramp_s = time.monotonic() - ramp_started
    time.sleep(1.0)  # the attack settles
    probes, peak_fds = asyncio.run(probe(host, port, pid, args.seconds))
    stop.set()
    worker.join(timeout=60)
    return {
        "ramp_s": round(ramp_s, 1),
        "attacker_connections_opened": counts[0],
        "attacker_connect_errors": counts[1],
        "herald_peak_open_fds": peak_fds,
        **probe_summary(probes),
        "probe_failures": FAILURES[:3],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attackers", type=int, default=20000)
    ap.add_argument("--interval", type=float, default=10.0, help="seconds between an attacker's header lines")
    ap.add_argument("--seconds", type=float, default=30.0, help="how long the attack holds after the ramp")
    ap.add_argument("--reconnect", type=float, default=1.0, help="seconds before an attacker whose connection was closed opens a new one (0: at once, a connection flood)")
    ap.add_argument("--max-connections", type=int, help="http.max_connections (default: Herald's)")
    ap.add_argument("--herald-ulimit-n", type=int, help="Herald's soft and hard open-file limit (as `ulimit -n N`)")
    ap.add_argument("--herald-soft-ulimit-n", type=int, help="Herald's soft open-file limit only (as `ulimit -Sn N`)")
    ap.add_argument("--herald-stderr", help="a file for Herald's stderr (its notices)")
    ap.add_argument("--assert", dest="check", action="store_true")
    add_binary_options(ap)
    args = ap.parse_args()
    raise_nofile()

    env: dict[str, str] = {}
    if args.max_connections:
        env["LOREBASE__HERALD__HTTP__MAX_CONNECTIONS"] = str(args.max_connections)
    soft = args.herald_soft_ulimit_n or args.herald_ulimit_n
    with herald_over_sandbox(args.herald, args.sandbox, env, args.herald_stderr, limited(soft, args.herald_ulimit_n)) as (herald, host, port):
        # Warm up (the Keeper pool, the allocator), then the baseline.
        for _ in range(20):
            asyncio.run(http_once(host, int(port), b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 5))
        time.sleep(0.5)
        rss_start = rss_kb(herald.pid)
        reset_peak(herald.pid)
        result = attack(args, host, int(port), herald.pid)
        rss_peak = peak_rss_kb(herald.pid)
        time.sleep(3)  # the attackers are gone; Herald closed their connections
        rss_end = rss_kb(herald.pid)
        result = {
            "attackers": args.attackers,
            "interval_s": args.interval,
            "seconds": args.seconds,
            "max_connections": args.max_connections or "default",
            "herald_nofile": nofile_of(herald.pid),
            **result,
            "herald_open_fds_after": open_fds(herald.pid),
            "rss_mb": {"start": round(rss_start / 1024, 1), "peak": round(rss_peak / 1024, 1), "end": round(rss_end / 1024, 1)},
        }
        return report(result, args.check)


if __name__ == "__main__":
    sys.exit(main())

"""One attacker cycling idle connections past the limit, bounded.

Starts the sandbox Keeper and a Herald (Streamable HTTP, loopback, metrics on
a port of their own), then --attackers connections, each asking `GET /healthz`
once and then holding its connection idle; a connection Herald closes is
opened again at once, so the attacker keeps cycling past
`http.max_connections`. Meanwhile a normal client, connected before the attack,
keeps its ONE connection alive and calls `lorebase_get` --calls times,
--pause seconds apart (a call fails when its connection was closed under it,
or it was refused, or it takes 1 s or more; a failed call's next one opens a
new connection). A scraper
reads `herald_http_connections_open` every 100 ms.

Prints one JSON line: the failed calls, the most connections Herald counted
open, the limit. With --assert, exits 1 when more than --max-failures calls
failed or the count passed the limit.

    .venv/bin/python benches/idle_cycler.py --attackers 1100 --calls 34 --assert
    .venv/bin/python benches/idle_cycler.py --attackers 2000 --calls 34 --assert

Loopback only; stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import re
import socket
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))

from harness.procs import add_binary_options  # noqa: E402
from slow_clients import CALL, herald_over_sandbox, hold_then_cancel, raise_nofile  # noqa: E402

HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


async def cycling(host: str, port: int, stop: asyncio.Event, stats: dict) -> None:
    """One idle connection, opened again whenever it is closed."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            stats["connect_errors"] += 1
            await asyncio.sleep(0.05)
            continue
        stats["opened"] += 1
        try:
            writer.write(HEALTHZ)
            await writer.drain()
            while not stop.is_set() and await reader.read(4096):
                pass  # the answer, then EOF when Herald closes it
        except OSError:
            pass
        finally:
            writer.close()


async def attack(host: str, port: int, attackers: int, ramped, halt, counts) -> None:
    stats = {"opened": 0, "connect_errors": 0}
    stop = asyncio.Event()
    tasks = []
    for i in range(attackers):
        tasks.append(asyncio.create_task(cycling(host, port, stop, stats)))
        if i % 200 == 199:
            await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)
    ramped.set()
    await hold_then_cancel(tasks, halt, stop)
    counts[0], counts[1] = stats["opened"], stats["connect_errors"]


def attack_process(host, port, attackers, ramped, halt, counts) -> None:
    raise_nofile()
    asyncio.run(attack(host, port, attackers, ramped, halt, counts))


def read_answer(s: socket.socket) -> bytes:
    """One HTTP answer with a Content-Length; raises on EOF."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        body += chunk
    return head + b"\r\n\r\n" + body


def call_request(host: str) -> bytes:
    return (
        f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {len(CALL)}\r\n\r\n"
    ).encode() + CALL


def connected_client(host: str, port: int) -> socket.socket:
    """The normal client's connection, opened (and used once) before the attack."""
    s = socket.create_connection((host, port), timeout=5)
    s.sendall(call_request(host))
    assert read_answer(s).startswith(b"HTTP/1.1 200")
    return s


def normal_client(s: socket.socket | None, host: str, port: int, calls: int, pause: float) -> dict:
    post = call_request(host)
    failures: list[str] = []
    for i in range(calls):
        started = time.monotonic()
        try:
            if s is None:
                s = socket.create_connection((host, port), timeout=1.0)
            s.settimeout(1.0)
            s.sendall(post)
            answer = read_answer(s)
            if not answer.startswith(b"HTTP/1.1 200") or b'"isError":true' in answer:
                failures.append(f"call {i}: {answer[:40]!r}")
                s.close()
                s = None  # a refusal closes the connection
            elif time.monotonic() - started >= 1.0:
                failures.append(f"call {i}: took {time.monotonic() - started:.2f} s")
        except (OSError, ConnectionError, AttributeError) as e:
            failures.append(f"call {i}: {type(e).__name__}: {e}")
            if s is not None:
                s.close()
            s = None  # the next call opens a new connection
        time.sleep(pause)
    if s is not None:
        s.close()
    return {"failures": failures}


def scraper(url: str, stop: threading.Event, seen: list[int]) -> None:
    host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
    request = f"GET /metrics HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
    while not stop.is_set():
        try:
            with socket.create_connection((host, int(port)), timeout=2) as s:
                s.sendall(request)
                text = b""
                while chunk := s.recv(65536):
                    text += chunk
            found = re.search(rb"\nherald_http_connections_open (\d+)", text)
            if found:
                seen.append(int(found.group(1)))
        except OSError:
            pass
        time.sleep(0.1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attackers", type=int, default=1100)
    ap.add_argument("--max-connections", type=int, default=1024)
    ap.add_argument("--calls", type=int, default=34)
    ap.add_argument("--pause", type=float, default=0.5, help="seconds between the normal client's calls")
    ap.add_argument("--max-failures", type=int, default=1, help="failed calls --assert allows")
    ap.add_argument("--assert", dest="check", action="store_true")
    add_binary_options(ap)
    args = ap.parse_args()
    raise_nofile()

    stderr = Path(os.environ.get("TMPDIR", "/tmp")) / f"idle_cycler.{os.getpid()}.stderr"
    env = {
        "LOREBASE__HERALD__HTTP__MAX_CONNECTIONS": str(args.max_connections),
        "LOREBASE__HERALD__METRICS__PORT": "0",
    }
    try:
        with herald_over_sandbox(args.herald, args.sandbox, env, str(stderr)) as (herald, host, port):
            deadline = time.monotonic() + 20
            metrics = None
            while metrics is None and time.monotonic() < deadline:
                found = re.search(r"metrics on (http://[^\s\"]+/metrics)", stderr.read_text(errors="replace"))
                metrics = found and found.group(1)
                time.sleep(0.05)
            client_socket = connected_client(host, port)
            ctx = multiprocessing.get_context("fork")
            ramped, halt = ctx.Event(), ctx.Event()
            counts = ctx.Array("q", 2)
            worker = ctx.Process(target=attack_process, args=(host, port, args.attackers, ramped, halt, counts))
            worker.start()
            ramped.wait(timeout=120)
            seen: list[int] = []
            stop = threading.Event()
            watcher = threading.Thread(target=scraper, args=(metrics, stop, seen), daemon=True)
            watcher.start()
            client = normal_client(client_socket, host, port, args.calls, args.pause)
            stop.set()
            halt.set()
            worker.join(timeout=60)
            watcher.join(timeout=5)
            result = {
                "attackers": args.attackers,
                "max_connections": args.max_connections,
                "attacker_connections_opened": counts[0],
                "attacker_connect_errors": counts[1],
                "calls": args.calls,
                "failed_calls": len(client["failures"]),
                "most_connections_open": max(seen, default=None),
                "scrapes": len(seen),
                "first_failures": client["failures"][:3],
            }
    finally:
        stderr.unlink(missing_ok=True)
    print(json.dumps(result))
    if args.check:
        if result["failed_calls"] > args.max_failures:
            print(f"FAILED: {result['failed_calls']} of {args.calls} calls failed", file=sys.stderr)
            return 1
        if not seen or max(seen) > args.max_connections:
            print(f"FAILED: {max(seen, default=None)} connections open, limit {args.max_connections}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

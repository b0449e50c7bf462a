"""Herald replicas behind nginx, under failure.

Starts the sandbox Keeper, N Herald replicas (Streamable HTTP, loopback ports),
and nginx with deploy/nginx/herald.conf (the operator's example, ports filled
in); then 64 asyncio clients (httpx2, plain JSON-RPC `tools/call` posts with
the MCP routing headers a 2026-07-28 client sends) call read tools through nginx
for a bounded time. With --chaos, one replica is killed with SIGKILL (and
started again, as a supervisor would), and another is restarted with SIGTERM
(a rolling restart: it drains, exits, and comes back on its port).

Prints one JSON line: calls, calls/s, p50/p99, failed calls in all and during
the kill and the restart, the SIGTERM'd replica's exit code and drain time.
Exits 1 when --assert-zero-failures and any read failed, or the SIGTERM'd
replica did not exit 0.

    .venv/bin/python tests/replicas/replicas.py --replicas 3 --seconds 20 --chaos --assert-zero-failures

Everything listens on 127.0.0.1 and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parents[2]
NGINX_CONF = ROOT / "deploy" / "nginx" / "herald.conf"

# Read calls (tests/e2e-python/tool_calls.json's, on the sample Domain `supply`).
READS = [
    ("lorebase_get", {"ref": "Supplier/S-1001"}),
    ("lorebase_query", {"query": {"kind": "Supplier", "where": {"attr": "supplier_code", "op": "eq", "value": "S-1003"}}}),
    ("lorebase_search", {"query": "bolt"}),
    ("lorebase_neighborhood", {"seeds": ["Supplier/S-1001"], "depth": 1}),
    ("lorebase_schema", {}),
    ("lorebase_explain", {"ref": "Supplier/S-1001"}),
    ("lorebase_branches", {}),
]


def scrubbed_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(("LOREBASE", "RUST_LOG", "HTTP_PROXY", "HTTPS_PROXY"))}
    env.update(extra)
    return env


def free_ports(n: int) -> list[int]:
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def ready_line(proc: subprocess.Popen, prefix: str, timeout: float = 60) -> dict:
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for raw in iter(proc.stdout.readline, b""):
            lines.put(raw.decode("utf-8", "replace"))
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    while True:
        line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        if line is None:
            raise RuntimeError(f"process exited before {prefix}")
        if line.startswith(prefix):
            return json.loads(line[len(prefix):])


@dataclass
class Replica:
    binary: str
    port: int
    keeper: str
    log: Path
    proc: subprocess.Popen | None = None

    def start(self) -> None:
        env = scrubbed_env({
            "LOREBASE_URL": self.keeper,
            "LOREBASE_DOMAIN": "supply",
            "LOREBASE__HERALD__TRANSPORT": "streamable_http",
            "LOREBASE__HERALD__HTTP__PORT": str(self.port),
            "LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true",
        })
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([self.binary], stdout=subprocess.PIPE, stderr=log, env=env)
        ready_line(self.proc, "LOREBASE_HERALD_READY ")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def start_nginx(work: Path, listen: int, replicas: list[Replica]) -> subprocess.Popen:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    servers = "\n    ".join(f"server 127.0.0.1:{r.port} max_fails=1 fail_timeout=2s;" for r in replicas)
    site = NGINX_CONF.read_text().replace("${HERALD_LISTEN}", f"127.0.0.1:{listen}").replace("${HERALD_UPSTREAM_SERVERS}", servers)
    (work / "herald.conf").write_text(site)
    for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (work / d).mkdir(exist_ok=True)
    user = "user root;\n" if os.geteuid() == 0 else ""
    (work / "nginx.conf").write_text(
        f"""{user}worker_processes 1;
daemon off;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    include {work}/herald.conf;
}}
"""
    )
    check = subprocess.run([nginx, "-t", "-q", "-c", f"{work}/nginx.conf", "-p", str(work)], capture_output=True, text=True)
    if check.returncode != 0:
        raise RuntimeError(f"nginx -t: {check.stderr}")
    proc = subprocess.Popen([nginx, "-c", f"{work}/nginx.conf", "-p", str(work)], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", listen), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nginx did not start listening")


@dataclass
class Stats:
    started: float
    latencies: list[float] = field(default_factory=list)
    failures: list[tuple[float, str]] = field(default_factory=list)


def call_body(i: int, tool: str, arguments: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}).encode()


async def client_loop(client: httpx2.AsyncClient, url: str, stop_at: float, stats: Stats, n: int, routing: bool) -> None:
    i = 0
    while time.monotonic() < stop_at:
        tool, arguments = READS[(n + i) % len(READS)]
        i += 1
        headers = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2025-11-25",
        }
        if routing:
            headers.update({"mcp-method": "tools/call", "mcp-name": tool})
        t0 = time.monotonic()
        try:
            r = await client.post(url, content=call_body(i, tool, arguments), headers=headers)
            if r.status_code != 200:
                raise RuntimeError(f"HTTP {r.status_code}: {r.text[:200]}")
            answer = r.json()
            if "error" in answer:
                raise RuntimeError(f"JSON-RPC error {answer['error']}")
            if answer["result"].get("isError"):
                raise RuntimeError(f"tool error {answer['result']['content'][0]['text'][:200]}")
            stats.latencies.append(time.monotonic() - t0)
        except Exception as e:  # every way a call can fail counts
            stats.failures.append((time.monotonic() - stats.started, f"{tool}: {type(e).__name__}: {e}"[:300]))


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


async def hold_keeper_calls(keeper: str, count: int, delay_ms: int) -> None:
    """The next `count` Keeper calls wait `delay_ms`: calls are in flight on
    every replica when the signal comes."""
    async with httpx2.AsyncClient(timeout=10) as c:
        r = await c.post(f"{keeper}/_sandbox/faults", json={"count": count, "delay_ms": delay_ms})
        r.raise_for_status()


async def chaos(replicas: list[Replica], seconds: float, started: float, windows: dict) -> None:
    """SIGKILL replica 0 at 30 % (back 1 s later), SIGTERM replica 1 at 60 %;
    each with calls held in flight by a slow Keeper."""
    keeper = replicas[0].keeper
    await asyncio.sleep(max(0.0, started + seconds * 0.3 - time.monotonic()))
    await hold_keeper_calls(keeper, 48, 1500)
    await asyncio.sleep(0.5)
    victim = replicas[0]
    t = time.monotonic() - started
    victim.proc.send_signal(signal.SIGKILL)
    await asyncio.to_thread(victim.proc.wait)
    await asyncio.sleep(1.0)
    await asyncio.to_thread(victim.start)
    windows["kill"] = (t, time.monotonic() - started + 1.0)

    await asyncio.sleep(max(0.0, started + seconds * 0.6 - time.monotonic()))
    await hold_keeper_calls(keeper, 48, 1500)
    await asyncio.sleep(0.5)
    rolled = replicas[1]
    t = time.monotonic() - started
    rolled.proc.send_signal(signal.SIGTERM)
    code = await asyncio.to_thread(rolled.proc.wait)
    windows["restart_exit_code"] = code
    windows["restart_drain_s"] = round(time.monotonic() - started - t, 2)
    await asyncio.to_thread(rolled.start)
    windows["restart"] = (t, time.monotonic() - started + 1.0)


async def load(url: str, clients: int, seconds: float, replicas: list[Replica], with_chaos: bool, routing: bool) -> dict:
    limits = httpx2.Limits(max_connections=clients, max_keepalive_connections=clients)
    windows: dict = {}
    async with httpx2.AsyncClient(limits=limits, timeout=30) as client:
        # Warm up the pools (and check the path) before timing.
        r = await client.post(url, content=call_body(0, *READS[0]), headers={"content-type": "application/json", "accept": "application/json, text/event-stream"})
        r.raise_for_status()
        stats = Stats(started=time.monotonic())
        stop_at = stats.started + seconds
        tasks = [asyncio.create_task(client_loop(client, url, stop_at, stats, n, routing)) for n in range(clients)]
        if with_chaos:
            tasks.append(asyncio.create_task(chaos(replicas, seconds, stats.started, windows)))
        await asyncio.gather(*tasks)
        elapsed = time.monotonic() - stats.started
    lat = sorted(stats.latencies)

    def failed_in(name: str) -> int:
        if name not in windows:
            return 0
        a, b = windows[name]
        return sum(1 for t, _ in stats.failures if a <= t <= b)

    return {
        "replicas": len(replicas),
        "clients": clients,
        "seconds": round(elapsed, 1),
        "calls": len(lat) + len(stats.failures),
        "ok": len(lat),
        "failed": len(stats.failures),
        "calls_per_s": round(len(lat) / elapsed, 1),
        "p50_ms": round(percentile(lat, 0.50) * 1000, 1),
        "p99_ms": round(percentile(lat, 0.99) * 1000, 1),
        "failed_during_kill": failed_in("kill"),
        "failed_during_restart": failed_in("restart"),
        "restart_exit_code": windows.get("restart_exit_code"),
        "restart_drain_s": windows.get("restart_drain_s"),
        "failures": [f for _, f in stats.failures[:5]],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--chaos", action="store_true", help="SIGKILL one replica and SIGTERM-restart another")
    ap.add_argument("--assert-zero-failures", action="store_true")
    ap.add_argument("--no-routing-headers", action="store_true", help="send no Mcp-Method/Mcp-Name (a client before 2026-07-28)")
    ap.add_argument("--herald", default=os.environ.get("HERALD_BIN", str(ROOT / "target/debug/lorebase-herald")))
    ap.add_argument("--sandbox", default=os.environ.get("SANDBOX_BIN", str(ROOT / "target/debug/lorebase-sandbox")))
    args = ap.parse_args()
    if args.chaos and args.replicas < 2:
        ap.error("--chaos needs at least 2 replicas")

    work = Path(tempfile.mkdtemp(prefix="herald-replicas-"))
    keeper = subprocess.Popen([args.sandbox, "--port", "0", "--auth", "none"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=scrubbed_env({}))
    replicas: list[Replica] = []
    nginx = None
    try:
        keeper_url = ready_line(keeper, "LOREBASE_SANDBOX_READY ")["url"]
        *ports, listen = free_ports(args.replicas + 1)
        replicas = [Replica(args.herald, p, keeper_url, work / f"herald-{i}.log") for i, p in enumerate(ports)]
        for r in replicas:
            r.start()
        nginx = start_nginx(work, listen, replicas)
        result = asyncio.run(load(f"http://127.0.0.1:{listen}/mcp", args.clients, args.seconds, replicas, args.chaos, not args.no_routing_headers))
        print(json.dumps(result))
        bad = result["failed"] > 0 or (args.chaos and result["restart_exit_code"] != 0)
        if bad and args.assert_zero_failures:
            print(f"FAILED: {result['failed']} failed reads; logs in {work}", file=sys.stderr)
            return 1
        return 0
    finally:
        for r in replicas:
            r.stop()
        if nginx and nginx.poll() is None:
            nginx.send_signal(signal.SIGQUIT)
            try:
                nginx.wait(timeout=5)
            except subprocess.TimeoutExpired:
                nginx.kill()
        keeper.kill()
        keeper.wait()


if __name__ == "__main__":
    sys.exit(main())

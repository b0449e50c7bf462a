#!/usr/bin/env python3
"""Where a call's CPU goes: `perf record` of one server under wrk load.

Starts the sandbox Keeper and one server (Herald or the floor, benches/floor)
on Streamable HTTP (stateless, JSON) on loopback, runs wrk (2 threads, 64
connections by default, `tools/call lorebase_get {"ref":"Supplier/S-1001"}`,
every answer checked), records the server with `perf record` (cpu-clock: the
machines' VMs count no hardware events) for the same time, and prints the top
symbols of `perf report` (self time, and children). Use the `profiling` build
(release code with symbols):

    cargo build --profile profiling -p lorebase-herald -p lorebase-sandbox
    cargo build --profile profiling -p herald-floor
    benches/profile.py --bin-dir target/profiling --server herald
    benches/profile.py --bin-dir target/profiling --server floor
    benches/profile.py --bin-dir target/profiling --server herald --by-layer   # µs per call by layer

Needs linux-perf and wrk (apt-get). Stdlib only.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import http, procs, stdio  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "target" / "bench"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin-dir", type=Path, default=ROOT / "target/profiling")
    parser.add_argument("--server", choices=["herald", "floor"], default="herald")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--port", type=int, default=18290)
    parser.add_argument("--top", type=int, default=40, help="symbols shown per report")
    parser.add_argument("--env", action="append", default=[], help="extra KEY=VALUE for the server")
    parser.add_argument("--stdio", type=int, metavar="CALLS", default=0,
                        help="profile CALLS sequential calls over stdio instead (Herald only)")
    parser.add_argument("--by-layer", action="store_true",
                        help="also the CPU per call of each layer of a call (guard, rmcp, render, ...)")
    args = parser.parse_args()
    bin_dir = args.bin_dir.absolute()
    WORK.mkdir(parents=True, exist_ok=True)
    binary = bin_dir / ("lorebase-herald" if args.server == "herald" else "herald-floor")
    data = WORK / f"perf-{args.server}{'-stdio' if args.stdio else ''}.data"
    sandbox = procs.Sandbox(bin_dir / "lorebase-sandbox", WORK / "sandbox.log")
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LOREBASE") and k != "RUST_LOG"}
        env |= {"LOREBASE_URL": sandbox.url, "LOREBASE_DOMAIN": "supply",
                "LOREBASE__HERALD__TRANSPORT": "streamable_http", "LOREBASE__HERALD__HTTP__PORT": str(args.port)}
        env |= dict(kv.split("=", 1) for kv in args.env)
        if args.stdio:
            profile_stdio(args, binary, env | {"LOREBASE_API_KEY": sandbox.key}, data)
            return report(args, data)
        server = http.HttpServer(args.server, [str(binary)], env, args.port, sandbox.key,
                                 WORK / f"profile-{args.server}.log")
        try:
            script = http.lua_script(WORK / "tools_call.lua", sandbox.key, "lorebase_get",
                                     {"ref": "Supplier/S-1001"}, "Kavsen Alloys")
            http.wrk(server, script, 16, 1)  # warm-up
            perf = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-F", "999", "--call-graph", "dwarf,16384",
                                     "-o", str(data),
                                     "-p", str(server.proc.pid), "--", "sleep", str(args.seconds)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            r = http.wrk(server, script, args.connections, args.seconds, sandbox.proc.pid)
            perf.wait()
            args.cpu_us = r["cpu_us_per_call"]
            print(f"# {args.server}: {r['calls_per_s']:.0f} calls/s, p50 {r['p50_ms']:.2f} ms, "
                  f"p99 {r['p99_ms']:.2f} ms, CPU/call {r['cpu_us_per_call']:.0f} µs, errors {r['errors']}, "
                  f"load average {os.getloadavg()[0]:.1f}")
        finally:
            server.close()
    finally:
        sandbox.close()
    return report(args, data)


def profile_stdio(args, binary: Path, env: dict, data: Path) -> None:
    """perf record over ``args.stdio`` sequential stdio calls (after 200 untimed ones)."""
    env = {k: v for k, v in env.items() if not k.startswith("LOREBASE__HERALD__")}
    s = stdio.StdioSession([str(binary)], env, WORK / "profile-stdio.log")
    try:
        s.handshake()
        for i in range(200):
            s.send(stdio.call_message(1000 + i, "lorebase_get", {"ref": "Supplier/S-1001"}))
            s.answer(1000 + i)
        perf = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-F", "999", "--call-graph", "dwarf,16384",
                                 "-o", str(data),
                                 "-p", str(s.proc.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        cpu0, t0 = procs.cpu_seconds(s.proc.pid), time.perf_counter()
        for i in range(args.stdio):
            s.send(stdio.call_message(10_000 + i, "lorebase_get", {"ref": "Supplier/S-1001"}))
            s.answer(10_000 + i)
        took, cpu = time.perf_counter() - t0, procs.cpu_seconds(s.proc.pid) - cpu0
        perf.send_signal(signal.SIGINT)
        perf.wait()
        print(f"# stdio: {args.stdio} calls, {took / args.stdio * 1e6:.0f} µs per call (mean), "
              f"server CPU {cpu / args.stdio * 1e6:.0f} µs per call, load average {os.getloadavg()[0]:.1f}")
    finally:
        s.close()


# The layers of a call, innermost first: each sample goes to the innermost of
# these its stack passes through (the floor has only the last few).
LAYERS = [
    ("audit line and log writer", r"telemetry::audit|CallReport::emit|herald_server::logging|tracing_subscriber"),
    ("metrics", r"telemetry::metrics|prometheus_client"),
    ("render", r"herald_core::render"),
    ("Keeper client (Herald's)", r"herald_core::keeper"),
    ("reqwest and hyper's client", r"reqwest::|hyper::client|hyper_util::client"),
    ("tools, view, toolbox, call scope", r"herald_core::tools|herald_core::telemetry::scope"),
    ("handler (herald_server::mcp)", r"herald_server::mcp::"),
    ("rmcp", r"rmcp::"),
    ("cancellation tracking", r"cancel_notice"),
    ("tool-set headers", r"tool_headers"),
    ("routing headers", r"routing_headers"),
    ("guard", r"herald_server::http::guard"),
    ("panic layer", r"herald_server::http::panic"),
    ("axum (router, middleware)", r"axum::"),
    ("connection layer", r"herald_server::http::connection"),
    ("hyper's server", r"hyper::proto|hyper::server"),
    ("tokio (tasks, I/O, syscalls)", r"tokio::"),
]


def by_layer(data: Path, cpu_us: float) -> None:
    """Each sample's CPU given to the innermost layer of a call its stack passes through,
    in µs per call (``cpu_us``: the run's CPU per call)."""
    import collections
    import re
    layers = [(name, re.compile(p)) for name, p in LAYERS]
    out = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip,sym", "--no-inline"],
                         capture_output=True, text=True).stdout
    counts: collections.Counter = collections.Counter()
    total = 0
    for block in out.split("\n\n"):
        frames = block.strip().splitlines()
        if not frames:
            continue
        total += 1
        owner = next((name for f in frames for name, r in layers if r.search(f)), "other")
        counts[owner] += 1
    print(f"\n## CPU per call by layer ({total} samples, {cpu_us:.0f} µs per call)")
    for name, n in counts.most_common():
        print(f"{cpu_us * n / max(total, 1):6.1f} µs  {100 * n / max(total, 1):5.1f} %  {name}")


def report(args, data: Path) -> int:
    for children in ("--no-children", "--children"):
        out = subprocess.run(["perf", "report", "-i", str(data), children, "--stdio", "-g", "none",
                              "--percent-limit", "0.3", "--sort", "symbol"], capture_output=True, text=True)
        lines = [" ".join(ln.split()[:-2]) if ln.rstrip().endswith("-") else ln.rstrip()
                 for ln in out.stdout.splitlines() if ln.strip() and not ln.startswith("#")]
        print(f"\n## perf report {children} (top {args.top})")
        print("\n".join(lines[: args.top]))
    if args.by_layer:
        by_layer(data, getattr(args, "cpu_us", 1.0))
    return 0


if __name__ == "__main__":
    sys.exit(main())

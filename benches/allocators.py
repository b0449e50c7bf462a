#!/usr/bin/env python3
"""Herald's throughput under other allocators, without rebuilding:
the same binary with glibc's malloc, and with mimalloc and jemalloc preloaded
(LD_PRELOAD of Debian's libmimalloc2.0 and libjemalloc2), beside the floor
(benches/floor), in interleaved wrk rounds over Streamable HTTP; then sequential
calls over stdio (p50 and server CPU per call), the floor's too (`--stdio`),
beside the same Keeper GET made with curl. `--no-preload` measures the binary as
built, `--also NAME=PATH[,KEY=VALUE...]` adds other builds or settings.

    apt-get install -y libmimalloc2.0 libjemalloc2 wrk
    benches/allocators.py --bin-dir target/profiling --rounds 3 --seconds 5 [--also before=PATH]

Stdlib only; loopback only; stops by itself.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import http, procs, stdio  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "target" / "bench"
LIB = Path("/usr/lib/x86_64-linux-gnu")
PRELOADS = {"glibc": None, "mimalloc": LIB / "libmimalloc.so.2", "jemalloc": LIB / "libjemalloc.so.2"}
GET = {"ref": "Supplier/S-1001"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", type=Path, default=ROOT / "target/profiling")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--calls", type=int, default=1000, help="sequential stdio calls per variant and round")
    ap.add_argument("--port", type=int, default=18390)
    ap.add_argument("--also", action="append", default=[], metavar="NAME=PATH[,KEY=VALUE...]",
                    help="another Herald binary to measure beside them (say, the build before a change), "
                         "with extra environment variables if given")
    ap.add_argument("--stderr-pipe", action="store_true",
                    help="over stdio, the servers' stderr is a pipe drained by another process (as a host "
                         "reads it), not the log file")
    ap.add_argument("--skip-http", action="store_true", help="stdio only")
    ap.add_argument("--no-preload", action="store_true",
                    help="leave out the preloaded allocators (the --bin-dir binary runs as built)")
    args = ap.parse_args()
    bin_dir = args.bin_dir.absolute()
    WORK.mkdir(parents=True, exist_ok=True)
    sandbox = procs.Sandbox(bin_dir / "lorebase-sandbox", WORK / "sandbox.log")
    base = {k: v for k, v in os.environ.items() if not k.startswith("LOREBASE") and k not in ("RUST_LOG", "LD_PRELOAD")}
    base |= {"LOREBASE_URL": sandbox.url, "LOREBASE_DOMAIN": "supply"}
    preloads = {"as built": None} if args.no_preload else PRELOADS
    variants = {n: ([str(bin_dir / "lorebase-herald")], {"LD_PRELOAD": str(p)} if p else {})
                for n, p in preloads.items() if p is None or p.exists()}
    first = next(iter(variants))
    for spec in args.also:
        name, rest = spec.split("=", 1)
        path, *pairs = rest.split(",")
        variants[name] = ([str(Path(path).absolute())], dict(pair.split("=", 1) for pair in pairs))
    if (bin_dir / "herald-floor").exists():
        variants["floor"] = ([str(bin_dir / "herald-floor")], {})
    running: dict[str, http.HttpServer] = {}
    rows: dict[str, list[dict]] = {n: [] for n in variants}
    try:
        for i, (name, (argv, extra)) in enumerate(variants.items() if not args.skip_http else ()):
            env = base | extra | {"LOREBASE__HERALD__TRANSPORT": "streamable_http",
                                  "LOREBASE__HERALD__HTTP__PORT": str(args.port + i)}
            running[name] = http.HttpServer(name, argv, env, args.port + i, sandbox.key, WORK / f"alloc-{name}.log")
        script = http.lua_script(WORK / "tools_call.lua", sandbox.key, "lorebase_get", GET, "Kavsen Alloys")
        for server in running.values():
            http.wrk(server, script, 16, 1)
        for _ in range(0 if args.skip_http else args.rounds):
            for name, server in running.items():
                r = http.wrk(server, script, args.connections, args.seconds, sandbox.proc.pid)
                r["load"] = os.getloadavg()[0]
                rows[name].append(r)
                print(f"http {name}: {r['calls_per_s']:.0f}/s p99 {r['p99_ms']:.1f} ms cpu {r['cpu_us_per_call']:.0f} µs "
                      f"errors {r['errors']} rss {r['peak_rss_kb'] / 1024:.1f} MB load {r['load']:.1f}", file=sys.stderr)
        idle = {n: s.idle_rss_kb for n, s in running.items()}
    finally:
        for server in running.values():
            server.close()
    calls: dict[str, list] = {}
    curl: list[float] = []
    try:
        order = list(variants.items())
        for r in range(args.rounds):
            curl.append(statistics.median(stdio.curl_floor(f"{sandbox.url}/api/v1/domains/supply/kinds/Supplier/records/S-1001",
                                                           sandbox.key, args.calls, 100)) * 1e6)
            # The order turns each round: a server's place in a round moved its p50 by up to 30 µs.
            for name, (argv, extra) in order[r % len(order):] + order[:r % len(order)]:
                if name == "floor":
                    argv = [*argv, "--stdio"]  # the same tool over rmcp's stdio transport
                lat, bad, cpu = stdio.per_call(argv, base | extra | {"LOREBASE_API_KEY": sandbox.key},
                                               WORK / "alloc-stdio.log", "lorebase_get", GET, "Kavsen Alloys",
                                               args.calls, 100, stderr_pipe=args.stderr_pipe)
                calls.setdefault(name, []).append((statistics.median(lat) * 1e6, cpu * 1e6, bad))
    finally:
        sandbox.close()
    curl_p50 = statistics.median(curl) if curl else 0.0
    if args.skip_http:
        print(f"\nstdio: {args.rounds} rounds of {args.calls} sequential calls, the order turned each round")
        print("| variant | stdio p50 | over curl | stdio CPU/call | p50 by round |")
        print("|---|---|---|---|---|")
        for name, c in calls.items():
            p50 = statistics.median(x[0] for x in c)
            print(f"| {name} | {p50:.0f} µs | {p50 - curl_p50:.0f} µs | {statistics.median(x[1] for x in c):.0f} µs "
                  f"| {', '.join(f'{x[0]:.0f}' for x in c)} |")
        print(f"stdio curl floor: p50 {curl_p50:.0f} µs (rounds: {', '.join(f'{c:.0f}' for c in curl)}); "
              f"load average {os.getloadavg()[0]:.1f} at the end")
        return 0
    floor = rows.get("floor")
    print(f"\n{args.connections} clients, {args.rounds} interleaved rounds of {args.seconds} s; "
          f"stdio: {args.calls} sequential calls per round")
    print("| variant | calls/s (median) | p99 | CPU/call | errors | peak RSS | idle RSS | ÷ floor calls/s | p99 ÷ floor "
          "| stdio p50 | stdio p50 over curl | stdio CPU/call |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, rs in rows.items():
        med = statistics.median(r["calls_per_s"] for r in rs)
        # Each round's ratio to the floor's round next to it, then their median:
        # the machine's speed drifts between rounds more than the servers differ.
        ratio = (f"{statistics.median(r['calls_per_s'] / f['calls_per_s'] for r, f in zip(rs, floor)):.2f}"
                 if floor else "–")
        p99_ratio = (f"{statistics.median(r['p99_ms'] / f['p99_ms'] for r, f in zip(rs, floor)):.2f}"
                     if floor else "–")
        c = calls.get(name)
        sp = f"{statistics.median(x[0] for x in c):.0f} µs" if c else ""
        sc = f"{statistics.median(x[1] for x in c):.0f} µs" if c else ""
        over = f"{statistics.median(x[0] for x in c) - curl_p50:.0f} µs" if c else ""
        print(f"| {name} | {med:.0f} | {statistics.median(r['p99_ms'] for r in rs):.1f} ms "
              f"| {statistics.median(r['cpu_us_per_call'] for r in rs):.0f} µs "
              f"| {sum(r['errors'] for r in rs)} / {sum(r['requests'] for r in rs)} "
              f"| {max(r['peak_rss_kb'] for r in rs) / 1024:.1f} MB | {idle[name] / 1024:.1f} MB | {ratio} | {p99_ratio} | {sp} | {over} | {sc} |")
    for name, c in calls.items():
        if sum(x[2] for x in c):
            print(f"stdio {name}: {sum(x[2] for x in c)} answers were not the Record")
    print(f"stdio curl floor (the same Keeper GET, one kept-alive connection): p50 {curl_p50:.0f} µs "
          f"(rounds: {', '.join(f'{c:.0f}' for c in curl)})")
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end; per round: "
          + "; ".join(f"{r['load']:.1f}" for r in rows[first]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Herald against the floor of its own architecture (benches/floor: rmcp's
stateless JSON Streamable HTTP server and reqwest, nothing else), in
interleaved rounds. Run it through benches/floor.sh, which builds both first.

Each round starts every server afresh against one sandbox Keeper, then, in an
order that turns each round (a server's place in a round moves its figures):

1. idle RSS: the server on Streamable HTTP (default settings, stateless, JSON),
   0.5 s after it first answered tools/list;
2. HTTP under load: wrk, 64 clients by default, `tools/call lorebase_get`
   (every answer checked); calls/s and CPU per call (the server's user + system
   time over the run divided by the calls answered);
3. stdio: sequential calls on one connection, server CPU per call (the floor
   with `--stdio`: the same tool on rmcp's stdio transport);
4. stdio cold start: spawn to the first answered tools/list (median of a few).

It prints each round's ratios to the floor's figures of the same round, and
their medians, with the targets. `--also NAME=PATH` measures another Herald
binary beside them (say, the build before a change). Loopback only; stops by
itself. Stdlib only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import http, procs, stdio  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "target" / "bench"
GET = {"ref": "Supplier/S-1001"}
EXPECT = "Kavsen Alloys"
FLOOR = "floor"

# The targets: calls/s ≥, CPU per call ≤, idle RSS ≤, stdio CPU per call ≤ (÷ the floor's), cold start ≤ ms.
TARGETS = {"calls": 0.95, "cpu": 1.05, "idle": 1.3, "stdio": 1.05, "cold_ms": 5.0}


def measure_round(args, variants, env, sandbox, port: int, turn: int) -> dict[str, dict]:
    """One round: every variant's figures (see the module documentation)."""
    order = list(variants.items())
    order = order[turn % len(order):] + order[:turn % len(order)]
    script = http.lua_script(WORK / "floor_call.lua", sandbox.key, "lorebase_get", GET, EXPECT)
    out: dict[str, dict] = {name: {} for name in variants}
    for i, (name, argv) in enumerate(order):
        server_env = env | {"LOREBASE__HERALD__TRANSPORT": "streamable_http",
                            "LOREBASE__HERALD__HTTP__PORT": str(port + i)}
        server = http.HttpServer(name, argv, server_env, port + i, sandbox.key, WORK / f"floor-{name}.log")
        try:
            out[name]["idle_kb"] = server.idle_rss_kb
            http.wrk(server, script, 16, 1)  # warm-up, untimed
            r = http.wrk(server, script, args.connections, args.seconds)
            out[name] |= {"calls": r["calls_per_s"], "cpu_us": r["cpu_us_per_call"], "errors": r["errors"],
                          "requests": r["requests"]}
        finally:
            server.close()
    for name, argv in order:
        stdio_argv = [*argv, "--stdio"] if name == FLOOR else argv
        stdio_env = env | {"LOREBASE_API_KEY": sandbox.key}
        _, bad, cpu = stdio.per_call(stdio_argv, stdio_env, WORK / "floor-stdio.log", "lorebase_get", GET,
                                     EXPECT, args.calls, min(100, args.calls))
        out[name]["stdio_us"] = cpu * 1e6
        out[name]["errors"] += bad
        cold = [stdio.cold_start(stdio_argv, stdio_env, WORK / "floor-stdio.log")[0] for _ in range(args.cold + 1)]
        out[name]["cold_ms"] = statistics.median(cold[1:]) * 1000  # the first warms the page cache
    out["_load"] = {"load": os.getloadavg()[0]}
    return out


def ratios(row: dict, floor: dict) -> dict:
    return {"calls": row["calls"] / floor["calls"], "cpu": row["cpu_us"] / floor["cpu_us"],
            "idle": row["idle_kb"] / floor["idle_kb"], "stdio": row["stdio_us"] / floor["stdio_us"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", type=Path, default=ROOT / "target/release",
                    help="where lorebase-herald, lorebase-sandbox and herald-floor are")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seconds", type=int, default=8, help="duration of each wrk run")
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--calls", type=int, default=2000, help="sequential stdio calls per server and round")
    ap.add_argument("--cold", type=int, default=5, help="cold starts per server and round (median)")
    ap.add_argument("--port", type=int, default=18490, help="first loopback port of the HTTP servers")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=PATH",
                    help="another Herald binary measured beside them, its ratios printed too")
    args = ap.parse_args()
    bin_dir = args.bin_dir.absolute()
    WORK.mkdir(parents=True, exist_ok=True)
    variants = {"herald": [str(bin_dir / "lorebase-herald")]}
    for spec in args.also:
        name, path = spec.split("=", 1)
        variants[name] = [str(Path(path).absolute())]
    variants[FLOOR] = [str(bin_dir / "herald-floor")]
    for name, argv in variants.items():
        if not Path(argv[0]).exists():
            print(f"{name}: no binary at {argv[0]} (benches/floor.sh builds them)", file=sys.stderr)
            return 2
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOREBASE") and k not in ("RUST_LOG", "LD_PRELOAD")}
    load_before = os.getloadavg()[0]
    rounds: list[dict] = []
    sandbox = procs.Sandbox(bin_dir / "lorebase-sandbox", WORK / "floor-sandbox.log")
    try:
        env |= {"LOREBASE_URL": sandbox.url, "LOREBASE_DOMAIN": "supply"}
        for turn in range(args.rounds):
            r = measure_round(args, variants, env, sandbox, args.port, turn)
            rounds.append(r)
            f = r[FLOOR]
            line = "; ".join(
                f"{n} ÷ floor: calls/s {q['calls']:.2f} CPU/call {q['cpu']:.2f} idle RSS {q['idle']:.2f} "
                f"stdio CPU/call {q['stdio']:.2f} cold {r[n]['cold_ms']:.1f} ms"
                for n in variants if n != FLOOR for q in [ratios(r[n], f)])
            print(f"round {turn + 1}: floor {f['calls']:.0f}/s {f['cpu_us']:.0f} µs/call stdio "
                  f"{f['stdio_us']:.0f} µs/call; {line}; load {r['_load']['load']:.1f}", file=sys.stderr)
    finally:
        sandbox.close()

    print(f"\n{args.rounds} interleaved rounds; HTTP: {args.connections} clients, wrk {args.seconds} s, "
          f"stateless JSON tools/call lorebase_get, default settings; stdio: {args.calls} sequential calls; "
          f"cold start: median of {args.cold}")
    print("| build | round | calls/s ÷ floor | CPU/call ÷ floor | idle RSS ÷ floor | stdio CPU/call ÷ floor "
          "| cold start | CPU/call | stdio CPU/call | idle RSS | errors | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    failed = False
    for name in variants:
        qs = []
        for i, r in enumerate(rounds):
            row = r[name]
            q = ratios(row, r[FLOOR])
            qs.append(q | {"cold_ms": row["cold_ms"], "cpu_us": row["cpu_us"], "stdio_us": row["stdio_us"],
                           "idle_kb": row["idle_kb"], "errors": row["errors"], "requests": row["requests"]})
            print(f"| {name} | {i + 1} | {q['calls']:.2f} | {q['cpu']:.2f} | {q['idle']:.2f} | {q['stdio']:.2f} "
                  f"| {row['cold_ms']:.1f} ms | {row['cpu_us']:.0f} µs | {row['stdio_us']:.0f} µs "
                  f"| {row['idle_kb'] / 1024:.1f} MB | {row['errors']} / {row['requests']} | {r['_load']['load']:.1f} |")
        med = {k: statistics.median(q[k] for q in qs) for k in qs[0]}
        errors = sum(q["errors"] for q in qs)
        failed |= errors > 0
        print(f"| **{name}** | median | **{med['calls']:.2f}** | **{med['cpu']:.2f}** | **{med['idle']:.2f}** "
              f"| **{med['stdio']:.2f}** | **{med['cold_ms']:.1f} ms** | {med['cpu_us']:.0f} µs "
              f"| {med['stdio_us']:.0f} µs | {med['idle_kb'] / 1024:.1f} MB | {errors} | |")
        if name != FLOOR:
            met = {"calls/s ≥ 0.95": med["calls"] >= TARGETS["calls"], "CPU/call ≤ 1.05": med["cpu"] <= TARGETS["cpu"],
                   "idle RSS ≤ 1.3": med["idle"] <= TARGETS["idle"], "stdio CPU/call ≤ 1.05": med["stdio"] <= TARGETS["stdio"],
                   "cold start ≤ 5 ms": med["cold_ms"] <= TARGETS["cold_ms"]}
            print(f"targets, {name}: " + ", ".join(f"{k} {'met' if v else 'MISSED'}" for k, v in met.items()),
                  file=sys.stderr)
    print(f"load average (1 min): {load_before:.1f} before, {os.getloadavg()[0]:.1f} after; "
          f"{os.cpu_count()} cores")
    if failed:
        print("some answers failed (errors above): the figures are not comparable", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

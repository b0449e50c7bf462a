#!/usr/bin/env python3
"""Herald against its peer on the official Python MCP SDK, side by side in one run.

Measures, for the release build of lorebase-herald, the Node bin, the Python
console script and the peer (benches/peers/python_sdk_herald), all against the
same sandbox Keeper on loopback:

1. cold start over stdio: spawn to the first answered tools/list;
2. per-call cost over stdio: sequential tools/call lorebase_get on one
   connection (p50/p99), with the same Keeper call made straight with curl as
   the floor;
3. Streamable HTTP under load (wrk, bounded, loopback): calls/s, p50/p99,
   errors, peak RSS, CPU per call, at 1, 16, 64 and 256 connections;
4. memory: RSS idle after start and peak under 3;
5. size: the release binary, the npm platform package, the wheel (and the
   peer's installed dependencies).

Every figure is the median of several runs; the table goes into
docs/benchmarks.md between the herald-bench markers. Run it through
benches/run.sh, which builds and installs what it needs. Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import http, procs, report, stdio  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "target" / "bench"
GET_ARGS = {"ref": "Supplier/S-1001"}
EXPECT = "Kavsen Alloys"


NODE_FLOOR = (
    "const rl=require('readline').createInterface({input:process.stdin});"
    "rl.on('line',l=>{const m=JSON.parse(l);if(m.id===undefined)return;"
    "process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:m.id,result:m.method==='tools/list'"
    "?{tools:[{name:'x',inputSchema:{type:'object'}}]}:{}})+'\\n')})")
PYTHON_FLOOR = (
    "import sys,json\n"
    "for l in sys.stdin:\n"
    " m=json.loads(l)\n"
    " if 'id' in m:\n"
    "  r={'tools':[{'name':'x','inputSchema':{'type':'object'}}]} if m['method']=='tools/list' else {}\n"
    "  sys.stdout.write(json.dumps({'jsonrpc':'2.0','id':m['id'],'result':r})+'\\n');sys.stdout.flush()\n")


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


def base_env(sandbox: procs.Sandbox) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOREBASE") and k != "RUST_LOG"}
    env.update(LOREBASE_URL=sandbox.url, LOREBASE_DOMAIN="supply")
    # The peer declares output schemas (the SDK publishes its models) and sends
    # structuredContent on every success: Herald is measured doing the same.
    env.update(LOREBASE__HERALD__OUTPUT__SCHEMAS="true")
    return env


def servers(args) -> dict[str, tuple[list[str], dict[str, str]]]:
    """The stdio commands measured, by row name (missing ones left out, with a note)."""
    peer = [str(args.peer_python), str(ROOT / "benches/peers/python_sdk_herald/server.py")]
    out: dict[str, tuple[list[str], dict[str, str]]] = {"native": ([str(args.bin_dir / "lorebase-herald")], {})}
    if not args.no_node:
        extra = {"LOREBASE_HERALD_ADDON": str(args.node_addon)} if args.node_addon.exists() else {}
        out["node"] = (["node", str(ROOT / "npm/bin/lorebase-herald")], extra)
    if args.console_script.exists():
        out["python"] = ([str(args.console_script)], {})
    out["peer"] = (peer, {})
    # The runtimes' own start: a trivial server answering the handshake, no MCP library.
    out["node-floor"] = (["node", "-e", NODE_FLOOR], {})
    py = args.console_script.parent / "python"
    out["python-floor"] = ([str(py if py.exists() else args.peer_python), "-c", PYTHON_FLOOR], {})
    return out


def measure_cold(args, cmds, env, log) -> dict:
    results: dict[str, dict] = {}
    times: dict[str, list[float]] = {n: [] for n in cmds}
    rss: dict[str, list[int]] = {n: [] for n in cmds}
    for i in range(args.runs + 2):
        for name, (argv, extra) in cmds.items():  # interleaved, so drift hits every row alike
            try:
                t, r = stdio.cold_start(argv, env | extra, log)
            except (RuntimeError, OSError, ValueError) as e:
                results[name] = {"error": str(e)[:300]}
                continue
            if i >= 2:  # two warm-up rounds (page cache)
                times[name].append(t)
                rss[name].append(r)
    for name in cmds:
        if times[name] and name not in results:
            results[name] = {"median_ms": statistics.median(times[name]) * 1000,
                             "p90_ms": percentile(times[name], 90) * 1000, "min_ms": min(times[name]) * 1000,
                             "rss_kb": statistics.median(rss[name]), "runs": len(times[name])}
        print(f"cold start {name}: {results.get(name)}", file=sys.stderr)
    return results


def measure_calls(args, cmds, env, key, sandbox_url, log) -> dict:
    results: dict[str, dict] = {}
    runs: dict[str, list[tuple[list[float], int, float]]] = {}
    servers_measured = [n for n in cmds if not n.endswith("-floor")]
    record = f"{sandbox_url}/api/v1/domains/supply/kinds/Supplier/records/S-1001"
    floors, pipes = [], []
    for _ in range(args.repeats):
        floors.append(stdio.curl_floor(record, key, args.calls, args.warmup))
        pipes.append(stdio.pipe_floor("lorebase_get", GET_ARGS, args.calls, log))
        for name in servers_measured:  # interleaved, so drift hits every row alike
            if name in results:
                continue
            argv, extra = cmds[name]
            try:
                runs.setdefault(name, []).append(stdio.per_call(
                    argv, env | extra | {"LOREBASE_API_KEY": key}, log, "lorebase_get", GET_ARGS, EXPECT,
                    args.calls, args.warmup))
            except (RuntimeError, OSError, ValueError) as e:
                results[name] = {"error": str(e)[:300]}
    for name, rs in runs.items():
        if name in results:
            continue
        results[name] = {"p50_us": statistics.median(percentile(lat, 50) for lat, _, _ in rs) * 1e6,
                         "p99_us": statistics.median(percentile(lat, 99) for lat, _, _ in rs) * 1e6,
                         "cpu_us": statistics.median(cpu for _, _, cpu in rs) * 1e6,
                         "failed": sum(bad for _, bad, _ in rs)}
        print(f"per call {name}: {results[name]}", file=sys.stderr)
    results["floor"] = {"p50_us": statistics.median(percentile(f, 50) for f in floors) * 1e6,
                        "p99_us": statistics.median(percentile(f, 99) for f in floors) * 1e6}
    results["pipe"] = {"p50_us": statistics.median(percentile(p, 50) for p in pipes) * 1e6,
                       "p99_us": statistics.median(percentile(p, 99) for p in pipes) * 1e6}
    print(f"floors: {results['floor']} pipe: {results['pipe']}", file=sys.stderr)
    return results


def measure_http(args, env, key, log_dir, keeper_pid: int) -> dict:
    peer = [str(args.peer_python), str(ROOT / "benches/peers/python_sdk_herald/server.py")]
    specs = {"herald": [str(args.bin_dir / "lorebase-herald")]}
    if args.floor_bin.exists():  # benches/floor: rmcp + reqwest, nothing else
        specs["floor"] = [str(args.floor_bin)]
    else:
        print(f"no floor binary at {args.floor_bin}: the floor column is left out", file=sys.stderr)
    if not args.no_peer:
        specs["peer"] = peer
    script = http.lua_script(WORK / "tools_call.lua", key, "lorebase_get", GET_ARGS, EXPECT)
    running: dict[str, http.HttpServer] = {}
    results: dict[str, dict] = {n: {"levels": {}} for n in specs}
    try:
        for n, (name, argv) in enumerate(specs.items()):
            server_env = env | {"LOREBASE__HERALD__TRANSPORT": "streamable_http",
                                "LOREBASE__HERALD__HTTP__PORT": str(args.port + n)}
            running[name] = http.HttpServer(name, argv, server_env, args.port + n, key, log_dir / f"http-{name}.log")
            results[name]["idle_rss_kb"] = running[name].idle_rss_kb
        for server in running.values():  # warm-up, untimed
            http.wrk(server, script, 16, 1)
        runs: dict[tuple[str, int], list[dict]] = {}
        # Levels ascending, repeats inside: the peak RSS of a level includes no
        # run at a higher level (freed memory is not always given back).
        for c in sorted(args.levels):
            for _ in range(args.repeats):
                for name, server in running.items():
                    r = http.wrk(server, script, c, args.seconds, keeper_pid)
                    runs.setdefault((name, c), []).append(r)
                    print(f"http {name} c={c}: {r}", file=sys.stderr)
        for (name, c), rs in runs.items():
            if name == "herald" and ("floor", c) in runs:  # one ratio per interleaved round
                results[name].setdefault("floor_rounds", {})[c] = [
                    {"calls_ratio": h["calls_per_s"] / f["calls_per_s"], "p99_ratio": h["p99_ms"] / f["p99_ms"]}
                    for h, f in zip(rs, runs[("floor", c)])]
            results[name]["levels"][c] = {
                "calls_per_s": statistics.median(r["calls_per_s"] for r in rs),
                "p50_ms": statistics.median(r["p50_ms"] for r in rs),
                "p99_ms": statistics.median(r["p99_ms"] for r in rs),
                "errors": sum(r["errors"] for r in rs), "requests": sum(r["requests"] for r in rs),
                "peak_rss_kb": max(r["peak_rss_kb"] for r in rs),
                "cpu_us_per_call": statistics.median(r["cpu_us_per_call"] for r in rs),
                "keeper_cpu_us_per_call": statistics.median(r["keeper_cpu_us_per_call"] for r in rs),
                "wrk_cpu_us_per_call": statistics.median(r["wrk_cpu_us_per_call"] for r in rs)}
    finally:
        for server in running.values():
            server.close()
    return results


def du_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def measure_sizes(args) -> dict:
    out: dict[str, dict] = {}
    binary = args.bin_dir / "lorebase-herald"
    out["binary"] = {"bytes": binary.stat().st_size, "what": os.path.relpath(binary, ROOT)}
    if args.node_addon.exists():
        pkg = WORK / "npm-platform"
        subprocess.run(["rm", "-rf", str(pkg)], check=True)
        subprocess.run(["cp", "-r", str(ROOT / "npm/linux-x64-gnu"), str(pkg)], check=True)
        subprocess.run(["cp", str(args.node_addon), str(pkg / "lorebase-herald.linux-x64-gnu.node")], check=True)
        packed = subprocess.run(["npm", "pack", "--dry-run", "--json"], cwd=pkg, capture_output=True, text=True)
        try:
            info = json.loads(packed.stdout)[0]
            out["npm"] = {"bytes": info["size"], "unpacked": info["unpackedSize"],
                          "what": f"{info['name']}-{info['version']}.tgz"}
        except (ValueError, KeyError, IndexError):
            out["npm"] = {"error": packed.stderr[-300:]}
    wheels = sorted(args.wheel_dir.glob("lorebase_herald-*.whl")) if args.wheel_dir.exists() else []
    if wheels:
        out["wheel"] = {"bytes": wheels[-1].stat().st_size, "what": wheels[-1].name}
    site = next(args.peer_python.parent.parent.glob("lib/python3*/site-packages"), None)
    if site:
        pip_own = sum(du_bytes(p) for p in site.glob("pip*"))
        out["peer"] = {"bytes": du_bytes(site) - pip_own,
                       "what": "the peer's site-packages (mcp 2.x and its dependencies, pip excluded)"}
    return out


def machine() -> dict:
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor())
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
            "python": platform.python_version(), "node": node, "date": time.strftime("%Y-%m-%d %H:%M"),
            "load_before": os.getloadavg()[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="cold starts per command (median)")
    parser.add_argument("--repeats", type=int, default=5, help="repeats of the per-call and load runs")
    parser.add_argument("--calls", type=int, default=2000, help="sequential calls per per-call run")
    parser.add_argument("--warmup", type=int, default=100, help="untimed calls before each per-call run")
    parser.add_argument("--seconds", type=int, default=5, help="duration of each wrk run")
    parser.add_argument("--levels", type=lambda s: [int(x) for x in s.split(",")], default=[1, 16, 64, 256])
    parser.add_argument("--port", type=int, default=18190, help="first loopback port of the HTTP servers")
    parser.add_argument("--bin-dir", type=Path, default=ROOT / "target/release")
    parser.add_argument("--node-addon", type=Path, default=WORK / "lorebase-herald.linux-x64-gnu.node")
    parser.add_argument("--no-node", action="store_true", help="leave out the Node row")
    parser.add_argument("--console-script", type=Path, default=WORK / "wheel-venv/bin/lorebase-herald")
    parser.add_argument("--wheel-dir", type=Path, default=WORK / "wheel")
    parser.add_argument("--peer-python", type=Path, default=WORK / "peer-venv/bin/python")
    parser.add_argument("--floor-bin", type=Path, default=None,
                        help="the floor's binary (benches/floor), measured beside Herald over HTTP "
                             "(default: herald-floor in --bin-dir)")
    parser.add_argument("--no-peer", action="store_true", help="leave the peer out of the HTTP runs")
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: cold,calls,http,sizes")
    parser.add_argument("--no-doc", action="store_true", help="print, do not write docs/benchmarks.md")
    args = parser.parse_args()
    args.floor_bin = args.floor_bin or args.bin_dir / "herald-floor"
    for name in ("bin_dir", "node_addon", "console_script", "wheel_dir", "peer_python", "floor_bin"):
        setattr(args, name, getattr(args, name).absolute())
    skip = set(filter(None, args.skip.split(",")))
    WORK.mkdir(parents=True, exist_ok=True)
    log = WORK / "servers.log"
    log.write_bytes(b"")

    sandbox = procs.Sandbox(args.bin_dir / "lorebase-sandbox", WORK / "sandbox.log")
    results: dict = {"machine": machine(), "argv": sys.argv[1:]}
    try:
        env = base_env(sandbox)
        cmds = servers(args)
        if "cold" not in skip:
            results["cold"] = measure_cold(args, cmds, env | {"LOREBASE_API_KEY": sandbox.key}, log)
        if "calls" not in skip:
            results["calls"] = measure_calls(args, cmds, env, sandbox.key, sandbox.url, log)
        if "http" not in skip:
            results["http"] = measure_http(args, env, sandbox.key, WORK, sandbox.proc.pid)
    finally:
        sandbox.close()
    results["machine"]["load_after"] = os.getloadavg()[0]
    if "sizes" not in skip:
        results["sizes"] = measure_sizes(args)
    (WORK / "results.json").write_text(json.dumps(results, indent=2))
    command = os.environ.get("BENCH_COMMAND") or "benches/run.py " + " ".join(sys.argv[1:])
    block = report.markdown(results, command)
    print(block)
    if not args.no_doc:
        report.write(ROOT / "docs/benchmarks.md", block)
        print("written: docs/benchmarks.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

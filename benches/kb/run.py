#!/usr/bin/env python3
"""KB benchmark: for synthetic catalogs of 1k, 10k and 100k entries (~2 KB each),
measures

- time from process start to the first answered kb_search (`lorebase-herald kb DIR`
  over stdio: spawn, initialize, initialized, tools/call kb_search),
- peak RSS of the server (VmHWM after the latency run),
- kb_search p50/p99 as an MCP client sees it (stdio round trip, one call at a time),
- kb_search p50/p99 in-process (the criterion bench's percentile pass),

and writes the figures into docs/benchmarks.md (between the kb-bench markers).

    cargo build --release -p lorebase-herald
    python3 benches/kb/run.py                      # 1k, 10k, 100k
    python3 benches/kb/run.py --sizes 1000 10000 --no-inprocess

Catalogs are generated once into --work (default target/kb-bench) by gen_catalog.py.
Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benches"))

from harness import report  # noqa: E402

QUERIES = ["harbor-core OOMKilled", "EC2NodeClass drift", "v1.8.2", "kb_search", "rollback",
           "certificate expiry cert-manager", "karpenter node drain after upgrade", "coredns timeouts",
           "kafka-broker consumer lag", "zzzunmatched"]
MARK_START = "<!-- kb-bench:start -->"
MARK_END = "<!-- kb-bench:end -->"


class StdioClient:
    """A minimal MCP client over newline-delimited JSON-RPC on a child's stdio."""

    def __init__(self, argv: list[str], stderr_path: Path):
        self.stderr = open(stderr_path, "wb")
        # Buffered pipes (requests are flushed one by one): an unbuffered
        # stdout would make readline() read the answer one byte per syscall.
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr)
        self.next_id = 0

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"server closed stdout (exit {self.proc.poll()})")
            message = json.loads(line)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def initialize(self) -> None:
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "kb-bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def kb_search(self, query: str, k: int = 5) -> dict:
        result = self.request("tools/call", {"name": "kb_search", "arguments": {"query": query, "k": k}})
        if result.get("isError"):
            raise RuntimeError(f"kb_search failed: {result}")
        return result

    def peak_rss_kib(self) -> int:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        match = re.search(r"VmHWM:\s+(\d+) kB", status)
        return int(match.group(1)) if match else 0

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.stderr.close()


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def catalog(work: Path, size: int) -> Path:
    out = work / f"catalog-{size}"
    if not (out / "README.md").exists():
        if out.exists():
            raise SystemExit(f"{out} is incomplete; remove it and rerun")
        subprocess.run([sys.executable, str(ROOT / "benches/kb/gen_catalog.py"), str(out),
                        "--entries", str(size)], check=True)
    return out


def measure_process(binary: Path, directory: Path, work: Path, runs: int, calls: int) -> dict:
    starts = []
    latencies: list[float] = []
    peak = 0
    for run in range(runs):
        begin = time.perf_counter()
        client = StdioClient([str(binary), "kb", str(directory)], work / f"server-{directory.name}-{run}.log")
        try:
            client.initialize()
            client.kb_search(QUERIES[0])
            starts.append(time.perf_counter() - begin)
            if run == runs - 1:
                for n in range(calls):
                    query = QUERIES[n % len(QUERIES)]
                    t0 = time.perf_counter()
                    client.kb_search(query)
                    latencies.append(time.perf_counter() - t0)
            peak = max(peak, client.peak_rss_kib())
        finally:
            client.close()
    return {
        "start_s": statistics.median(starts),
        "start_all_s": starts,
        "peak_rss_mib": peak / 1024,
        "stdio_p50_ms": percentile(latencies, 50) * 1e3,
        "stdio_p99_ms": percentile(latencies, 99) * 1e3,
    }


def measure_inprocess(directory: Path) -> dict:
    env = dict(os.environ, KB_BENCH_CATALOG=str(directory))
    # The filter matches no criterion benchmark: only the percentile pass runs.
    done = subprocess.run(["cargo", "bench", "-q", "-p", "lorebase-herald-core", "--bench", "kb_search",
                           "--", "percentiles-only"], cwd=ROOT, env=env, capture_output=True, text=True)
    match = re.search(r"KB_PERCENTILES (\{.*\})", done.stdout)
    if done.returncode != 0 or not match:
        raise RuntimeError(f"criterion bench failed:\n{done.stdout}\n{done.stderr[-3000:]}")
    return json.loads(match.group(1))


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text())
        mem_gib = int(mem.group(1)) / 1024 / 1024 if mem else 0
    except OSError:
        mem_gib = 0
    load = os.getloadavg()[0]
    return (f"{os.cpu_count()} cores ({cpu}), {mem_gib:.0f} GiB RAM, {platform.system()} {platform.release()}, "
            f"load average {load:.1f} when the run ended")


def write_doc(rows: list[dict], command: str) -> str:
    lines = [MARK_START, "",
             f"Measured on {machine()}, release build, {time.strftime('%Y-%m-%d')}.", "",
             f"Command: `{command}`", "",
             "| entries | catalog | start to first kb_search | peak RSS | stdio p50 / p99 | in-process p50 / p99 |",
             "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in rows:
        inproc = (f"{row['inproc_p50_us']:.0f} µs / {row['inproc_p99_us']:.0f} µs"
                  if "inproc_p50_us" in row else "not measured")
        lines.append(
            f"| {row['entries']:,} | {row['catalog_mb']:.0f} MB | {row['start_s']:.2f} s | "
            f"{row['peak_rss_mib']:.0f} MiB | {row['stdio_p50_ms']:.2f} ms / {row['stdio_p99_ms']:.2f} ms | {inproc} |")
    lines += ["",
              "Start is the median of the runs (spawn, MCP initialize, first kb_search answered; the "
              "page cache is warm after the first run). Stdio latency is one call at a time through the "
              "MCP client's pipes, JSON included; in-process latency is `KbCatalog::search` alone "
              "(k = 5, the same 10 queries in turn).", "", MARK_END]
    return "\n".join(lines)


def update_doc(block: str) -> Path:
    doc = ROOT / "docs/benchmarks.md"
    report.replace_block(doc, block, MARK_START, MARK_END, "## KB index (kb_search, kb_get)\n\n")
    return doc


def main() -> int:
    parser = argparse.ArgumentParser(description="KB benchmark (see the module docstring)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--bin", type=Path, default=ROOT / "target/release/lorebase-herald")
    parser.add_argument("--work", type=Path, default=ROOT / "target/kb-bench")
    parser.add_argument("--runs", type=int, default=3, help="process starts per size")
    parser.add_argument("--calls", type=int, default=2000, help="kb_search calls for the percentiles")
    parser.add_argument("--no-inprocess", action="store_true", help="skip the criterion percentile pass")
    parser.add_argument("--no-doc", action="store_true", help="print, do not write docs/benchmarks.md")
    args = parser.parse_args()
    if not args.bin.exists():
        print(f"{args.bin} not found: cargo build --release -p lorebase-herald", file=sys.stderr)
        return 2
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    for size in args.sizes:
        directory = catalog(args.work, size)
        catalog_bytes = sum(f.stat().st_size for f in directory.rglob("*.md"))
        row = {"entries": size, "catalog_mb": catalog_bytes / 1e6}
        row.update(measure_process(args.bin, directory, args.work, args.runs, args.calls))
        if not args.no_inprocess:
            row.update(measure_inprocess(directory))
        print(json.dumps(row), file=sys.stderr)
        rows.append(row)
    command = "python3 benches/kb/run.py " + " ".join(sys.argv[1:])
    block = write_doc(rows, command.strip())
    if args.no_doc:
        print(block)
    else:
        print(f"wrote {update_doc(block)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

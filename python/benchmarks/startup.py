"""Startup benchmark: the time from spawning a server command to the answer of its
first ``tools/list`` over stdio (initialize, initialized, tools/list sent at once).

    python python/benchmarks/startup.py --runs 30 \
        --command "native=target/release/lorebase-herald" \
        --command "console script=python/.venv/bin/lorebase-herald" \
        --command "uvx=uvx --offline --from dist/lorebase_herald-....whl lorebase-herald"

Prints one markdown table row per command (min, median, p90, max in milliseconds), for
docs/benchmarks.md. No Keeper is needed: tools/list does not call it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from typing import List, Tuple

MESSAGES = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "startup-benchmark", "version": "0"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]
PAYLOAD = "".join(json.dumps(message) + "\n" for message in MESSAGES)


def one_run(command: List[str], env: dict) -> float:
    """Seconds from spawn to the tools/list answer."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(PAYLOAD)
    process.stdin.flush()
    try:
        while True:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError(f"{command} closed stdout without answering tools/list")
            if json.loads(line).get("id") == 2:
                elapsed = time.perf_counter() - started
                break
    finally:
        process.stdin.close()
        process.wait(timeout=30)
    return elapsed


def measure(command: List[str], runs: int, env: dict) -> Tuple[float, float, float, float]:
    one_run(command, env)  # warm the page cache (and uv's cache)
    samples = sorted(one_run(command, env) for _ in range(runs))
    p90 = samples[min(len(samples) - 1, int(round(0.9 * (len(samples) - 1))))]
    return samples[0], statistics.median(samples), p90, samples[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--command", action="append", required=True, help="LABEL=COMMAND LINE")
    options = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOREBASE")}
    env.update({"LOREBASE_URL": "http://127.0.0.1:9", "LOREBASE_DOMAIN": "supply"})
    print(f"<!-- {platform.platform()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
          f"{options.runs} runs after one warm-up -->")
    print("| command | min ms | median ms | p90 ms | max ms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for entry in options.command:
        label, _, line = entry.partition("=")
        low, median, p90, high = measure(shlex.split(line), options.runs, env)
        print(f"| {label} | {low * 1000:.0f} | {median * 1000:.0f} | {p90 * 1000:.0f} | {high * 1000:.0f} |")


if __name__ == "__main__":
    main()

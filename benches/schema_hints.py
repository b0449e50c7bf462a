"""The search hints' schema read against a large Domain, over stdio.

Starts the sandbox Keeper behind a proxy (tests/e2e-python/fake_services.py,
RecordingProxy) that answers every schema read with a generated Domain of
--kinds Kinds (each with one attribute and one Operation; within
`keeper.max_response_bytes`), and a Herald over stdio on it. After
`initialize`, the host sends the first `tools/list` and, from then on, a
`ping` every 20 ms for --ping-seconds while Herald reads the schema for the
hints; then it lists the tools again until the hints carry the Domain's
words. --kinds may list several sizes (`30000,120000`): each gets a fresh
Herald, and the CPU of the read is compared between the first and the last.

Prints one JSON line: per size, the schema's bytes, the first `tools/list`
(ms), the pings' p50/max (ms) during the read, the seconds until the hints
carry the Domain's words, and Herald's CPU seconds from the first listing to
then; and the CPU ratio of the last size to the first. With --assert, exits 1
when a first listing took more than --list-ms, a ping more than --ping-ms, a
hint did not end up with the Domain's words, or the CPU ratio passed
--cpu-ratio times the Kinds' ratio / 4 x 5 (4 x the Kinds: at most 5 x the CPU).

    .venv/bin/python benches/schema_hints.py --kinds 30000,120000
    .venv/bin/python benches/schema_hints.py --kinds 10000,40000 --ping-ms 250 --assert   # in the test command

Loopback only; stops by itself.
"""

from __future__ import annotations

import argparse
import json
import queue
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))
sys.path.insert(0, str(ROOT / "tests" / "replicas"))
sys.path.insert(0, str(ROOT / "tests" / "e2e-python"))

from fake_services import RecordingProxy  # noqa: E402
from harness.procs import add_binary_options, cpu_seconds  # noqa: E402
from replicas import ready_line, scrubbed_env  # noqa: E402

MAX_RESPONSE_BYTES = 16 * 1024 * 1024


def schema_body(kinds: int) -> bytes:
    """A Domain of `kinds` Kinds, each with one attribute and one Operation."""
    parts = [
        '{"name":"Kind%d","key":"id","title":"id",'
        '"attributes":[{"name":"attr_%d","type":"string"}],"operations":["op_%d"]}' % (i, i, i)
        for i in range(kinds)
    ]
    return ('{"domain":"supply","branch":"main","revision":"r1","kinds":[' + ",".join(parts)
            + '],"relations":[],"search":{"modes":["lexical"]}}').encode()


def line(message: dict) -> bytes:
    return (json.dumps(message) + "\n").encode()


class Answers(threading.Thread):
    """Herald's stdout: when each id was answered, and the answers."""

    def __init__(self, stream) -> None:
        super().__init__(daemon=True)
        self.stream, self.at, self.body, self.arrived = stream, {}, {}, queue.Queue()

    def run(self) -> None:
        for raw in iter(self.stream.readline, b""):
            message = json.loads(raw)
            if "id" in message:
                self.at[message["id"]] = time.perf_counter()
                self.body[message["id"]] = message
                self.arrived.put(message["id"])

    def wait(self, wanted, timeout: float) -> bool:
        deadline = time.perf_counter() + timeout
        while wanted not in self.at:
            left = deadline - time.perf_counter()
            if left <= 0:
                return False
            try:
                self.arrived.get(timeout=left)
            except queue.Empty:
                return False
        return True


def hint_of(message: dict, tool: str) -> str:
    for t in message.get("result", {}).get("tools", []):
        if t["name"] == tool:
            return (t.get("_meta") or {}).get("anthropic/searchHint", "")
    return ""


def one_size(args, keeper_url: str, kinds: int) -> dict:
    body = schema_body(kinds)
    assert len(body) <= MAX_RESPONSE_BYTES, f"{len(body)} bytes: past keeper.max_response_bytes"
    proxy = RecordingProxy(keeper_url, schema=body)
    herald = subprocess.Popen([args.herald], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL,
                              env=scrubbed_env({"LOREBASE_URL": proxy.url, "LOREBASE_DOMAIN": "supply"}))
    answers = Answers(herald.stdout)
    answers.start()

    def send(message: dict) -> float:
        herald.stdin.write(line(message))
        herald.stdin.flush()
        return time.perf_counter()

    try:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "schema-hints", "version": "0"}}})
        assert answers.wait(0, 30), "no answer to initialize"
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        cpu0 = cpu_seconds(herald.pid)
        listed_at = send({"jsonrpc": "2.0", "id": "list", "method": "tools/list"})
        pings: dict[int, float] = {}
        end = listed_at + args.ping_seconds
        k = 0
        while time.perf_counter() < end:
            pings[k] = send({"jsonrpc": "2.0", "id": k, "method": "ping"})
            k += 1
            time.sleep(0.02)
        answers.wait("list", args.wait)
        for i in pings:
            answers.wait(i, max(0.1, end + args.wait - time.perf_counter()))
        latencies = [(answers.at[i] - t) * 1000 for i, t in pings.items() if i in answers.at]
        lost = len(pings) - len(latencies)
        # List again until the hints carry the Domain's words (the read is over).
        words_s = None
        n = 0
        deadline = listed_at + args.wait + args.ping_seconds
        while time.perf_counter() < deadline:
            n += 1
            sent = send({"jsonrpc": "2.0", "id": f"again{n}", "method": "tools/list"})
            if not answers.wait(f"again{n}", max(0.1, deadline - sent)):
                break
            if "kind0" in hint_of(answers.body[f"again{n}"], "lorebase_get"):
                words_s = time.perf_counter() - listed_at
                break
            time.sleep(0.1)
        cpu = cpu_seconds(herald.pid) - cpu0
        first = answers.at.get("list")
        return {
            "kinds": kinds,
            "schema_bytes": len(body),
            "first_list_ms": round((first - listed_at) * 1000, 1) if first else None,
            "first_list_had_words": "kind0" in hint_of(answers.body.get("list", {}), "lorebase_get"),
            "pings": len(pings),
            "pings_unanswered": lost,
            "ping_p50_ms": round(statistics.median(latencies), 1) if latencies else None,
            "ping_max_ms": round(max(latencies), 1) if latencies else None,
            "slowest_pings_ms": sorted((round((answers.at[i] - t) * 1000) for i, t in pings.items() if i in answers.at),
                                       reverse=True)[:5],
            "hints_with_words_s": round(words_s, 2) if words_s is not None else None,
            "cpu_s": round(cpu, 3),
            "hint_chars": len(hint_of(answers.body.get(f"again{n}", {}), "lorebase_get")),
        }
    finally:
        if herald.poll() is None:
            herald.kill()
            herald.wait()
        proxy.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_binary_options(ap)
    ap.add_argument("--kinds", default="30000,120000", help="sizes, comma-separated")
    ap.add_argument("--ping-seconds", type=float, default=5)
    ap.add_argument("--wait", type=float, default=60, help="seconds to wait for answers")
    ap.add_argument("--list-ms", type=float, default=2000)
    ap.add_argument("--ping-ms", type=float, default=50)
    ap.add_argument("--assert", dest="check", action="store_true")
    args = ap.parse_args()
    keeper = subprocess.Popen([args.sandbox, "--port", "0", "--auth", "none"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=scrubbed_env({}))
    try:
        keeper_url = ready_line(keeper, "LOREBASE_SANDBOX_READY ")["url"]
        sizes = [one_size(args, keeper_url, int(k)) for k in args.kinds.split(",")]
    finally:
        keeper.kill()
        keeper.wait()
    result: dict = {"sizes": sizes}
    failures = []
    for s in sizes:
        if s["first_list_ms"] is None or s["first_list_ms"] > args.list_ms:
            failures.append(f"first tools/list at {s['kinds']} Kinds: {s['first_list_ms']} ms")
        if s["pings_unanswered"] or s["ping_max_ms"] is None or s["ping_max_ms"] > args.ping_ms:
            failures.append(f"pings at {s['kinds']} Kinds: max {s['ping_max_ms']} ms, {s['pings_unanswered']} unanswered")
        if s["hints_with_words_s"] is None:
            failures.append(f"the hints never carried the words of {s['kinds']} Kinds")
    if len(sizes) > 1 and sizes[0]["cpu_s"] > 0:
        ratio = sizes[-1]["cpu_s"] / sizes[0]["cpu_s"]
        kinds_ratio = sizes[-1]["kinds"] / sizes[0]["kinds"]
        result["cpu_ratio"] = round(ratio, 2)
        result["kinds_ratio"] = round(kinds_ratio, 2)
        if ratio > kinds_ratio * 5 / 4:
            failures.append(f"CPU x{ratio:.2f} for x{kinds_ratio:.2f} the Kinds")
    result["failures"] = failures
    print(json.dumps(result))
    return 1 if args.check and failures else 0


if __name__ == "__main__":
    sys.exit(main())

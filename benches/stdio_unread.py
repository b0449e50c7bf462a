"""A stdio host that writes calls and reads nothing, bounded.

Starts the sandbox Keeper and a Herald over stdio (real pipes), initializes,
then writes `lorebase_schema` calls (`--batch` lines a write) for --seconds
without reading a byte of Herald's stdout: the writes block once Herald
stops reading stdin. Herald's RSS and open descriptors are sampled every
100 ms. Then the host starts reading and every answer is collected.

Prints one JSON line: the calls written (every one was taken by Herald in the
end), Herald's RSS at start, peak while unread and at the end (MB), its peak
open descriptors, the "Too many open files" lines in its log, the answers
(each id once), missing and repeated ids, and how long the reading took. With
--assert, exits 1 unless the peak RSS is under --rss-mb, no descriptor error
was logged, the calls written stayed under --max-taken (Herald stopped
reading stdin), the descriptors under --max-fds, and every id was answered
exactly once.

    .venv/bin/python benches/stdio_unread.py --seconds 60
    .venv/bin/python benches/stdio_unread.py --seconds 4 --assert       # in the test command

Loopback only; stops by itself.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))
sys.path.insert(0, str(ROOT / "tests" / "replicas"))

from harness.procs import add_binary_options, rss_kb  # noqa: E402
from replicas import ready_line, scrubbed_env  # noqa: E402

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "stdio-unread", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call_line(i: int) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                        "params": {"name": "lorebase_schema", "arguments": {}}}) + "\n").encode()


def fds_of(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


class Sampler(threading.Thread):
    """Samples RSS (KiB) and open descriptors every 100 ms: the highest seen."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.rss, self.fds, self.stop = pid, 0, 0, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.rss = max(self.rss, rss_kb(self.pid))
            self.fds = max(self.fds, fds_of(self.pid))
            time.sleep(0.1)


class Writer(threading.Thread):
    """Writes calls in batches until told to stop; `written` counts whole batches."""

    def __init__(self, stdin, batch: int) -> None:
        super().__init__(daemon=True)
        self.stdin, self.batch, self.written, self.stop = stdin, batch, 0, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            lines = b"".join(call_line(self.written + 1 + k) for k in range(self.batch))
            try:
                self.stdin.write(lines)
                self.stdin.flush()
            except OSError:
                return
            self.written += self.batch


def run(args) -> dict:
    keeper = subprocess.Popen([args.sandbox, "--port", "0", "--auth", "none"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=scrubbed_env({}))
    log = tempfile.NamedTemporaryFile(prefix="herald-stdio-unread-", suffix=".log", delete=False)
    herald = None
    try:
        keeper_url = ready_line(keeper, "LOREBASE_SANDBOX_READY ")["url"]
        herald = subprocess.Popen([args.herald], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                  env=scrubbed_env({"LOREBASE_URL": keeper_url, "LOREBASE_DOMAIN": "supply"}))
        herald.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        herald.stdin.flush()
        assert json.loads(herald.stdout.readline())["id"] == 0
        herald.stdin.write((json.dumps(INITIALIZED) + "\n").encode())
        herald.stdin.flush()
        start_kb = rss_kb(herald.pid)
        sampler = Sampler(herald.pid)
        sampler.start()
        writer = Writer(herald.stdin, args.batch)
        writer.start()
        time.sleep(args.seconds)
        writer.stop.set()
        unread_peak_kb, unread_fds = sampler.rss, sampler.fds
        written_while_unread = writer.written
        # The host reads now: the blocked write completes, then every answer comes.
        answered: dict[int, int] = {}
        errors = 0
        t0 = time.perf_counter()
        deadline = t0 + args.drain_timeout
        out = herald.stdout
        while time.perf_counter() < deadline:
            if not writer.is_alive() and len(answered) >= writer.written:
                break
            raw = out.readline()
            if not raw:
                break
            message = json.loads(raw)
            if "id" in message:
                answered[message["id"]] = answered.get(message["id"], 0) + 1
                if "error" in message or message.get("result", {}).get("isError"):
                    errors += 1
        drain_s = time.perf_counter() - t0
        sampler.stop.set()
        writer.join(5)
        ids = range(1, writer.written + 1)
        missing = sum(1 for i in ids if i not in answered)
        repeated = sum(1 for n in answered.values() if n > 1)
        text = Path(log.name).read_text(errors="replace")
        return {
            "seconds_unread": args.seconds,
            "calls_written_while_unread": written_while_unread,
            "calls_written": writer.written,
            "rss_start_mb": round(start_kb / 1024, 1),
            "rss_peak_unread_mb": round(unread_peak_kb / 1024, 1),
            "rss_peak_mb": round(sampler.rss / 1024, 1),
            "fds_peak_unread": unread_fds,
            "fds_peak": sampler.fds,
            "emfile_log_lines": text.count("Too many open files"),
            "answered": len(answered),
            "missing": missing,
            "repeated": repeated,
            "error_answers": errors,
            "drain_s": round(drain_s, 2),
        }
    finally:
        for proc in (herald, keeper):
            if proc and proc.poll() is None:
                proc.kill()
                proc.wait()
        log.close()
        os.unlink(log.name)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_binary_options(ap)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--batch", type=int, default=50, help="calls a write")
    ap.add_argument("--drain-timeout", type=float, default=300)
    ap.add_argument("--rss-mb", type=float, default=100)
    ap.add_argument("--max-taken", type=int, default=5000,
                    help="calls written while unread (Herald's bound, the pipe and its buffer hold the rest)")
    ap.add_argument("--max-fds", type=int, default=200)
    ap.add_argument("--assert", dest="check", action="store_true")
    args = ap.parse_args()
    result = run(args)
    failures = []
    if result["rss_peak_mb"] >= args.rss_mb:
        failures.append(f"peak RSS {result['rss_peak_mb']} MB")
    if result["emfile_log_lines"]:
        failures.append("descriptor errors")
    if result["calls_written_while_unread"] > args.max_taken:
        failures.append("Herald kept reading stdin")
    if result["fds_peak"] > args.max_fds:
        failures.append(f"{result['fds_peak']} descriptors")
    if result["missing"] or result["repeated"] or result["answered"] != result["calls_written"]:
        failures.append("answers missing or repeated")
    result["failures"] = failures
    print(json.dumps(result))
    return 1 if args.check and failures else 0


if __name__ == "__main__":
    sys.exit(main())

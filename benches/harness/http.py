"""Streamable HTTP under load: a server started in stateless JSON mode, a
readiness probe, and wrk runs of ``tools/call`` at fixed concurrency, each
bounded in time, loopback only. Every answer is checked (status 200,
``"isError":false`` and the expected text) by wrk's Lua ``response`` hook."""

from __future__ import annotations

import json
import resource
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from . import procs

PROTOCOL = "2025-11-25"

LUA = r"""
wrk.method = "POST"
wrk.body = [==[BODY]==]
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "PROTOCOL"
wrk.headers["Authorization"] = "Bearer KEY"
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) bad = 0 end
function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"isError":false', 1, true)
     or not string.find(body, "EXPECT", 1, true) then bad = bad + 1 end
end
function done(summary, latency, requests)
  local b = 0
  for _, t in ipairs(threads) do b = b + t:get("bad") end
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,' ..
    '"status":%d,"timeout":%d,"bad":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout, b,
    latency:percentile(50), latency:percentile(99), latency.max))
end
"""


def lua_script(path: Path, key: str, tool: str, arguments: dict, expect: str) -> Path:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments}}, separators=(",", ":"))
    text = (LUA.replace("BODY", body).replace("PROTOCOL", PROTOCOL).replace("KEY", key)
            .replace("EXPECT", expect))
    path.write_text(text)
    return path


def post(url: str, key: str, message: dict, timeout: float = 5) -> dict:
    request = urllib.request.Request(url, data=json.dumps(message).encode(), method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTOCOL, "Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


class HttpServer:
    """A server on Streamable HTTP (stateless, JSON) on a loopback port."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], port: int, key: str, log: Path):
        self.name = name
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.key = key
        self.log = open(log, "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                answer = post(self.url, key, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=2)
                if answer.get("result", {}).get("tools"):
                    break
            except (urllib.error.URLError, ConnectionError, OSError, ValueError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"{name} did not answer tools/list on {self.url} (see {log})")
            time.sleep(0.05)
        time.sleep(0.5)
        self.idle_rss_kb = procs.rss_kb(self.proc.pid)

    def close(self) -> None:
        procs.stop(self.proc)
        self.log.close()


def wrk(server: HttpServer, script: Path, connections: int, seconds: int, keeper_pid: int | None = None) -> dict:
    """One bounded wrk run; its figures plus the server's peak RSS and CPU per call
    (and the Keeper's CPU per call when its pid is given)."""
    threads = max(1, min(2, connections))
    procs.reset_peak(server.proc.pid)
    cpu0 = procs.cpu_seconds(server.proc.pid)
    keeper0 = procs.cpu_seconds(keeper_pid) if keeper_pid else 0.0
    children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    argv = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--timeout", "10s",
            "-s", str(script), server.url]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60)
    cpu = procs.cpu_seconds(server.proc.pid) - cpu0
    keeper_cpu = procs.cpu_seconds(keeper_pid) - keeper0 if keeper_pid else 0.0
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    wrk_cpu = children.ru_utime + children.ru_stime - children0.ru_utime - children0.ru_stime
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("WRKJSON ")), None)
    if line is None:
        raise RuntimeError(f"wrk gave no figures: {out.stdout[-500:]} {out.stderr[-500:]}")
    r = json.loads(line.split(" ", 1)[1])
    errors = r["connect"] + r["read"] + r["write"] + r["timeout"] + r["bad"]
    return {
        "connections": connections,
        "calls_per_s": r["requests"] / (r["duration_us"] / 1e6),
        "p50_ms": r["p50_us"] / 1000,
        "p99_ms": r["p99_us"] / 1000,
        "errors": errors,
        "requests": r["requests"],
        "peak_rss_kb": procs.peak_rss_kb(server.proc.pid),
        "cpu_us_per_call": cpu / max(r["requests"], 1) * 1e6,
        "keeper_cpu_us_per_call": keeper_cpu / max(r["requests"], 1) * 1e6,
        "wrk_cpu_us_per_call": wrk_cpu / max(r["requests"], 1) * 1e6,
    }

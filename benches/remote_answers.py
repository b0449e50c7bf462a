"""What one remote MCP server costs Herald over stdio: a large answer and a
long tool list.

Starts the sandbox Keeper, ``tests/e2e-python/hostile_mcp_server.py`` on
loopback offering --tools more tools, and a Herald over stdio (or, with
--http, over Streamable HTTP) read by the official Python ``mcp`` client.
Then: the size of ``tools/list`` (JSON, bytes) and how many of the server's
tools it holds; and one call of a remote answer of --mb megabytes while a
``ping`` is sent every 10 ms (on the same session over stdio, on a second
session over HTTP), with Herald's peak RSS growth (VmHWM, MB) and the
slowest ping (ms), and whether the answer was a tool error (an answer past
``mcp.max_answer_bytes`` is). With --sse the server answers in SSE events
instead of JSON bodies. Prints one JSON line.

    .venv/bin/python benches/remote_answers.py --mb 15 --tools 10000 [--http] [--sse]

Loopback only; stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benches"))

from harness.procs import Sandbox, add_binary_options, descendants, peak_rss_kb, reset_peak, stop  # noqa: E402


def hostile_server(tools: int, sse: bool) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests/e2e-python/hostile_mcp_server.py"),
            "--many-tools",
            str(tools),
            *(["--sse"] if sse else []),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        text = line.decode()
        if text.startswith("HOSTILE_MCP_READY "):
            return proc, json.loads(text.split(" ", 1)[1])["url"]
    raise RuntimeError("the hostile server did not start")


def herald_pid(binary: str) -> int:
    name = Path(binary).name[:15]
    for pid in descendants(os.getpid()):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == name:
                return pid
        except OSError:
            continue
    raise RuntimeError("Herald's process not found")


async def measure(args, keeper_url: str, key: str, remote_url: str) -> dict:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    servers = [{"name": "hostile", "url": remote_url}]
    env = dict(os.environ) | {
        "LOREBASE_URL": keeper_url,
        "LOREBASE_DOMAIN": "supply",
        "LOREBASE_API_KEY": key,
        "LOREBASE__HERALD__MCP__SERVERS": json.dumps(servers),
        "LOREBASE__HERALD__MCP__DISCOVERY_TIMEOUT_S": "120",
    }
    if args.http:
        return await measure_http(args, env)
    params = StdioServerParameters(command=args.herald, env=env)
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                pid = herald_pid(args.herald)
                return await run(args, session, session, pid)


async def measure_http(args, env: dict[str, str]) -> dict:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    proc = subprocess.Popen(
        [args.herald, "--transport", "streamable_http", "--port", "0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
    )
    try:
        assert proc.stdout is not None
        url = next(
            json.loads(line.decode().split(" ", 1)[1])["url"]
            for line in proc.stdout
            if line.startswith(b"LOREBASE_HERALD_READY ")
        )
        await asyncio.sleep(5)  # the discovery of the crowded server
        headers = {"Authorization": f"Bearer {env['LOREBASE_API_KEY']}"}
        async with (
            create_mcp_http_client(headers=headers) as c1,
            create_mcp_http_client(headers=headers) as c2,
            streamable_http_client(url, http_client=c1) as (r1, w1),
            streamable_http_client(url, http_client=c2) as (r2, w2),
            ClientSession(r1, w1) as calls,
            ClientSession(r2, w2) as pings,
        ):
            await calls.initialize()
            await pings.initialize()
            return await run(args, calls, pings, proc.pid)
    finally:
        stop(proc)


async def run(args, session, ping_session, pid: int) -> dict:
    """tools/list, then the large answer with pings beside it."""
    listed = await session.list_tools()
    list_bytes = len(json.dumps(listed.model_dump(by_alias=True, exclude_none=True)))
    remote = sum(1 for t in listed.tools if t.name.startswith("hostile__"))
    await session.call_tool("hostile__huge", {"mb": 0.1})
    reset_peak(pid)
    before = peak_rss_kb(pid)
    pings: list[float] = []
    done = asyncio.Event()

    async def pinging() -> None:
        while not done.is_set():
            t = time.perf_counter()
            await ping_session.send_ping()
            pings.append((time.perf_counter() - t) * 1000)
            await asyncio.sleep(0.01)

    pinger = asyncio.create_task(pinging())
    t = time.perf_counter()
    result = await session.call_tool("hostile__huge", {"mb": args.mb})
    call_ms = (time.perf_counter() - t) * 1000
    done.set()
    await pinger
    grown = (peak_rss_kb(pid) - before) / 1024
    text = "\n".join(c.text for c in result.content if c.type == "text")
    return {
        "tools_list_bytes": list_bytes,
        "remote_tools_listed": remote,
        "answer_mb": args.mb,
        "answer_chars_shown": len(text),
        "answer_is_error": bool(result.is_error),
        "answer_first_line": text.split("\n", 1)[0][:200],
        "call_ms": round(call_ms),
        "peak_rss_growth_mb": round(grown, 1),
        "pings": len(pings),
        "ping_max_ms": round(max(pings), 1),
        "ping_p50_ms": round(sorted(pings)[len(pings) // 2], 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_binary_options(ap)
    ap.add_argument("--mb", type=float, default=15)
    ap.add_argument("--tools", type=int, default=10_000)
    ap.add_argument("--http", action="store_true", help="Streamable HTTP instead of stdio")
    ap.add_argument("--sse", action="store_true", help="the remote server answers in SSE events, not JSON bodies")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sandbox = Sandbox(Path(args.sandbox), Path(tmp) / "sandbox.log")
        remote, url = hostile_server(args.tools, args.sse)
        try:
            print(json.dumps(asyncio.run(measure(args, sandbox.url, sandbox.key, url))))
        finally:
            stop(remote)
            sandbox.close()


if __name__ == "__main__":
    main()

"""What one remote MCP server may cost Herald: an answer is cut (with a
margin) before it is cleaned, so Herald's memory grows by about the answer,
not 33 times it; an answer past ``mcp.max_answer_bytes`` (a JSON body or an
SSE event) is not read past the bound and is a tool error, a warning naming
the server; a server offering 10,000 tools adds at most
``mcp.max_tools_per_server`` of them, and ``tools/list`` stays small, a
warning naming the tools dropped. Herald runs as a real process over
Streamable HTTP or stdio, joined to ``hostile_mcp_server.py`` on loopback,
read by the official Python ``mcp`` client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import LineReader, clean_env, http_session, stop, text_of
from hostile_mcp_server import SK
from hostile_reading import assert_no_secret, fenced_inner

HERE = Path(__file__).resolve().parent
CALLER = {"Authorization": "Bearer lbk_caller_key"}
MANY = 10_000
# `mcp.max_answer_bytes` by default.
ANSWER_BOUND = 4_194_304


def hostile(*args: str) -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "hostile_mcp_server.py"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=clean_env({}),
    )
    ready = json.loads(LineReader(proc.stdout).wait_for("HOSTILE_MCP_READY", timeout=30))
    yield ready["url"]
    stop(proc)


@pytest.fixture(scope="module")
def crowded() -> Iterator[str]:
    """The hostile server, offering 10,000 more tools."""
    yield from hostile("--many-tools", str(MANY))


@pytest.fixture(scope="module", params=["json", "sse"])
def framed(request) -> Iterator[tuple[str, str]]:
    """The hostile server answering in JSON bodies, or in SSE events."""
    for url in hostile(*(["--sse"] if request.param == "sse" else [])):
        yield request.param, url


def herald_env(url: str) -> dict[str, str]:
    servers = [{"name": "hostile", "url": url}]
    return {"LOREBASE__HERALD__MCP__SERVERS": json.dumps(servers), "LOREBASE__HERALD__MCP__DISCOVERY_TIMEOUT_S": "60"}


def discovered(herald) -> None:
    """Waits for the server's discovery (10,000 tools take the Python SDK a
    few seconds to list)."""
    deadline = time.monotonic() + 60
    while "remote MCP server discovered" not in herald.stderr.text():
        assert "remote MCP server skipped" not in herald.stderr.text(), herald.stderr.text()[-2000:]
        assert time.monotonic() < deadline, herald.stderr.text()[-2000:]
        time.sleep(0.1)


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set (VmHWM), in MB."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status)[1]) / 1024


def reset_peak(pid: int) -> None:
    """Brings the process's peak resident set down to its current one, so
    the next peak is the call's (discovery's peak may be higher); left as is
    where the kernel does not allow it."""
    with contextlib.suppress(OSError):
        Path(f"/proc/{pid}/clear_refs").write_text("5")


@pytest.mark.anyio
async def test_a_large_remote_answer_costs_about_its_size(binaries, sandbox, crowded, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env=herald_env(crowded))
    discovered(herald)
    async with http_session(herald.url, headers=CALLER) as session:
        # Warm up: a first answer of the same shape, small.
        await session.call_tool("hostile__huge", {"mb": 0.1})
        reset_peak(herald.proc.pid)
        before = peak_rss_mb(herald.proc.pid)
        # Under `mcp.max_answer_bytes`: read, cut, then cleaned.
        result = await session.call_tool("hostile__huge", {"mb": 3})
        grown = peak_rss_mb(herald.proc.pid) - before
    text = text_of(result)
    print(f"peak RSS growth for a 3 MB answer: {grown:.1f} MB")
    # Was ~33 times the answer: the whole answer cleaned (24 bytes a character) then cut.
    assert grown <= 60, f"peak RSS grew {grown:.0f} MB for a 3 MB answer"
    assert not result.is_error, text[:500]
    assert len(text) <= 12_000, len(text)
    inner = fenced_inner(text)
    assert_no_secret(text)
    assert SK not in text and "[redacted]" in inner, text[:500]
    assert "[fence marker removed]" in inner, text[:500]
    omitted = int(re.search(r"\[truncated: (\d+) more chars", text)[1])
    assert omitted > 2_900_000, omitted


@contextlib.asynccontextmanager
async def stdio_herald(binaries, keeper_url: str, env: dict[str, str], errlog) -> AsyncIterator[tuple[ClientSession, int]]:
    """Herald over stdio, its stderr to `errlog`: the session and its pid."""
    params = StdioServerParameters(
        command=binaries["herald"],
        env=clean_env({"LOREBASE_URL": keeper_url, "LOREBASE_DOMAIN": "supply", **env}),
    )
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session, herald_child()


def herald_child() -> int:
    """The pid of the one Herald this process started."""
    name = Path(os.environ.get("HERALD_BIN", "lorebase-herald")).name[:15]
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except (OSError, ValueError):
            continue
        comm, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
        if comm == name and int(rest[1]) == os.getpid():
            return int(entry.name)
    raise AssertionError("Herald's process not found")


async def huge_answer_beside_pings(session: ClientSession, pings: ClientSession, pid: int):
    """A 15 MB answer, a ping every 10 ms beside it: the result, Herald's peak
    RSS growth (MB) and the slowest ping (ms)."""
    # Warm up: a first answer of the same shape, small.
    await session.call_tool("hostile__huge", {"mb": 0.1})
    reset_peak(pid)
    before = peak_rss_mb(pid)
    slowest = 0.0
    done = asyncio.Event()

    async def pinging() -> None:
        nonlocal slowest
        while not done.is_set():
            t = time.perf_counter()
            await pings.send_ping()
            slowest = max(slowest, time.perf_counter() - t)
            await asyncio.sleep(0.01)

    pinger = asyncio.create_task(pinging())
    result = await session.call_tool("hostile__huge", {"mb": 15})
    done.set()
    await pinger
    return result, peak_rss_mb(pid) - before, slowest * 1000


def assert_refused_unread(result, grown: float, slowest_ms: float) -> None:
    text = text_of(result)
    print(f"a 15 MB answer: peak RSS growth {grown:.1f} MB, slowest ping {slowest_ms:.0f} ms")
    assert result.is_error, text[:300]
    first, next_line = text.split("\n")
    assert first.startswith(
        f'[remote-error] the answer of hostile__huge from the MCP server "hostile" is larger than {ANSWER_BOUND} bytes (mcp.max_answer_bytes)'
    ), text
    assert next_line.startswith("next: "), text
    # Read up to the bound at most, never the 15 MB (debug build, loaded machine: loose).
    assert grown <= 60, f"peak RSS grew {grown:.0f} MB for a 15 MB answer"
    assert slowest_ms <= 1000, f"a ping waited {slowest_ms:.0f} ms beside the answer"


@pytest.mark.anyio
async def test_an_answer_past_the_answer_bound_is_refused_unread_over_http(binaries, sandbox, framed, http_herald_factory):
    framing, url = framed
    herald = http_herald_factory(sandbox.url, env=herald_env(url))
    discovered(herald)
    async with http_session(herald.url, headers=CALLER) as session, http_session(herald.url, headers=CALLER) as pings:
        result, grown, slowest = await huge_answer_beside_pings(session, pings, herald.proc.pid)
        assert_refused_unread(result, grown, slowest)
        # The session with the server is still good.
        after = await session.call_tool("hostile__leak", {"case": "bel"})
        assert not after.is_error, text_of(after)[:300]
    warned = herald.stderr.lines_matching(lambda line: "WARN" in line and "mcp.max_answer_bytes" in line)
    assert warned and "hostile" in warned[0], herald.stderr.text()[-2000:]


@pytest.mark.anyio
async def test_an_answer_past_the_answer_bound_is_refused_unread_over_stdio(binaries, sandbox, framed, tmp_path):
    framing, url = framed
    log = tmp_path / "herald.log"
    with log.open("w") as errlog:
        async with stdio_herald(binaries, sandbox.url, herald_env(url), errlog) as (session, pid):
            deadline = time.monotonic() + 60
            while "remote MCP server discovered" not in log.read_text():
                assert time.monotonic() < deadline, log.read_text()[-2000:]
                await asyncio.sleep(0.1)
            result, grown, slowest = await huge_answer_beside_pings(session, session, pid)
            assert_refused_unread(result, grown, slowest)
            after = await session.call_tool("hostile__leak", {"case": "bel"})
            assert not after.is_error, text_of(after)[:300]
    warned = [line for line in log.read_text().splitlines() if "WARN" in line and "mcp.max_answer_bytes" in line]
    assert warned and "hostile" in warned[0], log.read_text()[-2000:]


@pytest.mark.anyio
async def test_a_server_offering_10000_tools_adds_at_most_its_bound(binaries, sandbox, crowded, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env=herald_env(crowded))
    discovered(herald)
    async with http_session(herald.url, headers=CALLER) as session:
        listed = await session.list_tools()
    remote = [t.name for t in listed.tools if t.name.startswith("hostile__")]
    assert len(remote) == 128, len(remote)
    assert "hostile__leak" in remote and "hostile__huge" in remote, remote[:20]
    size = len(json.dumps(listed.model_dump(by_alias=True, exclude_none=True)))
    assert size <= 1_000_000, size
    stop(herald.proc)
    herald.stderr.join()
    logs = herald.stderr.text()
    assert "mcp.max_tools_per_server" in logs and "bulk_" in logs, logs[-2000:]
    assert re.search(r"dropped \d+ tools", logs), logs[-2000:]

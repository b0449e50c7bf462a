"""What one remote MCP server may cost Herald: a 15 MB answer is cut (with a
margin) before it is cleaned, so Herald's memory grows by about the answer,
not 33 times it; a server offering 10,000 tools adds at most
``mcp.max_tools_per_server`` of them, and ``tools/list`` stays small, a
warning naming the tools dropped. Herald runs as a real process over
Streamable HTTP, joined to ``hostile_mcp_server.py`` on loopback, read by the
official Python ``mcp`` client.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import LineReader, clean_env, http_session, stop, text_of
from hostile_mcp_server import SK
from hostile_reading import assert_no_secret, fenced_inner

HERE = Path(__file__).resolve().parent
CALLER = {"Authorization": "Bearer lbk_caller_key"}
MANY = 10_000


@pytest.fixture(scope="module")
def crowded() -> Iterator[str]:
    """The hostile server, offering 10,000 more tools."""
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "hostile_mcp_server.py"), "--many-tools", str(MANY)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=clean_env({}),
    )
    ready = json.loads(LineReader(proc.stdout).wait_for("HOSTILE_MCP_READY", timeout=30))
    yield ready["url"]
    stop(proc)


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


@pytest.mark.anyio
async def test_a_large_remote_answer_costs_about_its_size(binaries, sandbox, crowded, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env=herald_env(crowded))
    discovered(herald)
    async with http_session(herald.url, headers=CALLER) as session:
        # Warm up: a first answer of the same shape, small.
        await session.call_tool("hostile__huge", {"mb": 0.1})
        before = peak_rss_mb(herald.proc.pid)
        result = await session.call_tool("hostile__huge", {"mb": 15})
        grown = peak_rss_mb(herald.proc.pid) - before
    text = text_of(result)
    print(f"peak RSS growth for a 15 MB answer: {grown:.1f} MB")
    # Was ~500 MB: the whole answer cleaned (24 bytes a character) then cut.
    assert grown <= 100, f"peak RSS grew {grown:.0f} MB for a 15 MB answer"
    assert not result.is_error, text[:500]
    assert len(text) <= 12_000, len(text)
    inner = fenced_inner(text)
    assert_no_secret(text)
    assert SK not in text and "[redacted]" in inner, text[:500]
    assert "[fence marker removed]" in inner, text[:500]
    omitted = int(re.search(r"\[truncated: (\d+) more chars", text)[1])
    assert omitted > 14_900_000, omitted


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

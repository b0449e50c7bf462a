"""Remote MCP servers (`mcp.servers`) join the in-process toolbox: a server
written with the official Python SDK, on a loopback port, its allowlisted tool
discovered when the Herald is built and called through it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from conftest import Sandbox

REMOTE_SERVER = Path(__file__).resolve().parents[2] / "tests" / "python" / "remote_mcp_server.py"


@pytest.fixture()
def remote_url() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, str(REMOTE_SERVER), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("REMOTE_MCP_READY "):
                yield json.loads(line.split(" ", 1)[1])["url"]
                break
        else:
            pytest.fail("the remote MCP server did not start")
    finally:
        proc.kill()
        proc.wait()


def test_remote_tools_join_the_toolbox(sandbox: Sandbox, remote_url: str) -> None:
    from lorebase_herald import Herald

    herald = Herald(
        url=sandbox.url,
        domain="supply",
        mcp={"servers": [{"name": "py", "url": remote_url, "tools": ["add"]}]},
    )
    names = [tool["name"] for tool in herald.list_tools()]
    assert "py__add" in names
    assert "py__shout" not in names  # not on the allowlist: never registered
    result = herald.call_tool("py__add", {"a": 2, "b": 3})
    assert not result.is_error, result.text
    assert "5" in result.text


def test_an_unreachable_remote_server_is_skipped(sandbox: Sandbox) -> None:
    from lorebase_herald import Herald

    herald = Herald(
        url=sandbox.url,
        domain="supply",
        mcp={"servers": [{"name": "gone", "url": "http://127.0.0.1:9/mcp"}], "discovery_timeout_s": 5},
    )
    names = [tool["name"] for tool in herald.list_tools()]
    assert "lorebase_get" in names
    assert not any(name.startswith("gone__") for name in names)

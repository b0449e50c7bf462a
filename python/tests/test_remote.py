"""Remote MCP servers (`mcp.servers`) join the in-process toolbox: a server
written with the official Python SDK, on a loopback port, its allowlisted tool
discovered when the Herald is built and called through it."""

from __future__ import annotations

from typing import Iterator

import pytest

from conftest import Sandbox, remote_mcp_server

@pytest.fixture()
def remote_url() -> Iterator[str]:
    with remote_mcp_server() as url:
        yield url


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

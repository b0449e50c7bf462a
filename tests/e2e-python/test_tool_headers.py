"""Tool sets per request over Streamable HTTP: X-MCP-Readonly,
X-MCP-Toolsets and X-MCP-Tools narrow what one request lists and may call,
the same for tools/list and tools/call, and never widen the settings."""

from __future__ import annotations

import httpx2
import pytest
from conftest import http_session, text_of
from mcp.shared.exceptions import MCPError

ALL_READS = [
    "lorebase_context", "lorebase_schema", "lorebase_get", "lorebase_resolve", "lorebase_query",
    "lorebase_search", "lorebase_neighborhood", "lorebase_explain", "lorebase_history",
    "lorebase_lineage", "lorebase_changes", "lorebase_diff", "lorebase_branches",
]
KEY = {"Authorization": "Bearer any-key"}


async def served(url: str, headers: dict[str, str]) -> list[str]:
    async with http_session(url, headers={**KEY, **headers}) as s:
        return [t.name for t in (await s.list_tools()).tools]


async def refused(url: str, headers: dict[str, str], tool: str, arguments: dict) -> str:
    async with http_session(url, headers={**KEY, **headers}) as s:
        with pytest.raises(MCPError) as raised:
            await s.call_tool(tool, arguments)
        return str(raised.value)


@pytest.mark.anyio
async def test_headers_narrow_list_and_call_alike(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url)
    assert await served(herald.url, {}) == [*ALL_READS[:12], "lorebase_execute", "lorebase_branches"]
    assert await served(herald.url, {"X-MCP-Readonly": "true"}) == ALL_READS
    assert await served(herald.url, {"X-MCP-Readonly": "false"}) == await served(herald.url, {})
    narrowed = {"X-MCP-Toolsets": "provenance", "X-MCP-Tools": "lorebase_get"}
    assert await served(herald.url, narrowed) == [
        "lorebase_get", "lorebase_explain", "lorebase_history", "lorebase_lineage",
    ]
    assert await served(herald.url, {"X-MCP-Toolsets": "revisions, agent", "X-MCP-Readonly": "1"}) == [
        "lorebase_context", "lorebase_changes", "lorebase_diff", "lorebase_branches",
    ]
    # tools/call agrees with tools/list: a tool outside the set is unknown.
    message = await refused(
        herald.url, {"X-MCP-Readonly": "yes"}, "lorebase_execute", {"operation": "flag_supplier_risk", "parameters": {}}
    )
    assert "Unknown tool" in message
    assert "Unknown tool" in await refused(herald.url, narrowed, "lorebase_schema", {})
    async with http_session(herald.url, headers={**KEY, **narrowed}) as s:
        result = await s.call_tool("lorebase_history", {"ref": "Supplier/S-1001", "limit": 1})
        assert not result.is_error, text_of(result)


@pytest.mark.anyio
async def test_headers_never_widen_the_settings(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url, args=["--read-only", "--exclude-tools", "lorebase_diff"])
    wide = {"X-MCP-Tools": "lorebase_execute,lorebase_diff,lorebase_get", "X-MCP-Readonly": "false"}
    assert await served(herald.url, wide) == ["lorebase_get"]
    message = await refused(herald.url, wide, "lorebase_execute", {"operation": "x", "parameters": {}})
    assert "Unknown tool" in message
    assert "Unknown tool" in await refused(herald.url, wide, "lorebase_diff", {"from_revision": "a", "to_revision": "b"})


@pytest.mark.anyio
async def test_unknown_names_are_refused_with_400(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url)
    answer = httpx2.post(
        herald.url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={
            **KEY,
            "accept": "application/json, text/event-stream",
            "X-MCP-Toolsets": "reeds",
            "X-MCP-Tools": "lorebase_gte",
        },
        timeout=10,
    )
    assert answer.status_code == 400
    message = answer.json()["error"]["message"]
    assert 'toolset "reeds"' in message and 'tool "lorebase_gte"' in message
    assert "reads, provenance, revisions, agent, kb, remote" in message


@pytest.mark.anyio
async def test_the_headers_can_be_ignored_by_setting(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env={"LOREBASE__HERALD__HTTP__TOOL_HEADERS": "false"})
    assert "lorebase_execute" in await served(herald.url, {"X-MCP-Readonly": "true", "X-MCP-Tools": "nope"})


@pytest.mark.anyio
async def test_the_kb_group(sandbox, http_herald_factory, tmp_path):
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "note.md").write_text("---\ntitle: Harbor\n---\nharbor\n")
    herald = http_herald_factory(sandbox.url, args=["--kb", str(tmp_path / "kb")])
    assert await served(herald.url, {"X-MCP-Toolsets": "kb"}) == ["kb_search", "kb_get"]
    assert await served(herald.url, {"X-MCP-Toolsets": "kb", "X-MCP-Tools": "lorebase_get"}) == [
        "lorebase_get", "kb_search", "kb_get",
    ]

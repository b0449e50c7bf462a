"""Protocol revisions: the initialize handshake of 2024-11-05 through
2025-11-25, the stateless 2026-07-28 lifecycle (server/discover, no
initialize), and stateless Streamable HTTP (no session: any replica serves
any call)."""

from __future__ import annotations

import json

import httpx2
import pytest

from conftest import http_session, stdio_session, text_of

pytestmark = pytest.mark.anyio

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
HANDSHAKE_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]


def initialize(version: str) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
    }


@pytest.fixture
def herald(sandbox, http_herald_factory):
    return http_herald_factory(sandbox.url, env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"})


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
def test_handshake_revisions_negotiate(herald, version):
    with httpx2.Client(timeout=30) as c:
        r = c.post(herald.url, content=json.dumps(initialize(version)), headers=HEADERS)
    assert r.status_code == 200
    assert r.json()["result"]["protocolVersion"] == version
    assert r.json()["result"]["serverInfo"]["name"] == "lorebase-herald"


def test_an_unknown_revision_gets_a_supported_one(herald):
    with httpx2.Client(timeout=30) as c:
        r = c.post(herald.url, content=json.dumps(initialize("2031-01-01")), headers=HEADERS)
    assert r.json()["result"]["protocolVersion"] in HANDSHAKE_VERSIONS


def test_stateless_http_needs_no_session(herald):
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001"}},
    }
    with httpx2.Client(timeout=30) as c:
        r = c.post(herald.url, content=json.dumps(call), headers={**HEADERS, "mcp-protocol-version": "2025-11-25"})
        assert r.status_code == 200, r.text
        assert "mcp-session-id" not in r.headers
        assert r.headers["content-type"].startswith("application/json")
        assert "Kavsen Alloys" in r.json()["result"]["content"][0]["text"]
        assert c.get(herald.url, headers={"accept": "text/event-stream"}).status_code == 405


async def test_2026_07_28_over_http_without_initialize(herald):
    async with http_session(herald.url, initialize=False) as session:
        discovered = await session.discover()
        assert "2026-07-28" in discovered.supported_versions
        assert session.protocol_version == "2026-07-28"
        tools = [t.name for t in (await session.list_tools()).tools]
        assert "lorebase_get" in tools
        result = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
        assert not result.is_error and "Kavsen Alloys" in text_of(result)
        schema = await session.read_resource("lorebase://supply/schema")
        assert "Supplier" in schema.contents[0].text


async def test_2026_07_28_over_stdio_without_initialize(binaries, sandbox):
    async with stdio_session(binaries, sandbox.url, initialize=False) as session:
        discovered = await session.discover()
        assert "2026-07-28" in discovered.supported_versions
        result = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
        assert not result.is_error and "Kavsen Alloys" in text_of(result)


async def test_sessions_mode_when_stateless_is_off(sandbox, http_herald_factory):
    herald = http_herald_factory(
        sandbox.url,
        env={
            "LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true",
            "LOREBASE__HERALD__HTTP__STATELESS": "false",
            "LOREBASE__HERALD__HTTP__JSON_RESPONSE": "false",
        },
    )
    async with http_session(herald.url) as session:
        result = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
        assert not result.is_error and "Kavsen Alloys" in text_of(result)

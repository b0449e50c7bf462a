"""The MCP Apps views (extension io.modelcontextprotocol/ui): only a client
that declares the extension with the text/html;profile=mcp-app MIME type sees
`_meta.ui` on tools and the ui:// resources; every other client gets the same
answers as before, and the tool results (what the model reads) never change."""

from __future__ import annotations

import contextlib
import json
import os

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from conftest import clean_env, text_of

pytestmark = pytest.mark.anyio

UI = "io.modelcontextprotocol/ui"
MIME = "text/html;profile=mcp-app"
DECLARED = {UI: {"mimeTypes": [MIME]}}
VIEWS = {
    "lorebase_neighborhood": "ui://lorebase-herald/graph.html",
    "lorebase_context": "ui://lorebase-herald/graph.html",
    "lorebase_lineage": "ui://lorebase-herald/provenance.html",
    "lorebase_explain": "ui://lorebase-herald/provenance.html",
    "lorebase_history": "ui://lorebase-herald/provenance.html",
    "lorebase_query": "ui://lorebase-herald/query.html",
}


@contextlib.asynccontextmanager
async def session(binaries, keeper_url, extensions=None, env=None):
    params = StdioServerParameters(
        command=binaries["herald"],
        env=clean_env({"LOREBASE_URL": keeper_url, "LOREBASE_DOMAIN": "supply", **(env or {})}),
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, extensions=extensions) as s:
                init = await s.initialize()
                yield s, init


def dump(model) -> str:
    return json.dumps(model.model_dump(mode="json", by_alias=True, exclude_none=True), sort_keys=True)


async def answers(s: ClientSession) -> dict[str, str]:
    tools = await s.list_tools()
    resources = await s.list_resources()
    calls = {
        "lorebase_neighborhood": {"seeds": ["Supplier/S-1001"], "depth": 1},
        "lorebase_lineage": {"ref": "Supplier/S-1001"},
        "lorebase_query": {"query": {"kind": "Supplier", "aggregate": {"group_by": "country"}}},
    }
    out = {"tools": dump(tools), "resources": dump(resources)}
    for name, args in calls.items():
        out[name] = dump(await s.call_tool(name, args))
    return out


async def test_a_client_declaring_the_extension_sees_the_views(binaries, sandbox):
    async with session(binaries, sandbox.url, DECLARED) as (s, init):
        assert init.capabilities.model_dump(by_alias=True)["extensions"][UI]["mimeTypes"] == [MIME]
        tools = {t.name: t for t in (await s.list_tools()).tools}
        for name, uri in VIEWS.items():
            assert tools[name].meta["ui"] == {"resourceUri": uri, "visibility": ["model", "app"]}, name
        # A view may never call a write.
        assert tools["lorebase_execute"].meta["ui"] == {"visibility": ["model"]}
        assert "ui" not in (tools["lorebase_get"].meta or {})
        listed = {str(r.uri): r for r in (await s.list_resources()).resources}
        for uri in set(VIEWS.values()):
            assert listed[uri].mime_type == MIME
            read = await s.read_resource(uri)
            content = read.contents[0]
            assert content.mime_type == MIME and content.text.startswith("<!DOCTYPE html>")
            assert content.meta["ui"]["csp"] == {}


async def test_other_clients_get_the_same_answers_and_the_model_the_same_results(binaries, sandbox):
    async with session(binaries, sandbox.url) as (s, init):
        plain = await answers(s)
        assert UI not in (init.capabilities.model_dump(by_alias=True, exclude_none=True).get("extensions") or {})
        with pytest.raises(Exception):
            await s.read_resource("ui://lorebase-herald/graph.html")
    async with session(binaries, sandbox.url, env={"LOREBASE__HERALD__UI__ENABLED": "false"}) as (s, _):
        assert await answers(s) == plain
    async with session(binaries, sandbox.url, {UI: {"mimeTypes": ["text/html"]}}) as (s, _):
        assert await answers(s) == plain
    async with session(binaries, sandbox.url, DECLARED) as (s, _):
        ui = await answers(s)
    # The tool results (what the model reads) are the same for a UI client.
    for name in ("lorebase_neighborhood", "lorebase_lineage", "lorebase_query"):
        assert ui[name] == plain[name], name
    assert "_meta" not in plain["tools"] or '"ui"' not in plain["tools"]
    stripped = json.loads(ui["tools"])
    for t in stripped["tools"]:
        t.get("_meta", {}).pop("ui", None)
        if t.get("_meta") == {}:
            del t["_meta"]
    assert json.dumps(stripped, sort_keys=True) == plain["tools"]


async def test_views_over_streamable_http_with_sessions(binaries, sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env={"LOREBASE__HERALD__HTTP__STATELESS": "false"})
    headers = {"Authorization": "Bearer k"}
    async with create_mcp_http_client(headers=headers) as client:
        async with streamable_http_client(herald.url, http_client=client) as (read, write):
            async with ClientSession(read, write, extensions=DECLARED) as s:
                await s.initialize()
                tools = {t.name: t for t in (await s.list_tools()).tools}
                assert tools["lorebase_neighborhood"].meta["ui"]["resourceUri"] == VIEWS["lorebase_neighborhood"]
                read = await s.read_resource("ui://lorebase-herald/graph.html")
                assert read.contents[0].text.startswith("<!DOCTYPE html>")
                result = await s.call_tool("lorebase_neighborhood", {"seeds": ["Supplier/S-1001"], "depth": 1, "format": "json"})
                assert json.loads(text_of(result))["nodes"], text_of(result)

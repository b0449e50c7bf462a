"""The model's side of the door, through the official Python `mcp`
SDK over real stdio pipes and real HTTP, against the sandbox Keeper:

- the arguments hosts add for themselves (Gemini CLI's `wait_for_previous`)
  are accepted and ignored, any other unknown argument is still refused;
- `lorebase_context` asks hosts that defer tools to keep it loaded
  (`_meta["anthropic/alwaysLoad"]`), unless `tools.always_load_context` is off;
- the server instructions open, in a first line within the 247 characters the shortest host
  cut keeps, with what Herald is, the start and the one write, then name
  every served tool;
- a 2026-07-28 host's `server/discover` gets that revision's capabilities (no
  `logging`) and a real cache lifetime, as does its `tools/list`; an older
  revision's `initialize` is unchanged.

docs/hosts.md says what each host does with these."""

from __future__ import annotations

import json

import httpx2
import pytest

from calls import TOOL_NAMES
from conftest import http_session, stdio_session, text_of

pytestmark = pytest.mark.anyio

GET = {"ref": "Supplier/S-1001"}


async def test_a_host_added_argument_is_ignored_over_stdio(binaries, sandbox):
    async with stdio_session(binaries, sandbox.url) as s:
        plain = await s.call_tool("lorebase_get", GET)
        added = await s.call_tool("lorebase_get", {**GET, "wait_for_previous": True})
        assert not added.is_error, text_of(added)
        assert text_of(added) == text_of(plain)
        assert text_of(added).startswith("Supplier/S-1001")
        typo = await s.call_tool("lorebase_get", {**GET, "wait_for_previou": True})
        assert typo.is_error
        assert text_of(typo).startswith("[validation-failed] unknown argument `wait_for_previou`")
        assert "\nnext: " in text_of(typo)


async def test_a_host_added_argument_is_ignored_over_http(http_herald_factory, secured_sandbox):
    herald = http_herald_factory(secured_sandbox.url)
    key = secured_sandbox.keys["usr_steward"]
    async with http_session(herald.url, {"Authorization": f"Bearer {key}"}) as s:
        for tool, args in [
            ("lorebase_get", GET),
            ("lorebase_history", {**GET, "limit": 1}),
            ("lorebase_schema", {"kinds": ["Supplier"]}),
        ]:
            r = await s.call_tool(tool, {**args, "wait_for_previous": False})
            assert not r.is_error, f"{tool}: {text_of(r)}"
        r = await s.call_tool("lorebase_get", {**GET, "wait_for_previous": True, "extra": 1})
        assert r.is_error and "unknown argument `extra`" in text_of(r), text_of(r)
        assert "wait_for_previous" not in text_of(r).splitlines()[0]


async def test_lorebase_context_alone_stays_loaded_unless_turned_off(binaries, sandbox):
    async with stdio_session(binaries, sandbox.url) as s:
        tools = (await s.list_tools()).tools
        marked = [t.name for t in tools if (t.meta or {}).get("anthropic/alwaysLoad") is True]
        assert marked == ["lorebase_context"]
        assert [t.name for t in tools] == TOOL_NAMES
    env = {"LOREBASE__HERALD__TOOLS__ALWAYS_LOAD_CONTEXT": "false"}
    async with stdio_session(binaries, sandbox.url, env=env) as s:
        tools = (await s.list_tools()).tools
        assert not any((t.meta or {}).get("anthropic/alwaysLoad") for t in tools)
        assert all((t.meta or {}).get("anthropic/searchHint") for t in tools)


async def test_the_instructions_open_with_the_start_and_the_write(binaries, sandbox):
    async with stdio_session(binaries, sandbox.url, initialize=False) as s:
        info = await s.initialize()
    text = info.instructions or ""
    # The first line alone is what Codex's code mode shows (cut at 247 characters): the workflow's core.
    opening = text.split("\n", 1)[0]
    assert len(opening) <= 247, len(opening)
    for needed in ("Lorebase", "Start every task with lorebase_context", "lorebase_execute is the only write",
                   "dry run first", "expected_head"):
        assert needed in opening, opening
    for name in TOOL_NAMES:
        assert name in text, f"{name} not in the instructions"
    for shared in ("`domain`", "`branch`", "`at`", "`format`", "`cursor`"):
        assert shared in text, shared


def post(url: str, method: str, body: dict, version: str) -> httpx2.Response:
    return httpx2.post(
        url,
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": version,
            "Mcp-Method": method,
        },
        content=json.dumps(body),
        timeout=10,
    )


META_2026 = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
}


def test_a_2026_07_28_host_is_told_what_that_revision_defines(http_herald_factory, sandbox):
    herald = http_herald_factory(sandbox.url, env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"})
    r = post(herald.url, "server/discover",
             {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META_2026}},
             "2026-07-28")
    assert r.status_code == 200, r.text
    found = r.json()["result"]
    assert "2026-07-28" in found["supportedVersions"]
    assert "logging" not in found["capabilities"], found["capabilities"]
    assert set(found["capabilities"]) >= {"tools", "resources", "prompts", "completions"}
    assert found["ttlMs"] == 3_600_000
    assert found["instructions"].startswith("Lorebase Herald")
    listed = post(herald.url, "tools/list",
                  {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": META_2026}},
                  "2026-07-28").json()["result"]
    assert listed["ttlMs"] == 3_600_000
    assert len(listed["tools"]) == 14
    # An older revision: initialize still declares logging, and its tools/list
    # carries no cache hints (2025-11-25 defines none).
    init = post(herald.url, "initialize", {
        "jsonrpc": "2.0", "id": 3, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}}, "2025-11-25")
    assert "logging" in init.json()["result"]["capabilities"]
    old = post(herald.url, "tools/list", {"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
               "2025-11-25").json()["result"]
    assert "ttlMs" not in old


async def test_the_search_hints_carry_the_domains_words_over_stdio_only(binaries, sandbox, http_herald_factory):
    """Over stdio (every call carries the configured credential) Herald reads the Domain's schema
    when the host first lists the tools, and each hint carries the words an agent would use it with
    (Claude Code matches them, tests/hosts/test_tool_search.py): the plural Kind names on
    lorebase_query, the Operations on lorebase_execute, none on lorebase_branches. Over Streamable
    HTTP, whose callers each have their own grants, the hints stay static."""
    async with stdio_session(binaries, sandbox.url) as s:
        hints = {t.name: (t.meta or {}).get("anthropic/searchHint", "") for t in (await s.list_tools()).tools}
    assert "purchase orders" in hints["lorebase_query"], hints["lorebase_query"]
    assert "flag supplier risk" in hints["lorebase_execute"], hints["lorebase_execute"]
    assert "supplier" not in hints["lorebase_branches"]
    assert all(0 < len(h) <= 4096 for h in hints.values())
    herald = http_herald_factory(sandbox.url)
    async with http_session(herald.url) as s:
        shared = {t.name: (t.meta or {}).get("anthropic/searchHint", "") for t in (await s.list_tools()).tools}
    assert shared["lorebase_query"] and "purchase orders" not in shared["lorebase_query"]

"""Hostile arguments through the real server: every tool error
stays within output.max_chars and never echoes a large argument back whole,
over stdio with the official Python MCP SDK against the sandbox Keeper; and
params of the wrong shape are invalid params (-32602), over stdio and HTTP.
"""

from __future__ import annotations

import json
import re
import subprocess

import httpx2
import pytest

from conftest import clean_env, stdio_session, text_of

pytestmark = pytest.mark.anyio

MAX_CHARS = 12_000  # output.max_chars, default
MAX_VALUE_CHARS = 500  # output.max_value_chars, default
BIG = "A" * 1_000_000
SUPPLIER = "Supplier/S-1001"

# (what, tool, arguments): each sends 1 MB somewhere a tool error echoes it.
HUGE_ECHOES = [
    ("a 1 MB ref", "lorebase_get", {"ref": BIG}),
    ("a 1 MB format", "lorebase_get", {"ref": SUPPLIER, "format": BIG}),
    ("a 1 MB links", "lorebase_get", {"ref": SUPPLIER, "links": BIG}),
    (
        "a 1 MB where.attr (Keeper's 422 echoes it)",
        "lorebase_query",
        {"query": {"kind": "Supplier", "where": {"attr": BIG, "op": "eq", "value": 1}}},
    ),
    (
        "a 1 MB parameter name (Keeper's 422 echoes it in path and message)",
        "lorebase_execute",
        {"operation": "update_supplier", "parameters": {BIG: 1}},
    ),
    ("a 1 MB unknown argument name", "lorebase_get", {"ref": SUPPLIER, BIG: 1}),
]


def assert_error_shape(text: str) -> list[str]:
    lines = text.split("\n")
    assert re.match(r"^\[[a-z-]+\] ", lines[0]), text[:300]
    assert lines[-1].startswith("next: "), text[-300:]
    assert len(text) <= MAX_CHARS, len(text)
    return lines


async def test_huge_arguments_come_back_cut_once(binaries, sandbox):
    async with stdio_session(binaries, sandbox.url) as session:
        for what, tool, arguments in HUGE_ECHOES:
            result = await session.call_tool(tool, arguments)
            text = text_of(result)
            assert result.is_error, what
            lines = assert_error_shape(text)
            # Each field is at most max_value_chars plus its cut marker: the
            # value is never back whole, nor twice in full.
            assert len(text) < 4 * MAX_VALUE_CHARS, (what, len(text))
            assert "A" * MAX_VALUE_CHARS not in text, what
            assert "[truncated: " in text, (what, text)
            assert text.startswith("[validation-failed]"), (what, lines[0][:200])


async def test_a_keeper_422_with_300_issues_fills_max_chars_then_counts(binaries, sandbox):
    parameters = {f"p{i}": 1 for i in range(300)}
    async with stdio_session(binaries, sandbox.url) as session:
        result = await session.call_tool(
            "lorebase_execute", {"operation": "update_supplier", "parameters": parameters}
        )
    text = text_of(result)
    assert result.is_error
    lines = assert_error_shape(text)
    issues = [line for line in lines if line.startswith("  parameters.p")]
    assert 100 < len(issues) < 300, len(issues)
    more = re.fullmatch(r"  \.\.\. (\d+) more issues", lines[-2])
    assert more, lines[-2]
    # Keeper's 300 unknown names plus its own issues: all accounted for.
    assert len(issues) + int(more.group(1)) >= 300
    assert len(text) > MAX_CHARS - 200, len(text)


CALL_WITH_ARRAY = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "lorebase_get", "arguments": [SUPPLIER]},
}


def test_arguments_as_an_array_are_invalid_params_over_stdio(binaries, sandbox):
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        CALL_WITH_ARRAY,
        {**CALL_WITH_ARRAY, "id": 3, "params": {"name": 5, "arguments": {}}},
        {"jsonrpc": "2.0", "id": 4, "method": "no/such/method", "params": {}},
    ]
    proc = subprocess.run(
        [binaries["herald"]],
        input="".join(json.dumps(m) + "\n" for m in messages).encode(),
        capture_output=True,
        env=clean_env({"LOREBASE_URL": sandbox.url, "LOREBASE_DOMAIN": "supply"}),
        timeout=60,
    )
    by_id = {m.get("id"): m for m in map(json.loads, proc.stdout.decode().splitlines())}
    assert by_id[2]["error"]["code"] == -32602, by_id[2]
    assert "`arguments`" in by_id[2]["error"]["message"]
    assert by_id[3]["error"]["code"] == -32602, by_id[3]
    assert "`name`" in by_id[3]["error"]["message"]
    assert by_id[4]["error"]["code"] == -32601, by_id[4]


def test_arguments_as_an_array_are_invalid_params_over_http(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"})
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": "2025-11-25",
    }
    with httpx2.Client(timeout=30) as c:
        r = c.post(herald.url, content=json.dumps(CALL_WITH_ARRAY), headers=headers)
    assert r.json()["error"]["code"] == -32602, r.text
    assert "`arguments`" in r.json()["error"]["message"]


@pytest.mark.anyio
async def test_every_bad_argument_comes_in_one_answer(binaries, sandbox):
    async with stdio_session(binaries, sandbox.url) as session:
        result = await session.call_tool("lorebase_history", {"ref": "bad", "limit": 9999})
        assert result.is_error and result.structured_content is None
        lines = text_of(result).split("\n")
        assert lines[0] == "[validation-failed] invalid arguments `ref`, `limit`", lines
        assert lines[1].startswith("  ref: "), lines
        assert lines[2] == "  limit: must be between 1 and 200", lines
        assert lines[3] == "next: fix the issues above (one per line, with its path), then call again"
        assert len(lines) == 4, lines
        # One bad argument alone keeps today's message.
        alone = text_of(await session.call_tool("lorebase_history", {"ref": "Supplier/S-1001", "limit": 0}))
        assert alone.split("\n")[0] == "[validation-failed] invalid argument `limit`", alone

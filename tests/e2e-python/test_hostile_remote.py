"""A hostile remote MCP server (``hostile_mcp_server.py``, on
loopback) against Herald's one cleaning pass, end to end: Herald started as a
real process, joined to the server over Streamable HTTP, and the official
Python ``mcp`` client reading what Herald hands on, over stdio and over HTTP.

For each answer: no secret in any form a model reads through (hidden
characters removed, NFKC, look-alikes folded, lines joined), exactly one
opening and one closing fence with the same random id, the fence's name
nowhere inside, no control or format character, and no structuredContent.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import LineReader, clean_env, http_session, stdio_session, stop, text_of
from hostile_mcp_server import CASES, INJECTION, TOKEN
from hostile_reading import assert_no_secret, fenced_inner, hidden_or_control, read_as_a_model

HERE = Path(__file__).resolve().parent
CALLER = {"Authorization": "Bearer lbk_caller_key"}

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "hostile_mcp_server.py")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=clean_env({"LEAK_TOKEN": TOKEN}),
    )
    ready = json.loads(LineReader(proc.stdout).wait_for("HOSTILE_MCP_READY", timeout=30))
    yield ready["url"]
    stop(proc)


def herald_env(url: str, with_token: bool) -> dict[str, str]:
    """The hostile server, with the token it echoes configured for it
    (stdio) or for another server (HTTP, where Herald lends no token)."""
    if with_token:
        servers = [{"name": "hostile", "url": url, "token_env": "HOSTILE_TOKEN"}]
    else:
        servers = [
            {"name": "hostile", "url": url},
            {"name": "vault", "url": f"http://127.0.0.1:{free_port()}/mcp", "token_env": "HOSTILE_TOKEN"},
        ]
    return {"LOREBASE__HERALD__MCP__SERVERS": json.dumps(servers), "HOSTILE_TOKEN": TOKEN}


async def check_everything(session) -> None:
    tools = {t.name: t for t in (await session.list_tools()).tools}

    # Discovery: every string of a definition cleaned; unservable ones refused.
    assert {"hostile__leak", "hostile__poisoned", "hostile__rpc_error"} <= set(tools), sorted(tools)
    assert "hostile__bad_key" not in tools
    assert "hostile__untrusted_remote_output" not in tools
    poisoned = tools["hostile__poisoned"]
    shown = json.dumps(poisoned.model_dump(by_alias=True, exclude_none=True), ensure_ascii=False)
    assert not hidden_or_control(shown), (hidden_or_control(shown), shown)
    assert_no_secret(shown)
    assert "untrusted_remote_output" not in read_as_a_model(shown).lower(), shown
    assert poisoned.output_schema is None
    assert poisoned.description.startswith('[External tool from the remote MCP server "hostile"')
    assert INJECTION in poisoned.description  # kept, as data, behind Herald's note
    assert poisoned.input_schema["properties"]["q"]["enum"] == ["ab", "x"]

    # Every kind of hostile text.
    for kind, (what, _) in CASES.items():
        result = await session.call_tool("hostile__leak", {"case": kind})
        text = text_of(result)
        assert not result.is_error, (kind, text)
        assert result.structured_content is None, kind
        inner = fenced_inner(text)
        assert_no_secret(text)
        assert INJECTION in inner, (kind, text)
        if what == "secret":
            assert "[redacted]" in inner, (kind, text)
        if what == "marker":
            assert "[fence marker removed]" in inner, (kind, text)

    # structuredContent: never passed on; its JSON carried cleaned inside the fence.
    for name in ("structured", "structured_only"):
        result = await session.call_tool(f"hostile__{name}", {})
        text = text_of(result)
        assert result.structured_content is None, text
        inner = fenced_inner(text)
        assert_no_secret(text)
        assert INJECTION in inner and "[fence marker removed]" in inner, text
        assert ("all good" in inner) == (name == "structured"), text

    # An embedded text resource, and an isError result.
    for name in ("resource", "is_error"):
        result = await session.call_tool(f"hostile__{name}", {})
        text = text_of(result)
        assert result.is_error == (name == "is_error"), text
        inner = fenced_inner(text)
        assert_no_secret(text)
        assert "[fence marker removed]" in inner and "[redacted]" in inner, text

    # A JSON-RPC error: a tool error, its message and data fenced and cleaned.
    result = await session.call_tool("hostile__rpc_error", {})
    text = text_of(result)
    assert result.is_error, text
    assert text.startswith('[remote-error] the MCP server "hostile" refused the call of hostile__rpc_error'), text
    inner = fenced_inner(text)
    assert_no_secret(text)
    assert INJECTION in inner and "[fence marker removed]" in inner and "data: " in inner, text
    assert text.split("\n")[-1].startswith("next: "), text


@pytest.mark.anyio
async def test_a_hostile_remote_server_over_stdio(binaries, sandbox, hostile):
    async with stdio_session(binaries, sandbox.url, env=herald_env(hostile, with_token=True)) as session:
        await check_everything(session)


@pytest.mark.anyio
async def test_a_hostile_remote_server_over_http(binaries, sandbox, hostile, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env=herald_env(hostile, with_token=False))
    async with http_session(herald.url, headers=CALLER) as session:
        await check_everything(session)
    stop(herald.proc)
    herald.stderr.join()
    logs = herald.stderr.text()
    assert TOKEN not in logs
    assert not hidden_or_control(logs.replace("\x1b", "")), hidden_or_control(logs)

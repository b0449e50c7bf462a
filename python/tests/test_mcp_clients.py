"""`uvx --from dist/<wheel> lorebase-herald` driven by the official Python `mcp` SDK
client, over stdio and over Streamable HTTP, against the sandbox."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from conftest import clean_env
from lorebase_herald import Herald

SUPPLIER = "Supplier/S-1001"


@pytest.fixture(scope="session")
def uvx_command(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> List[str]:
    """``uvx --from <wheel> lorebase-herald`` with a cache of its own (so the wheel
    under test is the one installed), offline: the wheel has no dependencies."""
    uvx = Path(sys.executable).parent / ("uvx.exe" if os.name == "nt" else "uvx")
    if not uvx.is_file():
        pytest.fail(f"{uvx} is missing: pip install uv")
    cache = tmp_path_factory.mktemp("uv-cache")
    return [
        str(uvx),
        "--offline",
        "--no-config",
        "--cache-dir",
        str(cache),
        "--python",
        sys.executable,
        "--from",
        str(wheel),
        "lorebase-herald",
    ]


def _expected(sandbox: Any, key: str) -> Herald:
    return Herald(url=sandbox.url, api_key=key, domain="supply")


def test_uvx_over_stdio(uvx_command: List[str], sandbox: Any, reader_key: str) -> None:
    env = clean_env(LOREBASE_URL=sandbox.url, LOREBASE_API_KEY=reader_key, LOREBASE_DOMAIN="supply")
    params = StdioServerParameters(command=uvx_command[0], args=uvx_command[1:], env=env)
    expected = _expected(sandbox, reader_key)

    async def main() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    info = await session.initialize()
                    assert info.server_info.name
                    listed = await session.list_tools()
                    assert [tool.name for tool in listed.tools] == [t["name"] for t in expected.list_tools()]
                    arguments = {"ref": SUPPLIER, "format": "json"}
                    result = await session.call_tool("lorebase_get", arguments)
                    assert result.is_error is False
                    text = "".join(block.text for block in result.content if block.type == "text")
                    same = expected.call_tool("lorebase_get", arguments)
                    assert (text, result.structured_content) == (same.text, same.structured)
                    failed = await session.call_tool("lorebase_get", {"ref": "Supplier/NO-SUCH-KEY"})
                    assert failed.is_error is True

    anyio.run(main)


READY = "LOREBASE_HERALD_READY "


@pytest.fixture()
def http_server(uvx_command: List[str], sandbox: Any) -> Iterator[Dict[str, Any]]:
    """``uvx ... lorebase-herald --transport streamable_http --port 0``: the server
    prints one ready line on stdout with the URL it bound."""
    env = clean_env(LOREBASE_URL=sandbox.url, LOREBASE_DOMAIN="supply")
    process = subprocess.Popen(
        [*uvx_command, "--transport", "streamable_http", "--port", "0"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()
        assert line.startswith(READY), f"no ready line: {line!r} (exit {process.poll()})"
        ready = json.loads(line[len(READY) :])
        with urllib.request.urlopen(ready["healthz"], timeout=10) as health:
            assert health.status == 200
        yield {"process": process, "url": ready["url"]}
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_uvx_over_streamable_http(http_server: Dict[str, Any], sandbox: Any, reader_key: str) -> None:
    expected = _expected(sandbox, reader_key)

    async def main() -> None:
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {reader_key}"})
        async with client:
            async with streamable_http_client(http_server["url"], http_client=client) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    listed = await session.list_tools()
                    assert [tool.name for tool in listed.tools] == [t["name"] for t in expected.list_tools()]
                    result = await session.call_tool("lorebase_get", {"ref": SUPPLIER, "format": "json"})
                    assert result.is_error is False
                    assert result.structured_content == expected.call_tool(
                        "lorebase_get", {"ref": SUPPLIER, "format": "json"}
                    ).structured

        anonymous = create_mcp_http_client()
        async with anonymous:
            async with streamable_http_client(http_server["url"], http_client=anonymous) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    refused = await session.call_tool("lorebase_get", {"ref": SUPPLIER})
                    assert refused.is_error is True
                    text = "".join(block.text for block in refused.content if block.type == "text")
                    assert text.startswith("[unauthorized]"), text

    anyio.run(main)

    process: "subprocess.Popen[bytes]" = http_server["process"]
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    assert process.stdout is not None and process.stdout.read() == b"", "nothing on stdout after the ready line"



def test_text_format_over_stdio(uvx_command: List[str], sandbox: Any, reader_key: str) -> None:
    """The default text format over stdio: the compact text, the same as in-process,
    and no structuredContent (output schemas are opt-in, output.schemas)."""
    env = clean_env(LOREBASE_URL=sandbox.url, LOREBASE_API_KEY=reader_key, LOREBASE_DOMAIN="supply")
    params = StdioServerParameters(command=uvx_command[0], args=uvx_command[1:], env=env)

    async def main() -> None:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await session.list_tools()
                    result = await session.call_tool("lorebase_get", {"ref": SUPPLIER})
                    assert result.is_error is False
                    assert result.structured_content is None
                    text = "".join(block.text for block in result.content if block.type == "text")
                    assert text == _expected(sandbox, reader_key).call_tool("lorebase_get", {"ref": SUPPLIER}).text

    anyio.run(main)

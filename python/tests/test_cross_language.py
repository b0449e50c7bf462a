"""The same calls and the same bad inputs through every front end: the MCP server
(the native binary over stdio, driven by the official ``mcp`` SDK; over Streamable
HTTP for the per-call key), the Node addon (one ``node`` process reading the cases),
the Python module (in process) and the C ABI (``liblorebase_herald.so`` through
ctypes), against one sandbox Keeper. Each case's outcomes must agree: the same text,
``is_error`` and structured content for a call, the same error code for a caller's
mistake, the same message for refused settings.

Needs what the earlier stages of ``scripts/test.sh`` build: the native binaries,
the addon (``npm/lorebase-herald.<platform>.node``, scripts/test-node.sh) and the C
library (``target/debug/liblorebase_herald.so``, scripts/test-c.sh); set
``HERALD_CAPI_LIB`` or ``LOREBASE_HERALD_ADDON`` to use others.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from conftest import REPO, Sandbox, clean_env, remote_mcp_server

# The random id of a remote answer's fence, as json.dumps writes it.
FENCE_ID = re.compile(r'id=\\"[0-9a-f]{16}\\"')

SUPPLIER = {"ref": "Supplier/S-1001"}

#: One group of settings and the calls made with them. A call is
#: (case, tool, arguments, per-call key or None).
Call = Tuple[str, str, Any, Optional[str]]

#: The C ABI's error codes (bindings-c/include/lorebase_herald.h) by core's names.
C_CODES = {4: "invalid-settings", 5: "unknown-tool", 6: "bad-arguments", 3: "bad-arguments"}


def groups(sandbox: Sandbox, reader: str, remote: str) -> Dict[str, Tuple[Dict[str, Any], List[Call]]]:
    keeper = {"base_url": sandbox.url, "api_key": reader, "max_retries": 0}
    base = {"keeper": keeper, "domain": "supply"}
    return {
        "lorebase": (
            base,
            [
                ("a read", "lorebase_get", SUPPLIER, None),
                ("json format", "lorebase_get", {**SUPPLIER, "format": "json"}, None),
                ("a bad ref", "lorebase_get", {"ref": "S-1001"}, None),
                ("an unknown argument", "lorebase_history", {**SUPPLIER, "limitt": 2}, None),
                ("a bound", "lorebase_history", {**SUPPLIER, "limit": 201}, None),
                ("a Keeper problem", "lorebase_get", {"ref": "Supplier/NOPE-404"}, None),
                ("an unknown tool", "lorebase_nope", {}, None),
                ("arguments not an object", "lorebase_get", [1, 2], None),
                ("an empty per-call key", "lorebase_get", SUPPLIER, ""),
            ],
        ),
        "a typo in tools.allow": ({**base, "tools": {"allow": ["lorebase_get", "lorebase_gte"]}}, []),
        "an unknown setting": ({**base, "outptu": {"max_chars": 10}}, []),
        "a remote server": (
            {**base, "mcp": {"servers": [{"name": "py", "url": remote, "tools": ["add"]}]}},
            [("a remote tool", "py__add", {"a": 1, "b": 2}, None)],
        ),
    }


# --- the Python module, in process -------------------------------------------------


def python_column(settings: Dict[str, Any], calls: List[Call]) -> Dict[str, Any]:
    from lorebase_herald import Herald, HeraldError

    try:
        herald = Herald(**settings)
    except HeraldError as error:
        return {"built": False, "code": error.code, "message": error.message}
    outcomes = []
    for _, tool, arguments, key in calls:
        try:
            result = herald.call_tool(tool, arguments, api_key=key)
            outcomes.append({"text": result.text, "is_error": result.is_error, "structured": result.structured})
        except HeraldError as error:
            outcomes.append({"error": error.code})
    return {"built": True, "tools": [t["name"] for t in herald.list_tools()], "calls": outcomes}


# --- the C ABI, through ctypes ------------------------------------------------------


@pytest.fixture(scope="module")
def capi() -> ctypes.CDLL:
    path = Path(os.environ.get("HERALD_CAPI_LIB") or REPO / "target" / "debug" / "liblorebase_herald.so")
    if not path.is_file():
        pytest.fail(f"{path} is missing: build it (scripts/test-c.sh) or set HERALD_CAPI_LIB")
    lib = ctypes.CDLL(str(path))
    lib.lorebase_herald_new.restype = ctypes.c_void_p
    lib.lorebase_herald_new.argtypes = [ctypes.c_char_p]
    lib.lorebase_herald_free.argtypes = [ctypes.c_void_p]
    for name in ("lorebase_herald_tools", "lorebase_herald_call_with_key"):
        getattr(lib, name).restype = ctypes.c_void_p
    lib.lorebase_herald_tools.argtypes = [ctypes.c_void_p]
    lib.lorebase_herald_call_with_key.argtypes = [ctypes.c_void_p] + [ctypes.c_char_p] * 3
    lib.lorebase_herald_string_free.argtypes = [ctypes.c_void_p]
    lib.lorebase_herald_last_error_code.restype = ctypes.c_int
    lib.lorebase_herald_last_error_message.restype = ctypes.c_char_p
    return lib


def c_text(lib: ctypes.CDLL, pointer: Optional[int]) -> Optional[str]:
    if not pointer:
        return None
    text = ctypes.string_at(pointer).decode()
    lib.lorebase_herald_string_free(pointer)
    return text


def c_column(lib: ctypes.CDLL, settings: Dict[str, Any], calls: List[Call]) -> Dict[str, Any]:
    handle = lib.lorebase_herald_new(json.dumps(settings).encode())
    if not handle:
        message = lib.lorebase_herald_last_error_message().decode()
        code = C_CODES.get(lib.lorebase_herald_last_error_code(), "other")
        return {"built": False, "code": code, "message": message.removeprefix("invalid settings: ")}
    try:
        tools = json.loads(c_text(lib, lib.lorebase_herald_tools(handle)) or "[]")
        outcomes = []
        for _, tool, arguments, key in calls:
            answer = c_text(
                lib,
                lib.lorebase_herald_call_with_key(
                    handle, tool.encode(), json.dumps(arguments).encode(), None if key is None else key.encode()
                ),
            )
            if answer is None:
                outcomes.append({"error": C_CODES.get(lib.lorebase_herald_last_error_code(), "other")})
            else:
                outcomes.append(json.loads(answer))
        return {"built": True, "tools": [t["name"] for t in tools], "calls": outcomes}
    finally:
        lib.lorebase_herald_free(handle)


# --- the Node addon, one node process -----------------------------------------------


def node_columns(table: Dict[str, Tuple[Dict[str, Any], List[Call]]]) -> Dict[str, Dict[str, Any]]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH")
    request = {
        "groups": [
            {
                "settings": settings,
                "calls": [
                    {"name": tool, "args": arguments, **({} if key is None else {"apiKey": key})}
                    for _, tool, arguments, key in calls
                ],
            }
            for settings, calls in table.values()
        ]
    }
    done = subprocess.run(
        [node, str(Path(__file__).with_name("cross_language_node.js"))],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_env(),
    )
    if done.returncode != 0:
        pytest.fail(f"the Node column failed (build the addon: scripts/test-node.sh):\n{done.stderr}")
    return dict(zip(table, json.loads(done.stdout)))


# --- the MCP server: the binary over stdio (mcp SDK) and Streamable HTTP ------------


def server_env(settings: Dict[str, Any], directory: Path) -> Dict[str, str]:
    config = directory / "lorebase.yaml"
    config.write_text(json.dumps({"herald": settings}))  # JSON is YAML
    return clean_env(LOREBASE_CONFIG=str(config))


def server_column(herald_bin: Path, settings: Dict[str, Any], calls: List[Call], directory: Path) -> Dict[str, Any]:
    env = server_env(settings, directory)
    listed = subprocess.run(
        [str(herald_bin), "tools", "--format", "json"], capture_output=True, text=True, env=env, timeout=60
    )
    if listed.returncode != 0:
        message = listed.stderr.strip().splitlines()[-1].removeprefix("lorebase-herald: ")
        code = "invalid-settings" if listed.returncode == 2 else f"exit {listed.returncode}"
        return {"built": False, "code": code, "message": message}
    outcomes: List[Dict[str, Any]] = []

    async def session() -> None:
        params = StdioServerParameters(command=str(herald_bin), args=[], env=env)
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as mcp:
                    await mcp.initialize()
                    for _, tool, arguments, key in calls:
                        outcomes.append(await server_call(mcp, herald_bin, env, tool, arguments, key))

    anyio.run(session)
    return {"built": True, "tools": [t["name"] for t in json.loads(listed.stdout)], "calls": outcomes}


async def server_call(
    mcp: ClientSession, herald_bin: Path, env: Dict[str, str], tool: str, arguments: Any, key: Optional[str]
) -> Dict[str, Any]:
    if key is not None:
        # stdio has no per-call key: it is the Authorization header over HTTP.
        return await anyio.to_thread.run_sync(http_call, herald_bin, env, tool, arguments, key)
    if not isinstance(arguments, dict):
        # The SDK sends only objects: write the request by hand.
        return await anyio.to_thread.run_sync(raw_stdio_call, herald_bin, env, tool, arguments)
    try:
        result = await mcp.call_tool(tool, arguments)
    except MCPError as error:
        return {"error": protocol_error_code(error.code, error.message)}
    text = "".join(block.text for block in result.content if block.type == "text")
    return {"text": text, "is_error": bool(result.is_error), "structured": result.structured_content}


def protocol_error_code(code: int, message: str) -> str:
    """A JSON-RPC error of tools/call as the other front ends name it."""
    if code == -32602:
        return "unknown-tool" if message.startswith("Unknown tool") else "bad-arguments"
    if code == -32601 and message == "tools/call":
        # rmcp cannot parse the request's params (arguments that are not an
        # object), so it never reaches Herald and rmcp answers "method not
        # found" rather than invalid params: a refusal of the arguments all the same.
        return "bad-arguments"
    return f"json-rpc {code}: {message}"


def raw_stdio_call(herald_bin: Path, env: Dict[str, str], tool: str, arguments: Any) -> Dict[str, Any]:
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}},
    ]
    with subprocess.Popen(
        [str(herald_bin)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        for request in requests:
            server.stdin.write(json.dumps(request) + "\n")
            server.stdin.flush()
        for line in server.stdout:
            answer = json.loads(line)
            if answer.get("id") == 2:
                break
        server.stdin.close()
        server.wait(timeout=30)
    error = answer.get("error")
    if error:
        return {"error": protocol_error_code(error["code"], error["message"])}
    return {"text": answer["result"]["content"][0]["text"], "is_error": answer["result"].get("isError", False)}


def http_call(herald_bin: Path, env: Dict[str, str], tool: str, arguments: Any, key: str) -> Dict[str, Any]:
    with subprocess.Popen(
        [str(herald_bin), "--transport", "streamable_http", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    ) as server:
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            url = json.loads(line.split(" ", 1)[1])["url"]
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
            request = urllib.request.Request(
                url,
                data=json.dumps(body).encode(),
                headers={
                    "accept": "application/json, text/event-stream",
                    "content-type": "application/json",
                    "authorization": f"Bearer {key}",
                },
            )
            with urllib.request.urlopen(request, timeout=30) as response:
                result = json.loads(response.read())["result"]
            return {"text": result["content"][0]["text"], "is_error": result.get("isError", False)}
        finally:
            server.terminate()


# --- the table ----------------------------------------------------------------------


Table = Dict[str, Tuple[Dict[str, Any], List[Call]]]
Columns = Dict[str, Dict[str, Dict[str, Any]]]


@pytest.fixture(scope="module")
def outcomes(
    sandbox: Sandbox, herald_bin: Path, capi: ctypes.CDLL, tmp_path_factory: Any
) -> Iterator[Tuple[Table, Columns]]:
    with remote_mcp_server() as remote_url:
        table = groups(sandbox, sandbox.key("agt_reader"), remote_url)
        node = node_columns(table)
        columns: Columns = {}
        for group, (settings, calls) in table.items():
            columns[group] = {
                "python": python_column(settings, calls),
                "c": c_column(capi, settings, calls),
                "node": node[group],
                "server": server_column(herald_bin, settings, calls, tmp_path_factory.mktemp("server")),
            }
        yield table, columns


def test_every_front_end_serves_the_same_tools(outcomes: Any) -> None:
    _, columns = outcomes
    for group, by_front_end in columns.items():
        built = {name: (c["built"], c.get("tools")) for name, c in by_front_end.items()}
        assert len(set(json.dumps(b) for b in built.values())) == 1, f"{group}: {built}"
    assert "py__add" in columns["a remote server"]["python"]["tools"]
    assert len(columns["lorebase"]["python"]["tools"]) == 14


def test_refused_settings_are_refused_alike(outcomes: Any) -> None:
    _, columns = outcomes
    typo = {name: (c["built"], c.get("code"), c.get("message")) for name, c in columns["a typo in tools.allow"].items()}
    assert len(set(typo.values())) == 1, json.dumps(typo, indent=1)
    assert typo["python"][:2] == (False, "invalid-settings")
    assert typo["python"][2].startswith("tools.allow names tools that are not served here: lorebase_gte;")
    # The message names the key and where it came from, which is each front end's own
    # (`options`, `options.settings`, `settings_json`, the settings file).
    unknown = columns["an unknown setting"]
    for name, refusal in unknown.items():
        assert (refusal["built"], refusal["code"]) == (False, "invalid-settings"), f"{name}: {refusal}"
        assert "outptu" in refusal["message"], f"{name}: {refusal}"


def test_every_call_answers_alike(outcomes: Any) -> None:
    table, columns = outcomes
    for group, (_, calls) in table.items():
        for index, (case, *_rest) in enumerate(calls):
            answers = {name: c["calls"][index] for name, c in columns[group].items()}
            if case == "an empty per-call key":
                continue  # below: the server refuses it in the transport
            if case == "arguments not an object":
                # The raw stdio request has no structured content to compare.
                answers = {name: a.get("error") for name, a in answers.items()}
            # A remote answer's fence carries a random id per answer: the
            # same in every front end but for it.
            distinct = set(FENCE_ID.sub('id=\\"…\\"', json.dumps(a, sort_keys=True)) for a in answers.values())
            assert len(distinct) == 1, f"{case}: {json.dumps(answers, indent=1)}"


def test_the_table_means_what_it_says(outcomes: Any) -> None:
    table, columns = outcomes
    calls = table["lorebase"][1]
    answer = {case: columns["lorebase"]["python"]["calls"][i] for i, (case, *_r) in enumerate(calls)}
    assert answer["a read"]["is_error"] is False and "Supplier/S-1001" in answer["a read"]["text"]
    assert answer["json format"]["structured"]["ref"] == "Supplier/S-1001"
    assert answer["a bad ref"]["text"].startswith("[validation-failed] invalid argument `ref`")
    assert answer["an unknown argument"]["text"].startswith("[validation-failed] unknown argument `limitt`")
    assert "must be between 1 and 200" in answer["a bound"]["text"]
    assert answer["a Keeper problem"]["text"].startswith("[not-found]")
    assert answer["an unknown tool"] == {"error": "unknown-tool"}
    assert answer["arguments not an object"] == {"error": "bad-arguments"}
    remote = columns["a remote server"]["python"]["calls"][0]
    assert remote["is_error"] is False and "3" in remote["text"]


def test_an_empty_per_call_key_never_reaches_keeper(outcomes: Any, sandbox: Sandbox, reader_key: str) -> None:
    table, columns = outcomes
    index = [case for case, *_r in table["lorebase"][1]].index("an empty per-call key")
    answers = {name: c["calls"][index] for name, c in columns["lorebase"].items()}
    for name in ("python", "c", "node"):
        assert answers[name] == {"error": "bad-arguments"}, f"{name}: {answers[name]}"
    # Over HTTP the per-call key is the Authorization header: an empty one is refused there.
    assert answers["server"]["is_error"] is True and answers["server"]["text"].startswith("[unauthorized]")
    # A refusal happens before any request to Keeper.
    before = sandbox.stats()
    from lorebase_herald import BadArgumentsError, Herald

    with pytest.raises(BadArgumentsError):
        Herald(url=sandbox.url, domain="supply", api_key=reader_key).call_tool("lorebase_get", SUPPLIER, api_key="")
    assert sandbox.stats() == before

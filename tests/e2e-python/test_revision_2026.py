"""2026-07-28 to the letter, over real HTTP.

Under 2026-07-28 the removed methods `initialize` and `logging/setLevel` answer
HTTP 404 with JSON-RPC -32601, as any unknown method; a client that sends the
legacy `initialize` naming an older revision (after a `server/discover`, as
Claude Code 2.1.280 and Copilot CLI 1.0.81-1.0.86 did) still gets its session, and
`logging/setLevel` under that revision is still served. A resource that does not
exist names its `uri` in the error's data (SEP-2164).
"""

from __future__ import annotations

import httpx2
import pytest

V2026 = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": V2026,
    "io.modelcontextprotocol/clientInfo": {"name": "revision-test", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def post(url: str, method: str, params: dict, version: str | None, rpc_id: int = 7) -> httpx2.Response:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "Mcp-Method": method}
    if version:
        headers["MCP-Protocol-Version"] = version
    if method == "resources/read":
        headers["Mcp-Name"] = params["uri"]
    body = {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params}
    return httpx2.post(url, json=body, headers=headers, timeout=10)


@pytest.fixture
def herald(sandbox, http_herald_factory):
    return http_herald_factory(sandbox.url, env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"})


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("initialize", {"_meta": META}),
        ("logging/setLevel", {"_meta": META}),
        ("logging/setLevel", {"level": "info", "_meta": META}),
    ],
)
def test_methods_removed_in_2026_07_28_are_not_found(herald, method, params):
    answer = post(herald.url, method, params, V2026, rpc_id=500)
    assert answer.status_code == 404, (answer.status_code, answer.text)
    body = answer.json()
    assert body["id"] == 500 and body["error"]["code"] == -32601, body


def test_a_legacy_initialize_after_discover_keeps_working(herald):
    discovered = post(herald.url, "server/discover", {"_meta": META}, V2026, rpc_id=1)
    assert discovered.status_code == 200, discovered.text
    assert V2026 in discovered.json()["result"]["supportedVersions"]
    init = post(herald.url, "initialize", {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "claude-code", "version": "2.1.280"},
    }, None, rpc_id=2)
    assert init.status_code == 200, init.text
    result = init.json()["result"]
    assert result["protocolVersion"] == "2025-11-25" and result["serverInfo"]["name"] == "lorebase-herald", result
    level = post(herald.url, "logging/setLevel", {"level": "info"}, "2025-11-25", rpc_id=3)
    assert level.status_code == 200 and level.json()["result"] == {}, level.text
    tools = post(herald.url, "tools/list", {}, "2025-11-25", rpc_id=4)
    assert tools.status_code == 200 and tools.json()["result"]["tools"], tools.text


@pytest.mark.parametrize("version", [V2026, "2025-11-25"])
def test_a_missing_resource_names_its_uri(herald, version):
    uri = "test://nonexistent-resource-for-conformance-testing"
    params = {"uri": uri, "_meta": META} if version == V2026 else {"uri": uri}
    answer = post(herald.url, "resources/read", params, version, rpc_id=9)
    error = answer.json()["error"]
    assert error["data"]["uri"] == uri, error

"""stdio: stdout carries protocol messages only, even with debug and trace
logging; logs go to stderr and never show the configured key."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import clean_env

MESSAGES = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001"}}},
    {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-9999"}}},
    {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "lorebase_history", "arguments": {"ref": "Supplier/S-1001", "format": "json"}}},
    {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "no_such_tool", "arguments": {}}},
    {"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": "lorebase://supply/schema"}},
    {"jsonrpc": "2.0", "id": 8, "method": "prompts/get", "params": {"name": "lorebase_guide", "arguments": {"task": "t"}}},
    {"jsonrpc": "2.0", "id": 9, "method": "completion/complete", "params": {
        "ref": {"type": "ref/resource", "uri": "lorebase://{domain}/{kind}/{key}"},
        "argument": {"name": "kind", "value": "S"}, "context": {"arguments": {"domain": "supply"}}}},
    {"jsonrpc": "2.0", "id": 10, "method": "ping"},
]


@pytest.mark.parametrize("logging", [["--log-level", "debug"], ["--log-level", "trace"], []])
def test_stdout_is_only_json_rpc(binaries, secured_sandbox, logging):
    key = secured_sandbox.keys["usr_steward"]
    env = clean_env({"LOREBASE_URL": secured_sandbox.url, "LOREBASE_DOMAIN": "supply", "LOREBASE_API_KEY": key})
    if not logging:
        env["RUST_LOG"] = "trace"
    stdin = "".join(json.dumps(m) + "\n" for m in MESSAGES)
    # Herald answers every request, then exits when stdin closes.
    proc = subprocess.run(
        [binaries["herald"], *logging],
        input=stdin.encode(),
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-3000:]
    lines = proc.stdout.decode().splitlines()
    answered = set()
    for line in lines:
        message = json.loads(line)  # every byte on stdout is a protocol message
        assert message.get("jsonrpc") == "2.0", line
        if "id" in message:
            answered.add(message["id"])
    assert answered == {m["id"] for m in MESSAGES if "id" in m}
    stderr = proc.stderr.decode(errors="replace")
    assert "DEBUG" in stderr or "TRACE" in stderr, "expected debug logs on stderr"
    assert key not in stderr
    assert key.rsplit("_", 1)[-1] not in stderr
    by_id = {m["id"]: m for m in map(json.loads, lines) if "id" in m}
    assert by_id[3]["result"]["isError"] is False
    assert by_id[4]["result"]["isError"] is True
    assert by_id[6]["error"]["code"] == -32602
    assert by_id[5]["result"]["structuredContent"]

"""A hostile remote MCP server on a real host: Claude Code (the pinned release) with Herald over stdio, Herald
joined to the hostile remote MCP server (tests/e2e-python/hostile_mcp_server.py, on loopback), and a
scripted model that loads the hostile tools with ToolSearch and calls them. What the model is
sent: every remote answer inside Herald's fence, intact (one opening and one closing tag with
the same random id, the fence's name nowhere inside), and no secret, in any form a model reads
through, anywhere in any request (tool definitions and tool results alike).

Claude Code shows a model a result's structuredContent when it has one (docs/hosts.md): the
hostile server's structuredContent must reach the model only inside the fence.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
import pytest

import hostrun
from conftest import clean_env, stop
from test_claude_code import result_text, tool_exchanges

PYTHON_TESTS = Path(__file__).resolve().parents[1] / "e2e-python"
sys.path.insert(0, str(PYTHON_TESTS))
from hostile_mcp_server import INJECTION, TOKEN  # noqa: E402
from hostile_reading import assert_no_secret, fenced_inner  # noqa: E402

CALLS = [
    ("hostile__leak", {"case": "zw_token"}),
    ("hostile__leak", {"case": "cyrillic_o_marker"}),
    ("hostile__leak", {"case": "fullwidth_sk"}),
    ("hostile__structured_only", {}),
    ("hostile__rpc_error", {}),
]
STEPS = [
    {"tool": "ToolSearch", "args": {"query": "select:" + ",".join(
        f"mcp__lorebase__{t}" for t in ["hostile__leak", "hostile__structured_only", "hostile__rpc_error",
                                         "hostile__poisoned"])}},
    *({"tool": name, "args": args} for name, args in CALLS),
    {"text": "Done."},
]


@pytest.fixture(scope="module")
def hostile_run(herald):
    remote = subprocess.Popen([sys.executable, str(PYTHON_TESTS / "hostile_mcp_server.py")], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                              env=clean_env({"LEAK_TOKEN": TOKEN}))
    try:
        line = remote.stdout.readline().decode()
        assert line.startswith("HOSTILE_MCP_READY "), line
        url = json.loads(line.split(" ", 1)[1])["url"]
        server, log = herald.stdio("claude-hostile")
        server["env"].update({
            "LOREBASE__HERALD__MCP__SERVERS": json.dumps(
                [{"name": "hostile", "url": url, "token_env": "HOSTILE_TOKEN"}]),
            "HOSTILE_TOKEN": TOKEN,
        })
        yield hostrun.run_claude(server, STEPS, "Use the hostile tools."), log
    finally:
        stop(remote)


def test_every_remote_answer_reaches_the_model_fenced(hostile_run):
    run, _ = hostile_run
    last = run.main_requests()[-1]
    seen = {(u["name"], json.dumps(u["input"], sort_keys=True)): r for u, r in tool_exchanges(last)}
    for name, args in CALLS:
        result = seen.get((f"mcp__lorebase__{name}", json.dumps(args, sort_keys=True)))
        assert result is not None, f"no tool_result for {name} {args}\n{run.describe()}"
        text = result_text(result)
        inner = fenced_inner(text)
        assert INJECTION in inner, text
        if name == "hostile__rpc_error":
            assert result.get("is_error") is True, result
            assert text.startswith('[remote-error] the MCP server "hostile" refused the call'), text
        else:
            assert "[redacted]" in inner or "[fence marker removed]" in inner, text


def test_no_secret_reaches_the_model_in_any_request(hostile_run):
    run, _ = hostile_run
    assert run.main_requests(), run.describe()
    for request in run.requests:
        assert_no_secret(json.dumps(request["body"], ensure_ascii=False))


def test_the_poisoned_definition_reaches_the_model_cleaned(hostile_run):
    run, _ = hostile_run
    tools = {t.get("name"): t for t in run.main_requests()[-1].get("tools") or []}
    poisoned = tools.get("mcp__lorebase__hostile__poisoned")
    assert poisoned is not None, sorted(tools)
    shown = json.dumps(poisoned, ensure_ascii=False)
    assert "untrusted_remote_output" not in shown.lower() and "\u202e" not in shown and "\u200b" not in shown, shown
    assert "[redacted]" in poisoned["description"], poisoned

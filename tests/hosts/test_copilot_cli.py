"""GitHub Copilot CLI (the pinned release, tests/hosts/package.json) against Herald over stdio and
Streamable HTTP, and against probe_server.py: what the model is shown and sent back.

Copilot CLI runs offline (COPILOT_OFFLINE=true) on the scripted endpoint as an OpenAI provider
(Chat Completions). It lists every MCP tool directly as `SERVER-TOOL`, moves the schema's bounds
and patterns into the argument's description, and does not show the server's instructions.
"""

from __future__ import annotations

import json
from typing import Any

from conftest import HERALD_TOOLS, assert_s1001, runs_of, tee_calls

# The keywords Copilot CLI moves from an argument's schema into its description, as
# "\n\n{minimum: 1, maximum: 200}" (probe_server's probe_bounds). `default` and `enum` stay.
MOVED = ["minimum", "maximum", "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "minProperties"]


def functions(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["function"]["name"]: t["function"] for t in body.get("tools") or []}


def tool_message(run, args: dict[str, Any]) -> str:
    messages = run.main_requests()[-1]["messages"]
    calls = {c["id"]: c for m in messages if m.get("role") == "assistant" for c in m.get("tool_calls") or []}
    for m in messages:
        call = calls.get(m.get("tool_call_id")) if m.get("role") == "tool" else None
        if call and call["function"]["name"] == "lorebase-lorebase_get" and json.loads(call["function"]["arguments"]) == args:
            return m["content"] if isinstance(m["content"], str) else "\n".join(p.get("text", "") for p in m["content"])
    raise AssertionError(f"no tool message for lorebase_get {args}\n{run.describe()}")


copilot = runs_of("copilot")


def test_every_tool_reaches_the_model_bounds_in_words(copilot, herald_tools):
    run, _ = copilot
    tools = functions(run.main_requests()[0])
    for name in HERALD_TOOLS:
        sent = tools.get(f"lorebase-{name}")
        assert sent is not None, f"{name} not listed: {sorted(tools)}"
        assert sent["description"] == herald_tools[name]["description"], name
        served = herald_tools[name]["inputSchema"]["properties"]
        assert set(sent["parameters"]["properties"]) == set(served), name
        for arg, schema in served.items():
            got = sent["parameters"]["properties"][arg]
            moved = [k for k in MOVED if k in schema]
            assert not [k for k in moved if k in got], (name, arg, got)
            for k in moved:
                assert f"{k}: " in got.get("description", ""), (name, arg, got)


def test_server_instructions_do_not_reach_the_model(copilot):
    run, _ = copilot
    text = json.dumps(run.main_requests()[0]["messages"])
    assert "Lorebase Herald" not in text


def test_a_call_reaches_herald_and_its_compact_text_reaches_the_model(copilot):
    run, log = copilot
    assert_s1001(tool_message(run, {"ref": "Supplier/S-1001"}), log)


def test_a_tool_error_reaches_the_model_after_the_server_name(copilot):
    """Copilot CLI marks an isError result with `MCP server 'NAME': ` before Herald's text."""
    run, _ = copilot
    text = tool_message(run, {"ref": "Nope/1"})
    assert text.startswith("MCP server 'lorebase': [not-found] "), text


def test_wait_for_previous_is_forwarded_and_accepted(copilot):
    """Copilot CLI does not add `wait_for_previous` but forwards whatever the model sends."""
    run, log = copilot
    text = tool_message(run, {"ref": "Supplier/S-1002", "wait_for_previous": True})
    assert text.startswith("Supplier/S-1002 "), text
    if log is not None:
        assert {"ref": "Supplier/S-1002", "wait_for_previous": True} in [c["params"]["arguments"] for c, _ in tee_calls(log)]


# --- probe_server.py ---------------------------------------------------------------------------
def test_probe_bounds_move_into_the_description_long_texts_kept(runs):
    import probe_server

    run = runs.get("copilot-probe")[0]
    tools = functions(run.main_requests()[0])
    assert tools["probe-probe_bounds"]["parameters"]["properties"] == {
        "filter": {"additionalProperties": {"type": "string"}, "description": "filter words\n\n{minProperties: 1}", "type": "object"},
        "format": {"default": "text", "description": "format words", "enum": ["text", "json"], "type": "string"},
        "limit": {"default": 50, "description": "limit words\n\n{minimum: 1, maximum: 200}", "type": "integer"},
        "ref": {"description": 'ref words\n\n{minLength: 3, maxLength: 385, pattern: "^[A-Z][a-z]*/.+$"}', "type": "string"},
        "refs": {"description": "refs words\n\n{minItems: 1, maxItems: 20, uniqueItems: true}", "items": {"type": "string"}, "type": "array"},
    }
    assert tools["probe-probe_long"]["description"] == probe_server.marks(probe_server.LONG)
    assert {"probe-probe_always", "probe-probe_plain", "probe-probe_hinted"} <= set(tools)

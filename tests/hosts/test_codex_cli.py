"""Codex CLI (the pinned release, tests/hosts/package.json) against Herald over stdio and
Streamable HTTP, and against probe_server.py: what the model is shown and sent back.

Codex speaks the OpenAI Responses API. With a model outside its catalog (hostrun.CODEX_MODEL)
it lists an MCP server's tools directly, grouped in one `namespace` tool `mcp__SERVER` whose
description is the server's instructions; a catalog model would defer them behind a client-side
`tool_search` instead, and its default model runs in "code mode" (docs/hosts.md).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import HERALD_TOOLS, assert_s1001, runs_of, tee_calls, tee_instructions

# The JSON Schema keywords Codex 0.171 removes before the model sees a tool (probe_server's
# probe_bounds: every keyword Herald uses). It keeps type, description, enum, items, required,
# additionalProperties and minItems.
STRIPPED = {"minimum", "maximum", "default", "pattern", "minLength", "maxLength", "maxItems", "uniqueItems", "minProperties"}


def namespace(body: dict[str, Any], server: str) -> dict[str, Any]:
    for t in body.get("tools") or []:
        if t.get("type") == "namespace" and t.get("name") == f"mcp__{server}":
            return t
    raise AssertionError(f"no namespace mcp__{server}: {[t.get('name') for t in body.get('tools') or []]}")


def keywords(schema: Any) -> set[str]:
    """Every key of a JSON Schema, at any depth, but property names."""
    found: set[str] = set()
    if isinstance(schema, dict):
        for k, v in schema.items():
            found.add(k)
            found |= set().union(*(keywords(p) for p in v.values())) if k == "properties" and isinstance(v, dict) else keywords(v)
    elif isinstance(schema, list):
        for v in schema:
            found |= keywords(v)
    return found


def output_for(run, args: dict[str, Any]) -> list[dict[str, Any]]:
    items = run.main_requests()[-1]["input"]
    calls = {i["call_id"]: i for i in items if i.get("type") == "function_call"}
    for i in items:
        call = calls.get(i.get("call_id")) if i.get("type") == "function_call_output" else None
        if call and call["name"] == "lorebase_get" and json.loads(call["arguments"]) == args:
            assert call.get("namespace") == "mcp__lorebase", call
            return i["output"]
    raise AssertionError(f"no function_call_output for lorebase_get {args}\n{run.describe()}")


codex = runs_of("codex")


def test_every_tool_reaches_the_model_in_the_namespace(codex, herald_tools):
    """All 14 tools, descriptions whole; the schemas without their bounds, defaults and patterns."""
    run, log = codex
    ns = namespace(run.main_requests()[0], "lorebase")
    tools = {t["name"]: t for t in ns["tools"]}
    assert sorted(tools) == sorted(HERALD_TOOLS)
    for name in HERALD_TOOLS:
        sent, served = tools[name], herald_tools[name]
        assert sent["description"] == served["description"], name
        params = sent["parameters"]
        assert set(params["properties"]) == set(served["inputSchema"]["properties"]), name
        assert params.get("required", []) == served["inputSchema"].get("required", []), name
        assert not keywords(params) & STRIPPED, (name, keywords(params) & STRIPPED)
    # The instructions are the namespace's description, whole.
    if log is not None:
        assert ns["description"] == tee_instructions(log)
    assert ns["description"].startswith("Lorebase Herald")


def test_a_call_reaches_herald_and_its_compact_text_reaches_the_model(codex):
    run, log = codex
    output = output_for(run, {"ref": "Supplier/S-1001"})
    assert output[0]["text"].startswith("Wall time: ") and output[0]["text"].endswith("Output:"), output
    assert_s1001(output[1]["text"], log)


def test_a_tool_error_reaches_the_model_code_first_and_is_error_is_lost(codex):
    """Codex shows the model only the text: the leading `[code]` is the only sign of an error."""
    run, log = codex
    output = output_for(run, {"ref": "Nope/1"})
    assert [o["type"] for o in output] == ["input_text", "input_text"], output
    assert output[1]["text"].startswith("[not-found] "), output
    assert "error" not in output[0]["text"].lower(), output
    if log is not None:
        (_, answer), = [(c, a) for c, a in tee_calls(log) if c["params"]["arguments"] == {"ref": "Nope/1"}]
        assert answer["result"]["isError"] is True


# --- probe_server.py ---------------------------------------------------------------------------
@pytest.fixture
def probe(runs):
    return runs.get("codex-probe")[0]


def test_probe_schema_keywords_stripped(probe):
    tools = {t["name"]: t for t in namespace(probe.main_requests()[0], "probe")["tools"]}
    assert tools["probe_bounds"]["parameters"] == {
        "type": "object",
        "properties": {
            "filter": {"type": "object", "description": "filter words", "properties": {}, "additionalProperties": {"type": "string"}},
            "format": {"type": "string", "description": "format words", "enum": ["text", "json"]},
            "limit": {"type": "integer", "description": "limit words"},
            "ref": {"type": "string", "description": "ref words"},
            "refs": {"type": "array", "description": "refs words", "items": {"type": "string"}, "minItems": 1},
        },
        "required": ["ref"],
        "additionalProperties": False,
    }


def test_probe_long_texts_are_not_cut_and_meta_is_ignored(probe):
    import probe_server

    ns = namespace(probe.main_requests()[0], "probe")
    tools = {t["name"]: t for t in ns["tools"]}
    assert ns["description"] == probe_server.INSTRUCTIONS
    assert tools["probe_long"]["description"] == probe_server.marks(probe_server.LONG)
    assert {"probe_always", "probe_plain", "probe_hinted"} <= set(tools)
    assert "_meta" not in json.dumps(ns)


def test_probe_default_model_sees_the_instructions_cut_at_247_characters(runs):
    """Codex's default model ("code mode") gets no `tools` array; a `<tools>` text lists each MCP
    server as `- mcp__SERVER: ` and its instructions' first 247 characters, then `...`."""
    import probe_server

    run = runs.get("codex-default-probe")[0]
    body = run.requests[0]["body"]
    assert not body.get("tools"), [t.get("name") for t in body["tools"]]
    texts = [c.get("text", "") for i in body["input"] if i.get("type") == "message" for c in i.get("content") or []]
    block = next(t for t in texts if "Deferred tool namespaces:" in t)
    line = next(x for x in block.splitlines() if x.startswith("- mcp__probe: "))
    assert line == "- mcp__probe: " + probe_server.INSTRUCTIONS[:247] + "...", line[-40:]

"""Gemini CLI (the pinned release, tests/hosts/package.json) against Herald over stdio and
Streamable HTTP, and against probe_server.py: what the model is shown and sent back.

Gemini CLI lists every MCP tool directly as a function declaration named `mcp_SERVER_TOOL`,
with the server's JSON Schema as `parametersJsonSchema` plus an argument of its own,
`wait_for_previous`, which it forwards to the server when the model sets it. With its default
model (`auto`) it first asks a routing classifier (a generateContent without tools), then the
main model (streamGenerateContent).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from conftest import HERALD_TOOLS, assert_s1001, runs_of, tee_calls, tee_instructions

INSTRUCTIONS_START = "---[start of server instructions]---\n"
INSTRUCTIONS_END = "\n---[end of server instructions]---"


def declarations(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {d["name"]: d for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []}


def function_responses(body: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each functionCall of the conversation with the functionResponse the host sent back for it."""
    calls, answers = [], {}
    for c in body.get("contents") or []:
        for part in c.get("parts") or []:
            if "functionCall" in part:
                calls.append(part["functionCall"])
            if "functionResponse" in part:
                answers[part["functionResponse"].get("id")] = part["functionResponse"]
    return [(call, answers[call.get("id")]) for call in calls if call.get("id") in answers]


def response_for(run, args: dict[str, Any]) -> dict[str, Any]:
    last = run.main_requests()[-1]
    for call, answer in function_responses(last):
        if call["name"] == "mcp_lorebase_lorebase_get" and call["args"] == args:
            return answer["response"]
    raise AssertionError(f"no functionResponse for lorebase_get {args}\n{run.describe()}")


def prompt_text(body: dict[str, Any]) -> str:
    return "\n".join(p.get("text", "") for c in body.get("contents") or [] for p in c.get("parts") or [])


gemini = runs_of("gemini")


def test_every_tool_reaches_the_model_as_a_declaration(gemini, herald_tools):
    """All 14 tools are declared, description whole, schema unchanged but for `wait_for_previous`."""
    run, _ = gemini
    assert run.main_requests(), run.describe()
    for body in run.main_requests():
        decls = declarations(body)
        for name in HERALD_TOOLS:
            d = decls.get(f"mcp_lorebase_{name}")
            assert d is not None, f"{name} not declared: {sorted(decls)}"
            assert d["description"] == herald_tools[name]["description"], name
            schema = json.loads(json.dumps(d["parametersJsonSchema"]))
            added = schema["properties"].pop("wait_for_previous")
            assert added["type"] == "boolean"
            assert schema == herald_tools[name]["inputSchema"], name


def test_server_instructions_reach_the_model_in_full(gemini):
    run, log = gemini
    text = prompt_text(run.main_requests()[0])
    assert "instructions provided by the tool server 'lorebase'" in text
    section = text.split(INSTRUCTIONS_START, 1)[1].split(INSTRUCTIONS_END, 1)[0]
    assert section.startswith("Lorebase Herald"), section[:200]
    if log is not None:
        assert section == tee_instructions(log)


def test_a_call_reaches_herald_and_its_compact_text_reaches_the_model(gemini):
    run, log = gemini
    output = response_for(run, {"ref": "Supplier/S-1001"})["output"]
    assert output.startswith("<untrusted_context>\n") and output.endswith("\n</untrusted_context>"), output
    assert_s1001(output.removeprefix("<untrusted_context>\n").removesuffix("\n</untrusted_context>"), log)


def test_a_tool_error_reaches_the_model_with_its_code(gemini):
    """Gemini CLI sends an isError result as `response.error`: its own sentence, then Herald's
    result as JSON, whose text starts with the `[code]`."""
    run, _ = gemini
    response = response_for(run, {"ref": "Nope/1"})
    assert "output" not in response, response
    error = response["error"]
    assert error.startswith("MCP tool 'lorebase_get' reported tool error"), error
    embedded = json.loads(error.split(" with response: ", 1)[1])
    content = embedded[0]["functionResponse"]["response"]
    assert content["isError"] is True
    assert content["content"][0]["text"].startswith("[not-found] "), content


def test_wait_for_previous_is_sent_to_herald_and_accepted(gemini):
    """The model sets Gemini CLI's own argument; the host forwards it; Herald accepts and ignores it
    (core's HOST_ADDED_ARGUMENTS)."""
    run, log = gemini
    response = response_for(run, {"ref": "Supplier/S-1002", "wait_for_previous": True})
    assert "error" not in response, response["error"]
    assert "Supplier/S-1002 " in response["output"] and "Baltic Forge" in response["output"]
    if log is not None:
        sent = [c["params"]["arguments"] for c, _ in tee_calls(log)]
        assert {"ref": "Supplier/S-1002", "wait_for_previous": True} in sent, sent


def test_the_router_is_asked_first_without_tools(gemini):
    run, _ = gemini
    first = run.requests[0]
    assert first["path"].endswith(":generateContent"), [r["path"] for r in run.requests]
    assert not first["body"].get("tools")
    assert "complexity" in json.dumps(first["body"]).lower()


# --- probe_server.py: what Gemini CLI does with long texts, schema keywords and _meta ---------------
@pytest.fixture
def probe(runs):
    return runs.get("gemini-probe")[0]


def test_probe_schema_keywords_are_kept(probe):
    import probe_server

    decls = declarations(probe.main_requests()[0])
    bounds = next(t for t in probe_server.TOOLS if t["name"] == "probe_bounds")
    schema = json.loads(json.dumps(decls["mcp_probe_probe_bounds"]["parametersJsonSchema"]))
    schema["properties"].pop("wait_for_previous")
    assert schema == bounds["inputSchema"]


def test_probe_long_texts_are_not_cut(probe):
    """Gemini CLI cuts neither a description nor the instructions (20,000 characters each)."""
    import probe_server

    body = probe.main_requests()[0]
    decls = declarations(body)
    assert decls["mcp_probe_probe_long"]["description"] == probe_server.marks(probe_server.LONG)
    assert decls["mcp_probe_probe_always_long"]["description"] == probe_server.marks(probe_server.LONG)
    text = prompt_text(body)
    section = text.split(INSTRUCTIONS_START, 1)[1].split(INSTRUCTIONS_END, 1)[0]
    assert section == probe_server.INSTRUCTIONS, (len(section), re.findall(r"<\d{4}>", section)[-1:])
    # Every probe tool is declared, hinted or not: Gemini CLI defers nothing.
    assert {"mcp_probe_probe_always", "mcp_probe_probe_plain"} <= set(decls)

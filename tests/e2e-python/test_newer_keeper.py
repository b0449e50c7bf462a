"""A Keeper one release ahead, end to end: the same table of calls through
Herald over stdio (the official MCP SDK client) against the sandbox Keeper
and against it in its newer-Keeper mode (`--newer-keeper`: extra fields,
enum values and problem codes the contract does not list). Once the new
names the READY line lists are put back, every answer, text and JSON, is the
same: the only differences are the new values, shown as they are."""

from __future__ import annotations

import json

import pytest

from calls import TABLE, tool_calls
from conftest import start_sandbox, stdio_session, stop, text_of

pytestmark = pytest.mark.anyio


def text_as_contract(text: str, newer: dict) -> str:
    """The text with the new names put back and the added signal's lines left out."""
    added = newer["added_signal"]["message"]
    out = "\n".join(line for line in text.splitlines() if added not in line)
    for r in newer["renamed"]:
        out = out.replace(r["to"], r["from"])
    return out


def json_as_contract(value, newer: dict):
    """The JSON with the new names put back and the added signal left out."""
    if isinstance(value, list):
        return [json_as_contract(v, newer) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, child in value.items():
        for r in newer["renamed"]:
            if r["field"] == key and child == r["to"]:
                child = r["from"]
        if key == "coverage" and isinstance(child, list):
            child = [s for s in child if s.get("signal") != newer["added_signal"]["signal"]]
        out[key] = json_as_contract(child, newer)
    return out


async def answers(binaries, sandbox) -> list[tuple[str, str, object]]:
    key = sandbox.keys["usr_steward"]
    calls = tool_calls(sandbox.url, {"Authorization": f"Bearer {key}"})
    out = []
    async with stdio_session(binaries, sandbox.url, env={"LOREBASE_API_KEY": key}) as session:
        for call in [*calls, TABLE["tool_error"]]:
            text = await session.call_tool(call["tool"], call["arguments"])
            as_json = await session.call_tool(call["tool"], {**call["arguments"], "format": "json"})
            out.append((call["tool"], text_of(text), as_json.structured_content))
    return out


async def test_every_call_reads_the_same_on_a_newer_keeper_but_for_the_new_values(binaries):
    contract = start_sandbox(binaries, "api_key", newer=False)
    newer = start_sandbox(binaries, "api_key", newer=True)
    try:
        expected = await answers(binaries, contract)
        got = await answers(binaries, newer)
    finally:
        stop(contract.proc)
        stop(newer.proc)
    assert newer.newer is not None
    shown = "\n".join(text for _, text, _ in got)
    for (tool, c_text, c_json), (_, n_text, n_json) in zip(expected, got, strict=True):
        assert text_as_contract(n_text, newer.newer) == c_text, f"{tool}:\n{n_text}"
        assert json_as_contract(n_json, newer.newer) == c_json, f"{tool}: {json.dumps(n_json)}"
        for field in newer.newer["extra_fields"]:
            assert f'"{field}"' not in json.dumps(n_json), f"{tool} passed on {field}"
    # The table met new values, and Herald showed them as they are.
    assert "[bulk_import]" in shown or "<- bulk_import by" in shown, shown
    assert newer.newer["added_signal"]["message"] in shown
    assert "lexical_bm25f search" in shown

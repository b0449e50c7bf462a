"""The output caps (`output.max_chars`, `output.max_items`), through the
official Python `mcp` SDK against the built binaries and the sandbox Keeper:
a cut answer keeps its paging and coverage footer within max_chars; max_items
cuts inline lists; a max_chars too small is refused at startup; at the minimum
the cap holds exactly."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import clean_env, stdio_session, text_of

RED = {
    "domain": "retail",
    "query": {"kind": "Product", "where": {"attr": "color", "op": "eq", "value": "Rosso"}, "limit": 50},
}


@pytest.mark.anyio
async def test_a_cut_query_keeps_its_cursor_and_coverage_within_max_chars(binaries, sandbox):
    async with stdio_session(binaries, sandbox.url) as whole_session:
        whole = text_of(await whole_session.call_tool("lorebase_query", RED))
    footer = whole.split("\n")[-3:]
    assert footer[0].startswith("rows: 50 of "), whole[-600:]
    assert footer[1].startswith("next_cursor: ") and footer[2].startswith("coverage: "), footer
    env = {"LOREBASE__HERALD__OUTPUT__MAX_CHARS": "1500"}
    async with stdio_session(binaries, sandbox.url, env=env) as session:
        result = await session.call_tool("lorebase_query", RED)
        text = text_of(result)
        assert not result.is_error, text
        assert len(text) <= 1500, len(text)
        lines = text.split("\n")
        assert lines[-3:] == footer, text
        assert lines[-4].startswith("[truncated: ") and "page with `cursor`" in lines[-4], text
        # The cursor kept is the way forward: the next page answers.
        cursor = footer[1].removeprefix("next_cursor: ")
        page = await session.call_tool("lorebase_query", {**RED, "cursor": cursor})
        assert not page.is_error, text_of(page)
        assert len(text_of(page)) <= 1500


@pytest.mark.anyio
async def test_max_items_cuts_inline_lists_in_schema_and_context(binaries, sandbox):
    env = {"LOREBASE__HERALD__OUTPUT__MAX_ITEMS": "2"}
    async with stdio_session(binaries, sandbox.url, env=env) as session:
        schema = text_of(await session.call_tool("lorebase_schema", {"kinds": ["Supplier"]}))
        assert "  supplier_code: string!, legal_name: string!, ... 7 more attributes" in schema.split("\n"), schema
        context = text_of(
            await session.call_tool("lorebase_context", {"records": ["Supplier/S-1001"], "token_budget": 4000})
        )
        kind = next(line for line in context.split("\n") if line.startswith("- Supplier (key"))
        assert kind.endswith("legal_name: string!, ... 7 more attributes"), kind


def test_a_max_chars_below_the_minimum_is_refused_at_startup(binaries, sandbox):
    env = clean_env({"LOREBASE_URL": sandbox.url, "LOREBASE_DOMAIN": "supply", "LOREBASE__HERALD__OUTPUT__MAX_CHARS": "60"})
    done = subprocess.run(
        [binaries["herald"], "call", "lorebase_get", '{"ref": "Supplier/S-1001"}'],
        capture_output=True,
        env=env,
        timeout=60,
    )
    err = done.stderr.decode()
    assert done.returncode == 2, (done.returncode, err)
    assert "herald.output.max_chars (from LOREBASE__HERALD__OUTPUT__MAX_CHARS)" in err, err
    assert "from 500 to" in err, err


@pytest.mark.anyio
async def test_at_the_minimum_the_cap_holds_exactly(binaries, sandbox):
    env = {"LOREBASE__HERALD__OUTPUT__MAX_CHARS": "500"}
    async with stdio_session(binaries, sandbox.url, env=env) as session:
        for tool, args in [
            ("lorebase_neighborhood", {"seeds": ["Supplier/S-1001"], "depth": 2, "values": True}),
            ("lorebase_schema", {}),
            ("lorebase_query", RED),
            ("lorebase_context", {"records": ["Supplier/S-1001"]}),
        ]:
            text = text_of(await session.call_tool(tool, args))
            assert len(text) <= 500, (tool, len(text), text)
            assert "[truncated: " in text, text
            as_json = await session.call_tool(tool, {**args, "format": "json"})
            body = text_of(as_json)
            assert len(body) <= 500, (tool, len(body), body)
            cuts = json.loads(body)["cuts"]
            assert cuts and all(c["unit"] != "chars over max_chars" for c in cuts), cuts
        # The query's whole footer is kept at the minimum: the cursor too.
        text = text_of(await session.call_tool("lorebase_query", RED))
        assert text.split("\n")[-2].startswith("next_cursor: "), text

"""End to end with the official Python MCP SDK client, over stdio (Herald
spawned as a host does) and over Streamable HTTP (a real port), against the
sandbox Keeper in api_key mode: initialize, list tools/resources/prompts,
read each resource, get the prompt, complete arguments, call every tool (text
and json), a tool error, an unknown tool."""

from __future__ import annotations

import json

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import PromptReference, ResourceTemplateReference

from calls import LENS_TEMPLATE, RECORD_TEMPLATE, TABLE, TOOL_NAMES, tool_calls
from conftest import http_session, stdio_session, text_of

pytestmark = pytest.mark.anyio

INVALID_PARAMS = -32602
RESOURCE_NOT_FOUND = -32002


@pytest.fixture(params=["stdio", "http"])
def connect(request, binaries, secured_sandbox, http_herald_factory):
    """Opens an initialized session over one transport, as the steward."""
    key = secured_sandbox.keys["usr_steward"]
    if request.param == "stdio":
        return lambda: stdio_session(binaries, secured_sandbox.url, env={"LOREBASE_API_KEY": key})
    herald = http_herald_factory(secured_sandbox.url)
    return lambda: http_session(herald.url, headers={"Authorization": f"Bearer {key}"})


@pytest.fixture
def calls(secured_sandbox):
    key = secured_sandbox.keys["usr_steward"]
    return tool_calls(secured_sandbox.url, {"Authorization": f"Bearer {key}"})


async def test_initialize_names_herald(connect):
    async with connect() as session:
        info = session.initialize_result
        assert info.server_info.name == "lorebase-herald"
        assert info.server_info.version
        assert info.protocol_version == "2025-11-25"
        caps = info.capabilities
        assert caps.tools is not None
        assert caps.resources is not None
        assert caps.prompts is not None
        assert caps.completions is not None
        assert "lorebase_context" in (info.instructions or "")


async def test_tools_are_the_table_with_annotations_and_schemas(connect):
    async with connect() as session:
        tools = (await session.list_tools()).tools
        assert [t.name for t in tools] == TOOL_NAMES
        for t in tools:
            assert t.title, t.name
            assert t.description, t.name
            assert t.input_schema["type"] == "object", t.name
            # Output schemas are opt-in (output.schemas).
            assert t.output_schema is None, t.name
            assert t.annotations is not None, t.name
            writes = t.name == "lorebase_execute"
            assert t.annotations.read_only_hint is (not writes), t.name


async def test_every_tool_answers_in_text(connect, calls):
    async with connect() as session:
        await session.list_tools()
        for call in calls:
            result = await session.call_tool(call["tool"], call["arguments"])
            text = text_of(result)
            assert not result.is_error, f"{call['tool']}: {text}"
            assert call["expect"] in text, f"{call['tool']}: {text}"
            # By default a text answer is its text alone (docs/tools.md,
            # "Results": json is the format also sent as structuredContent).
            assert result.structured_content is None, call["tool"]


async def test_every_tool_answers_in_json_with_structured_content(connect, calls):
    async with connect() as session:
        await session.list_tools()
        for call in calls:
            args = {**call["arguments"], "format": "json"}
            result = await session.call_tool(call["tool"], args)
            assert not result.is_error, f"{call['tool']}: {text_of(result)}"
            assert isinstance(result.structured_content, dict), call["tool"]
            assert json.loads(text_of(result)) == result.structured_content, call["tool"]


async def test_with_output_schemas_every_success_carries_conforming_structured_content(
    binaries, secured_sandbox, calls
):
    """`output.schemas: true` (opt-in): every tool declares an outputSchema and
    every success carries structuredContent, the text format included (MCP
    requires it); the SDK client validates it against the schema (so a newer
    Keeper's values must conform too). The text block stays the compact text."""
    key = secured_sandbox.keys["usr_steward"]
    env = {"LOREBASE_API_KEY": key, "LOREBASE__HERALD__OUTPUT__SCHEMAS": "true"}
    async with stdio_session(binaries, secured_sandbox.url, env=env) as session:
        tools = (await session.list_tools()).tools
        assert [t.name for t in tools] == TOOL_NAMES
        assert all(t.output_schema is not None for t in tools)
        for call in calls:
            result = await session.call_tool(call["tool"], call["arguments"])
            text = text_of(result)
            assert not result.is_error, f"{call['tool']}: {text}"
            assert call["expect"] in text, f"{call['tool']}: {text}"
            assert not text.startswith("{"), f"{call['tool']}: the text block is the text format"
            assert isinstance(result.structured_content, dict), call["tool"]
            as_json = await session.call_tool(call["tool"], {**call["arguments"], "format": "json"})
            assert json.loads(text_of(as_json)) == as_json.structured_content, call["tool"]


async def test_a_tool_error_is_a_result_with_is_error(connect):
    spec = TABLE["tool_error"]
    async with connect() as session:
        result = await session.call_tool(spec["tool"], spec["arguments"])
        assert result.is_error
        text = text_of(result)
        assert text.startswith(spec["expect_prefix"]), text
        assert "next:" in text
        assert result.structured_content is None


async def test_an_unknown_tool_is_invalid_params(connect):
    async with connect() as session:
        with pytest.raises(MCPError) as e:
            await session.call_tool("lorebase_nonexistent", {})
        assert e.value.code == INVALID_PARAMS
        assert "lorebase_nonexistent" in e.value.message


async def test_resources_templates_and_reads(connect):
    async with connect() as session:
        templates = (await session.list_resource_templates()).resource_templates
        assert {t.uri_template for t in templates} == {
            "lorebase://{domain}/schema",
            LENS_TEMPLATE,
            RECORD_TEMPLATE,
        }
        listed = (await session.list_resources()).resources
        assert [str(r.uri) for r in listed] == ["lorebase://supply/schema"]

        schema = (await session.read_resource("lorebase://supply/schema")).contents[0]
        assert "Supplier" in schema.text and "PurchaseOrder" in schema.text

        lens = (await session.read_resource("lorebase://supply/lenses/risk_review")).contents[0]
        assert lens.mime_type == "application/json"
        body = json.loads(lens.text)
        assert body["lens"] == "risk_review"
        assert {k["name"] for k in body["kinds"]} == {"Supplier", "PurchaseOrder"}
        assert {r["name"] for r in body["relations"]} == {"ordered_from", "supplies"}
        supplier = next(k for k in body["kinds"] if k["name"] == "Supplier")
        assert any(a["name"] == "risk_score" for a in supplier["attributes"])

        record = (await session.read_resource("lorebase://supply/Supplier/S-1001")).contents[0]
        assert "Kavsen Alloys" in record.text

        retail = (await session.read_resource("lorebase://retail/schema")).contents[0]
        assert "Product" in retail.text


async def test_missing_resources_are_resource_not_found(connect):
    async with connect() as session:
        for uri in ["lorebase://supply/Supplier/S-9999", "lorebase://supply/lenses/nope"]:
            with pytest.raises(MCPError) as e:
                await session.read_resource(uri)
            assert e.value.code == RESOURCE_NOT_FOUND, uri
            assert "not-found" in e.value.message
        with pytest.raises(MCPError) as e:
            await session.read_resource("lorebase://supply")
        assert e.value.code == INVALID_PARAMS


async def test_prompt_guide(connect):
    async with connect() as session:
        prompts = (await session.list_prompts()).prompts
        assert [p.name for p in prompts] == ["lorebase_guide"]
        assert {a.name for a in prompts[0].arguments} == {"domain", "task"}
        got = await session.get_prompt("lorebase_guide", {"domain": "retail", "task": "count red shoes"})
        text = got.messages[0].content.text
        assert "`retail`" in text and "count red shoes" in text
        assert "lorebase_resolve" in text and "dry_run" in text
        default = await session.get_prompt("lorebase_guide", {})
        assert "`supply`" in default.messages[0].content.text
        with pytest.raises(MCPError) as e:
            await session.get_prompt("no_such_prompt", {})
        assert e.value.code == INVALID_PARAMS


async def test_completion_lists_keeper_values(connect):
    async with connect() as session:
        record = ResourceTemplateReference(type="ref/resource", uri=RECORD_TEMPLATE)
        kinds = await session.complete(record, {"name": "kind", "value": "Sup"}, {"domain": "supply"})
        assert kinds.completion.values == ["Supplier"]
        keys = await session.complete(
            record, {"name": "key", "value": "S-100"}, {"domain": "supply", "kind": "Supplier"}
        )
        assert "S-1001" in keys.completion.values
        assert all(v.startswith("S-100") for v in keys.completion.values)
        lens = ResourceTemplateReference(type="ref/resource", uri=LENS_TEMPLATE)
        lenses = await session.complete(lens, {"name": "lens", "value": ""}, {"domain": "supply"})
        assert lenses.completion.values == ["risk_review", "sourcing"]
        domains = await session.complete(
            PromptReference(type="ref/prompt", name="lorebase_guide"), {"name": "domain", "value": "s"}
        )
        assert domains.completion.values == ["supply"]


async def test_resources_do_not_depend_on_the_tool_selection(binaries, secured_sandbox):
    key = secured_sandbox.keys["usr_steward"]
    async with stdio_session(
        binaries, secured_sandbox.url, args=["--tools", "lorebase_get"], env={"LOREBASE_API_KEY": key}
    ) as session:
        assert [t.name for t in (await session.list_tools()).tools] == ["lorebase_get"]
        schema = (await session.read_resource("lorebase://supply/schema")).contents[0]
        assert "Supplier" in schema.text
        with pytest.raises(MCPError) as e:
            await session.call_tool("lorebase_schema", {})
        assert e.value.code == INVALID_PARAMS

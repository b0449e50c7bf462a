"""The framework adapters: each builds the framework's own tool objects and runs one
against the sandbox through the framework's invocation path, without any model."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import pytest

from lorebase_herald import Herald

SUPPLIER = "Supplier/S-1001"


def test_importing_the_package_imports_no_framework() -> None:
    code = (
        "import sys, lorebase_herald\n"
        "h = lorebase_herald.Herald(url='http://127.0.0.1:9')\n"
        "h.to_openai_tools()\n"
        "loaded = [m for m in ('langchain_core', 'pydantic_ai', 'agents', 'openai', 'pydantic') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_openai_function_specs(herald: Herald) -> None:
    chat = herald.to_openai_tools()
    assert len(chat) == len(herald.list_tools())
    first = chat[0]
    assert first["type"] == "function"
    assert set(first["function"]) == {"name", "description", "parameters"}
    assert first["function"]["parameters"]["type"] == "object"
    assert "$schema" not in first["function"]["parameters"]
    json.dumps(chat)

    responses = herald.to_openai_tools(api="responses")
    assert responses[0] == {"type": "function", **first["function"]}
    with pytest.raises(ValueError):
        herald.to_openai_tools(api="assistants")


def test_openai_tool_call_round_trip(herald: Herald) -> None:
    from lorebase_herald.adapters.openai import run_openai_tool_call

    call = {"id": "call_1", "type": "function",
            "function": {"name": "lorebase_get", "arguments": json.dumps({"ref": SUPPLIER})}}
    message = run_openai_tool_call(herald, call)
    assert message["role"] == "tool" and message["tool_call_id"] == "call_1"
    assert message["content"] == herald.call_tool("lorebase_get", {"ref": SUPPLIER}).text

    made_up = {"id": "call_2", "function": {"name": "lorebase_fly", "arguments": "{}"}}
    assert run_openai_tool_call(herald, made_up)["content"].startswith("[unknown-tool]")
    broken = {"id": "call_3", "function": {"name": "lorebase_get", "arguments": "{not json"}}
    assert run_openai_tool_call(herald, broken)["content"].startswith("[bad-arguments]")


def test_langchain_tools(herald: Herald) -> None:
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import BaseTool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    tools = herald.to_langchain_tools()
    assert all(isinstance(tool, BaseTool) for tool in tools)
    by_name = {tool.name: tool for tool in tools}
    get = by_name["lorebase_get"]
    assert convert_to_openai_tool(get)["function"]["parameters"]["required"] == ["ref"]

    expected = herald.call_tool("lorebase_get", {"ref": SUPPLIER}).text
    # As an agent runs it: a tool call in, a ToolMessage out (content and artifact).
    call = {"name": "lorebase_get", "args": {"ref": SUPPLIER, "format": "json"}, "id": "call_1", "type": "tool_call"}
    message = get.invoke(call)
    assert isinstance(message, ToolMessage) and message.tool_call_id == "call_1"
    assert message.status == "success"
    assert isinstance(message.artifact, dict) and message.artifact
    assert get.invoke({"ref": SUPPLIER}) == expected

    async_message = asyncio.run(get.ainvoke({**call, "args": {"ref": SUPPLIER}}))
    assert async_message.content == expected

    failed = get.invoke({**call, "args": {"ref": "Supplier/NO-SUCH-KEY"}})
    assert failed.status == "error" and failed.content.startswith("[not-found]")


def test_adapters_never_show_the_key(herald: Herald, writer_key: str) -> None:
    for tool in herald.to_langchain_tools(api_key=writer_key):
        assert writer_key not in repr(tool) and writer_key not in str(tool.model_dump())


def test_pydantic_ai_tools(herald: Herald) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart, ToolReturnPart, TextPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.tools import Tool

    tools = herald.to_pydantic_ai_tools()
    assert all(isinstance(tool, Tool) for tool in tools)
    get = next(tool for tool in tools if tool.name == "lorebase_get")
    expected = herald.call_tool("lorebase_get", {"ref": SUPPLIER}).text
    assert asyncio.run(get.function(ref=SUPPLIER)) == expected

    # Through an agent run: a scripted function stands in for the model, the tool
    # call goes through PydanticAI's own tool manager to the sandbox.
    def script(messages: "list[ModelMessage]", info: AgentInfo) -> ModelResponse:
        returns = [part for message in messages for part in message.parts if isinstance(part, ToolReturnPart)]
        if not returns:
            assert "lorebase_get" in [tool.name for tool in info.function_tools]
            return ModelResponse(parts=[ToolCallPart("lorebase_get", {"ref": SUPPLIER}, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart(str(returns[0].content))])

    agent = Agent(FunctionModel(script), tools=tools)
    assert agent.run_sync("What is S-1001?").output == expected


def test_openai_agents_tools(herald: Herald) -> None:
    from agents import FunctionTool
    from agents.tool_context import ToolContext

    tools = herald.to_openai_agents_tools()
    assert all(isinstance(tool, FunctionTool) for tool in tools)
    get = next(tool for tool in tools if tool.name == "lorebase_get")
    assert get.params_json_schema["required"] == ["ref"]
    arguments = json.dumps({"ref": SUPPLIER})
    context = ToolContext(context=None, tool_name="lorebase_get", tool_call_id="call_1", tool_arguments=arguments)
    expected = herald.call_tool("lorebase_get", {"ref": SUPPLIER}).text

    async def invoke(args: str) -> Any:
        return await get.on_invoke_tool(context, args)

    assert asyncio.run(invoke(arguments)) == expected
    assert asyncio.run(invoke("{oops")).startswith("[bad-arguments]")
    missing = asyncio.run(invoke(json.dumps({"ref": "Supplier/NO-SUCH-KEY"})))
    assert missing.startswith("[not-found]")

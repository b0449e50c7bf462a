"""LlamaIndex: Herald's tools in LlamaIndex's own agent loop (``FunctionAgent``), with
LlamaIndex's mock function-calling LLM scripted turn by turn, against the sandbox."""

from __future__ import annotations

import asyncio
from typing import Any, List, Sequence

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools.types import AsyncBaseTool

from lorebase_herald import Herald
from lorebase_herald.adapters.llama_index import to_llama_index_tools
from scripted import LLAMA_INDEX_WARNINGS, GET, GET_JSON, GET_MISSING, REF, answer, assert_record, assert_tool_error, definitions_by_name

# FunctionAgent's workflow inspects itself with inspect.getmembers, which touches
# pydantic's deprecated attributes (LlamaIndex's own warnings, not the adapter's).
pytestmark = LLAMA_INDEX_WARNINGS


class Script:
    """Turn 1 asks for ``lorebase_get`` with ``arguments``; turn 2 answers what it read."""

    def __init__(self, arguments: dict) -> None:
        self.arguments = arguments
        self.seen: List[str] = []

    def __call__(self, messages: Sequence[ChatMessage], **_: Any) -> ChatMessage:
        results = [m for m in messages if m.role == MessageRole.TOOL]
        if not results:
            call = ToolCallBlock(tool_call_id="call_1", tool_name="lorebase_get", tool_kwargs=self.arguments)
            return ChatMessage(role=MessageRole.ASSISTANT, blocks=[call])
        self.seen.append(str(results[0].content))
        return ChatMessage(role=MessageRole.ASSISTANT, content=answer(self.seen[0]))


def run_agent(tools: List[AsyncBaseTool], arguments: dict) -> "tuple[Script, str]":
    script = Script(arguments)
    agent = FunctionAgent(tools=tools, llm=MockFunctionCallingLLM(response_generator=script))

    async def ask() -> str:
        return str(await agent.run(user_msg="Who is S-1001?"))

    return script, asyncio.run(ask())


def test_the_tools_are_heralds_definitions(herald: Herald) -> None:
    tools = to_llama_index_tools(herald)
    definitions = definitions_by_name(herald)
    assert [tool.metadata.name for tool in tools] == list(definitions)
    for tool in tools:
        definition = definitions[tool.metadata.get_name()]
        assert tool.metadata.description == definition["description"]
        assert tool.metadata.get_parameters_dict() == definition["parameters"]
        assert tool.metadata.to_openai_tool()["function"]["parameters"] == definition["parameters"]
        assert tool.metadata.annotations == definition["annotations"]
    assert tools[0].metadata.fn_schema is not None
    assert tools[0].metadata.fn_schema.model_json_schema() == tools[0].metadata.get_parameters_dict()


def test_function_agent_reads_the_record(herald: Herald) -> None:
    script, final = run_agent(to_llama_index_tools(herald), GET)
    assert_record(script.seen[0], herald)
    assert final == answer(script.seen[0])


def test_a_tool_failure_is_the_tool_result(herald: Herald) -> None:
    script, final = run_agent(to_llama_index_tools(herald), GET_MISSING)
    assert_tool_error(script.seen[0])
    assert final.startswith("The tool said: [not-found]")


def test_outputs_sync_and_async(herald: Herald) -> None:
    get = next(tool for tool in to_llama_index_tools(herald) if tool.metadata.name == "lorebase_get")
    output = get.call(**GET)
    assert not output.is_error and output.raw_output.text == output.content
    assert asyncio.run(get.acall(**GET)).content == output.content
    failed = get(ref="Supplier/NO-SUCH-KEY")
    assert failed.is_error and failed.content.startswith("[not-found]")


def test_format_json_and_the_api_key(keyless_herald: Herald, reader_key: str) -> None:
    script, _ = run_agent(to_llama_index_tools(keyless_herald), GET)
    assert script.seen[0].startswith("[unauthorized]")
    script, _ = run_agent(to_llama_index_tools(keyless_herald, api_key=reader_key), GET_JSON)
    import json

    assert json.loads(script.seen[0])["ref"] == REF
    assert reader_key not in repr(to_llama_index_tools(keyless_herald, api_key=reader_key))

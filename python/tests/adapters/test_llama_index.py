"""LlamaIndex: Herald's tools in LlamaIndex's own agent loop (``FunctionAgent``), with
LlamaIndex's mock function-calling LLM scripted turn by turn, against the sandbox."""

from __future__ import annotations

import asyncio
from typing import Any, List, Sequence, Tuple

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools.types import AsyncBaseTool

from conftest import Sandbox
from lorebase_herald import Herald
from lorebase_herald.adapters.llama_index import to_llama_index_tools
from scripted import (
    GET,
    GET_MISSING,
    LLAMA_INDEX_WARNINGS,
    RECORD_WORD,
    agent_loop_tests,
    answer,
    check_definitions,
    check_off_the_loop,
    definitions_by_name,
)

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


def run_agent(tools: List[AsyncBaseTool], arguments: dict) -> Tuple[str, str]:
    script = Script(arguments)
    agent = FunctionAgent(tools=tools, llm=MockFunctionCallingLLM(response_generator=script))

    async def ask() -> str:
        return str(await agent.run(user_msg="Who is S-1001?"))

    final = asyncio.run(ask())
    return script.seen[0], final


globals().update(agent_loop_tests(run_agent, to_llama_index_tools))


def test_the_tools_are_heralds_definitions(herald: Herald) -> None:
    tools = to_llama_index_tools(herald)
    check_definitions(herald, tools, lambda t: (t.metadata.name, t.metadata.description, t.metadata.get_parameters_dict()))
    definitions = definitions_by_name(herald)
    for tool in tools:
        assert tool.metadata.to_openai_tool()["function"]["parameters"] == definitions[tool.metadata.get_name()]["parameters"]
        assert tool.metadata.annotations == definitions[tool.metadata.get_name()]["annotations"]
    assert tools[0].metadata.fn_schema is not None
    assert tools[0].metadata.fn_schema.model_json_schema() == tools[0].metadata.get_parameters_dict()


def test_outputs_sync_and_async(herald: Herald) -> None:
    get = next(tool for tool in to_llama_index_tools(herald) if tool.metadata.name == "lorebase_get")
    output = get.call(**GET)
    assert not output.is_error and output.raw_output.text == output.content
    assert asyncio.run(get.acall(**GET)).content == output.content
    failed = get(**GET_MISSING)
    assert failed.is_error and failed.content.startswith("[not-found]")


def test_acall_leaves_the_event_loop_free(herald: Herald, sandbox: Sandbox) -> None:
    get = next(tool for tool in to_llama_index_tools(herald) if tool.metadata.name == "lorebase_get")
    assert RECORD_WORD in check_off_the_loop(sandbox, lambda: get.acall(**GET)).content

"""LangChain: Herald's tools in LangChain's own agent loop (``create_agent`` of
``langchain`` 1, on LangGraph), with a scripted chat model, against the sandbox."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List, Optional

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from lorebase_herald import Herald
from lorebase_herald.adapters.langchain import HeraldLangChainTool, to_langchain_tools
from scripted import GET, GET_JSON, GET_MISSING, REF, answer, assert_record, assert_tool_error, definitions_by_name


class ScriptedChatModel(BaseChatModel):
    """Turn 1 asks for ``lorebase_get`` with ``arguments``; turn 2 answers what it read."""

    arguments: Dict[str, Any]
    seen: List[ToolMessage] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedChatModel":
        assert "lorebase_get" in [convert_to_openai_tool(tool)["function"]["name"] for tool in tools]
        return self

    def _generate(self, messages: List[BaseMessage], stop: Optional[List[str]] = None, run_manager: Any = None, **_: Any) -> ChatResult:
        results = [m for m in messages if isinstance(m, ToolMessage)]
        if not results:
            reply = AIMessage(content="", tool_calls=[{"name": "lorebase_get", "args": self.arguments, "id": "call_1"}])
        else:
            self.seen.append(results[0])
            reply = AIMessage(content=answer(str(results[0].content)))
        return ChatResult(generations=[ChatGeneration(message=reply)])


def run_agent(tools: List[HeraldLangChainTool], arguments: Dict[str, Any]) -> "tuple[ScriptedChatModel, str]":
    model = ScriptedChatModel(arguments=arguments, seen=[])
    agent = create_agent(model, tools)
    state = agent.invoke({"messages": [{"role": "user", "content": "Who is S-1001?"}]})
    return model, str(state["messages"][-1].content)


def test_the_tools_are_heralds_definitions(herald: Herald, writer_key: str) -> None:
    tools = to_langchain_tools(herald, api_key=writer_key)
    definitions = definitions_by_name(herald)
    assert [tool.name for tool in tools] == list(definitions)
    for tool in tools:
        assert isinstance(tool, BaseTool)
        definition = definitions[tool.name]
        assert tool.description == definition["description"]
        assert tool.metadata == {"title": definition["title"], "annotations": definition["annotations"]}
        assert writer_key not in repr(tool) and writer_key not in str(tool.model_dump())
    get = next(tool for tool in tools if tool.name == "lorebase_get")
    assert convert_to_openai_tool(get)["function"]["parameters"]["required"] == ["ref"]


def test_create_agent_reads_the_record(herald: Herald) -> None:
    model, final = run_agent(to_langchain_tools(herald), GET)
    message = model.seen[0]
    assert message.status == "success" and message.tool_call_id == "call_1"
    assert_record(str(message.content), herald)
    assert isinstance(message.artifact, dict) and message.artifact["ref"] == REF
    assert final == answer(str(message.content))


def test_a_tool_failure_is_an_error_tool_message(herald: Herald) -> None:
    model, final = run_agent(to_langchain_tools(herald), GET_MISSING)
    assert model.seen[0].status == "error"
    assert_tool_error(str(model.seen[0].content))
    assert final.startswith("The tool said: [not-found]")


def test_format_json_the_api_key_and_async(keyless_herald: Herald, reader_key: str) -> None:
    model, _ = run_agent(to_langchain_tools(keyless_herald), GET)
    assert str(model.seen[0].content).startswith("[unauthorized]")
    model, _ = run_agent(to_langchain_tools(keyless_herald, api_key=reader_key), GET_JSON)
    assert json.loads(str(model.seen[0].content))["ref"] == REF

    get = next(tool for tool in to_langchain_tools(keyless_herald, api_key=reader_key) if tool.name == "lorebase_get")
    call = {"name": "lorebase_get", "args": GET, "id": "call_9", "type": "tool_call"}
    assert asyncio.run(get.ainvoke(call)).content == get.invoke(call).content

"""LangChain: Herald's tools in LangChain's own agent loop (``create_agent`` of
``langchain`` 1, on LangGraph), with a scripted chat model, against the sandbox."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List, Optional, Tuple

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from conftest import Sandbox
from lorebase_herald import Herald
from lorebase_herald.adapters.langchain import HeraldLangChainTool, to_langchain_tools
from scripted import (
    GET,
    RECORD_WORD,
    REF,
    agent_loop_tests,
    answer,
    check_definitions,
    check_off_the_loop,
)


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


def run_agent(tools: List[HeraldLangChainTool], arguments: Dict[str, Any]) -> Tuple[str, str]:
    model = ScriptedChatModel(arguments=arguments, seen=[])
    state = create_agent(model, tools).invoke({"messages": [{"role": "user", "content": "Who is S-1001?"}]})
    message = model.seen[0]
    assert message.tool_call_id == "call_1"
    assert message.status == ("error" if str(message.content).startswith("[") else "success")
    return str(message.content), str(state["messages"][-1].content)


globals().update(agent_loop_tests(run_agent, to_langchain_tools))


def test_the_tools_are_heralds_definitions(herald: Herald, writer_key: str) -> None:
    tools = to_langchain_tools(herald, api_key=writer_key)
    assert all(isinstance(tool, BaseTool) for tool in tools)
    check_definitions(
        herald, tools, lambda t: (t.name, t.description, convert_to_openai_tool(t)["function"]["parameters"])
    )
    for tool in tools:
        assert tool.metadata is not None and set(tool.metadata) == {"title", "annotations"}
        assert writer_key not in repr(tool) and writer_key not in str(tool.model_dump())


def test_artifacts_and_async(herald: Herald) -> None:
    get = next(tool for tool in to_langchain_tools(herald) if tool.name == "lorebase_get")
    call = {"name": "lorebase_get", "args": GET, "id": "call_9", "type": "tool_call"}
    message = get.invoke(call)
    assert isinstance(message.artifact, dict) and message.artifact["ref"] == REF
    assert asyncio.run(get.ainvoke(call)).content == message.content


def test_ainvoke_leaves_the_event_loop_free(herald: Herald, sandbox: Sandbox) -> None:
    get = next(tool for tool in to_langchain_tools(herald) if tool.name == "lorebase_get")
    assert RECORD_WORD in check_off_the_loop(sandbox, lambda: get.ainvoke(GET))

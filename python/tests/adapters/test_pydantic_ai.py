"""PydanticAI: Herald's tools in PydanticAI's own agent loop (``Agent.run_sync``), with
PydanticAI's ``FunctionModel`` scripted turn by turn, against the sandbox."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import Tool

from conftest import Sandbox
from lorebase_herald import Herald
from lorebase_herald.adapters.pydantic_ai import to_pydantic_ai_toolset, to_pydantic_ai_tools
from scripted import (
    GET,
    RECORD_WORD,
    agent_loop_tests,
    answer,
    check_definitions,
    check_off_the_loop,
    definitions_by_name,
)


class Script:
    """Turn 1 asks for ``lorebase_get`` with ``arguments``; turn 2 answers what it read
    (a tool return, or the failure PydanticAI reports back)."""

    def __init__(self, arguments: Dict[str, Any]) -> None:
        self.arguments = arguments
        self.seen: List[str] = []

    def __call__(self, messages: List[ModelMessage], info: AgentInfo) -> ModelResponse:
        parts = [p for m in messages for p in m.parts if isinstance(p, (ToolReturnPart, RetryPromptPart))]
        if not parts:
            assert "lorebase_get" in [tool.name for tool in info.function_tools]
            return ModelResponse(parts=[ToolCallPart("lorebase_get", self.arguments, tool_call_id="c1")])
        part = parts[0]
        self.seen.append(str(part.content) if isinstance(part, ToolReturnPart) else part.model_response())
        return ModelResponse(parts=[TextPart(answer(self.seen[0]))])


def run_agent(tools: "List[Tool[Any]]", arguments: Dict[str, Any]) -> Tuple[str, str]:
    script = Script(arguments)
    final = Agent(FunctionModel(script), tools=tools).run_sync("Who is S-1001?").output
    return script.seen[0], final


globals().update(agent_loop_tests(run_agent, to_pydantic_ai_tools))


def test_the_tools_are_heralds_definitions(herald: Herald) -> None:
    tools = to_pydantic_ai_tools(herald)
    assert all(isinstance(tool, Tool) for tool in tools)
    check_definitions(herald, tools, lambda t: (t.name, t.description, t.function_schema.json_schema))
    assert [tool.name for tool in to_pydantic_ai_toolset(herald).tools.values()] == [tool.name for tool in tools]
    definitions = definitions_by_name(herald)
    for tool in tools:
        assert tool.metadata == {"title": definitions[tool.name]["title"], "annotations": definitions[tool.name]["annotations"]}


def test_the_tool_leaves_the_event_loop_free(herald: Herald, sandbox: Sandbox) -> None:
    get = next(tool for tool in to_pydantic_ai_tools(herald) if tool.name == "lorebase_get")
    assert RECORD_WORD in check_off_the_loop(sandbox, lambda: get.function(**GET))

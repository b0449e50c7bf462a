"""PydanticAI: Herald's tools in PydanticAI's own agent loop (``Agent.run_sync``), with
PydanticAI's ``FunctionModel`` scripted turn by turn, against the sandbox."""

from __future__ import annotations

import json
from typing import Any, Dict, List

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import Tool

from lorebase_herald import Herald
from lorebase_herald.adapters.pydantic_ai import to_pydantic_ai_toolset, to_pydantic_ai_tools
from scripted import GET, GET_JSON, GET_MISSING, REF, answer, assert_record, assert_tool_error, definitions_by_name


class Script:
    """Turn 1 asks for ``lorebase_get`` with ``arguments``; turn 2 answers what it read
    (a tool return, or the failure PydanticAI reports back)."""

    def __init__(self, arguments: Dict[str, Any]) -> None:
        self.arguments = arguments
        self.seen: List[Any] = []

    def __call__(self, messages: List[ModelMessage], info: AgentInfo) -> ModelResponse:
        parts = [p for m in messages for p in m.parts if isinstance(p, (ToolReturnPart, RetryPromptPart))]
        if not parts:
            assert "lorebase_get" in [tool.name for tool in info.function_tools]
            return ModelResponse(parts=[ToolCallPart("lorebase_get", self.arguments, tool_call_id="c1")])
        self.seen.append(parts[0])
        text = parts[0].content if isinstance(parts[0], ToolReturnPart) else parts[0].model_response()
        return ModelResponse(parts=[TextPart(answer(str(text)))])


def run_agent(tools: "List[Tool[Any]]", arguments: Dict[str, Any]) -> "tuple[Script, str]":
    script = Script(arguments)
    return script, Agent(FunctionModel(script), tools=tools).run_sync("Who is S-1001?").output


def test_the_tools_are_heralds_definitions(herald: Herald) -> None:
    tools = to_pydantic_ai_tools(herald)
    definitions = definitions_by_name(herald)
    assert [tool.name for tool in tools] == list(definitions)
    for tool in tools:
        assert isinstance(tool, Tool)
        assert tool.description == definitions[tool.name]["description"]
        assert tool.function_schema.json_schema == definitions[tool.name]["parameters"]
    assert [tool.name for tool in to_pydantic_ai_toolset(herald).tools.values()] == list(definitions)


def test_agent_run_reads_the_record(herald: Herald) -> None:
    script, final = run_agent(to_pydantic_ai_tools(herald), GET)
    assert isinstance(script.seen[0], ToolReturnPart)
    assert_record(str(script.seen[0].content), herald)
    assert final == answer(str(script.seen[0].content))


def test_a_tool_failure_reaches_the_model(herald: Herald) -> None:
    script, final = run_agent(to_pydantic_ai_tools(herald), GET_MISSING)
    part = script.seen[0]
    text = str(part.content)
    assert_tool_error(text)
    assert "The tool said: [not-found]" in final


def test_format_json_and_the_api_key(keyless_herald: Herald, reader_key: str) -> None:
    script, _ = run_agent(to_pydantic_ai_tools(keyless_herald), GET)
    assert str(script.seen[0].content).startswith("[unauthorized]")
    script, _ = run_agent(to_pydantic_ai_tools(keyless_herald, api_key=reader_key), GET_JSON)
    assert json.loads(str(script.seen[0].content))["ref"] == REF

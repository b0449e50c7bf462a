"""OpenAI Agents SDK: Herald's tools in the SDK's own run loop (``Runner.run``), with a
scripted ``Model`` (the SDK's model interface, no network), against the sandbox."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Dict, List

from agents import Agent, FunctionTool, ModelResponse, Runner, Usage, set_tracing_disabled
from agents.models.interface import Model
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from lorebase_herald import Herald
from lorebase_herald.adapters.openai_agents import to_openai_agents_tools
from scripted import GET, GET_JSON, GET_MISSING, REF, answer, assert_record, assert_tool_error, definitions_by_name

set_tracing_disabled(True)


class ScriptedModel(Model):
    """Turn 1 asks for ``lorebase_get`` with ``arguments``; turn 2 answers what it read."""

    def __init__(self, arguments: Dict[str, Any]) -> None:
        self.arguments = arguments
        self.seen: List[str] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        outputs = [item for item in input if isinstance(item, dict) and item.get("type") == "function_call_output"]
        if not outputs:
            call = ResponseFunctionToolCall(
                type="function_call", call_id="call_1", name="lorebase_get", arguments=json.dumps(self.arguments)
            )
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        self.seen.append(str(outputs[0]["output"]))
        text = ResponseOutputText(type="output_text", text=answer(self.seen[0]), annotations=[])
        message = ResponseOutputMessage(id="m1", type="message", role="assistant", status="completed", content=[text])
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


def run_agent(tools: List[FunctionTool], arguments: Dict[str, Any]) -> "tuple[ScriptedModel, str]":
    model = ScriptedModel(arguments)
    result = asyncio.run(Runner.run(Agent(name="analyst", model=model, tools=list(tools)), "Who is S-1001?"))
    return model, str(result.final_output)


def test_the_tools_are_heralds_definitions(herald: Herald) -> None:
    tools = to_openai_agents_tools(herald)
    definitions = definitions_by_name(herald)
    assert [tool.name for tool in tools] == list(definitions)
    for tool in tools:
        assert isinstance(tool, FunctionTool)
        assert tool.description == definitions[tool.name]["description"]
        assert tool.params_json_schema == definitions[tool.name]["parameters"]
        assert tool.strict_json_schema is False


def test_runner_reads_the_record(herald: Herald) -> None:
    model, final = run_agent(to_openai_agents_tools(herald), GET)
    assert_record(model.seen[0], herald)
    assert final == answer(model.seen[0])


def test_a_tool_failure_is_the_tool_output(herald: Herald) -> None:
    model, final = run_agent(to_openai_agents_tools(herald), GET_MISSING)
    assert_tool_error(model.seen[0])
    assert final.startswith("The tool said: [not-found]")


def test_format_json_the_api_key_and_bad_json(keyless_herald: Herald, reader_key: str) -> None:
    model, _ = run_agent(to_openai_agents_tools(keyless_herald), GET)
    assert model.seen[0].startswith("[unauthorized]")
    model, _ = run_agent(to_openai_agents_tools(keyless_herald, api_key=reader_key), GET_JSON)
    assert json.loads(model.seen[0])["ref"] == REF

    from agents.tool_context import ToolContext

    get = next(tool for tool in to_openai_agents_tools(keyless_herald, api_key=reader_key) if tool.name == "lorebase_get")
    context = ToolContext(context=None, tool_name="lorebase_get", tool_call_id="c", tool_arguments="{oops")
    assert asyncio.run(get.on_invoke_tool(context, "{oops")).startswith("[bad-arguments]")

"""OpenAI Agents SDK: Herald's tools in the SDK's own run loop (``Runner.run``), with a
scripted ``Model`` (the SDK's model interface, no network), against the sandbox."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Dict, List, Tuple

from agents import Agent, FunctionTool, ModelResponse, Runner, Usage, set_tracing_disabled
from agents.models.interface import Model
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from conftest import Sandbox
from lorebase_herald import Herald
from lorebase_herald.adapters.openai_agents import to_openai_agents_tools
from scripted import (
    GET,
    RECORD_WORD,
    agent_loop_tests,
    answer,
    check_definitions,
    check_off_the_loop,
)

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


def run_agent(tools: List[FunctionTool], arguments: Dict[str, Any]) -> Tuple[str, str]:
    model = ScriptedModel(arguments)
    result = asyncio.run(Runner.run(Agent(name="analyst", model=model, tools=list(tools)), "Who is S-1001?"))
    return model.seen[0], str(result.final_output)


globals().update(agent_loop_tests(run_agent, to_openai_agents_tools))


def test_the_tools_are_heralds_definitions(herald: Herald) -> None:
    tools = to_openai_agents_tools(herald)
    assert all(isinstance(tool, FunctionTool) and tool.strict_json_schema is False for tool in tools)
    check_definitions(herald, tools, lambda t: (t.name, t.description, t.params_json_schema))


def test_arguments_that_are_not_json_are_a_result(herald: Herald) -> None:
    from agents.tool_context import ToolContext

    get = next(tool for tool in to_openai_agents_tools(herald) if tool.name == "lorebase_get")
    context = ToolContext(context=None, tool_name="lorebase_get", tool_call_id="c", tool_arguments="{oops")
    assert asyncio.run(get.on_invoke_tool(context, "{oops")).startswith("[bad-arguments]")


def test_the_tool_leaves_the_event_loop_free(herald: Herald, sandbox: Sandbox) -> None:
    from agents.tool_context import ToolContext

    get = next(tool for tool in to_openai_agents_tools(herald) if tool.name == "lorebase_get")
    context = ToolContext(context=None, tool_name="lorebase_get", tool_call_id="c", tool_arguments=json.dumps(GET))
    assert RECORD_WORD in check_off_the_loop(sandbox, lambda: get.on_invoke_tool(context, json.dumps(GET)))

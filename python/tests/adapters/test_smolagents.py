"""smolagents: Herald's tools in smolagents' own agent loop (``ToolCallingAgent``), with
a scripted ``Model`` (smolagents' model interface, no network), against the sandbox."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from smolagents import ToolCallingAgent
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model

from lorebase_herald import Herald
from lorebase_herald.adapters.smolagents import HeraldSmolagentsTool, to_smolagents_tools
from scripted import GET, GET_JSON, GET_MISSING, REF, assert_record, assert_tool_error, definitions_by_name


def _text(message: ChatMessage) -> str:
    content = message.content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return content or ""


class ScriptedModel(Model):
    """Turn 1 asks for ``lorebase_get`` with ``arguments``; turn 2 calls ``final_answer``
    with what it read."""

    def __init__(self, arguments: Dict[str, Any]) -> None:
        super().__init__(model_id="scripted")
        self.arguments = arguments
        self.seen: List[str] = []

    def generate(self, messages: List[ChatMessage], stop_sequences: Optional[List[str]] = None, **_: Any) -> ChatMessage:
        observations = [_text(m) for m in messages if m.role == MessageRole.TOOL_RESPONSE]
        if not observations:
            call = ChatMessageToolCallFunction(name="lorebase_get", arguments=self.arguments)
        else:
            self.seen.append(observations[0])
            call = ChatMessageToolCallFunction(name="final_answer", arguments={"answer": observations[0]})
        return ChatMessage(
            role=MessageRole.ASSISTANT, tool_calls=[ChatMessageToolCall(function=call, id=f"call_{len(self.seen)}", type="function")]
        )


def run_agent(tools: List[HeraldSmolagentsTool], arguments: Dict[str, Any]) -> "tuple[ScriptedModel, str]":
    model = ScriptedModel(arguments)
    agent = ToolCallingAgent(tools=list(tools), model=model, max_steps=3, verbosity_level=0)
    return model, str(agent.run("Who is S-1001?"))


def observed(model: ScriptedModel) -> str:
    """The tool's text inside the observation smolagents sent the model."""
    prefix = "Observation:\n"
    assert model.seen[0].startswith(prefix), model.seen[0]
    return model.seen[0][len(prefix) :]


def test_the_tools_are_heralds_definitions(herald: Herald) -> None:
    from smolagents.models import get_tool_json_schema

    tools = to_smolagents_tools(herald)
    definitions = definitions_by_name(herald)
    assert [tool.name for tool in tools] == list(definitions)
    for tool in tools:
        definition = definitions[tool.name]
        parameters = get_tool_json_schema(tool)["function"]["parameters"]
        assert tool.description == definition["description"]
        assert set(parameters["properties"]) == set(definition["parameters"]["properties"])
        assert set(parameters["required"]) == set(definition["parameters"].get("required", []))
        assert tool.annotations == definition["annotations"]
    get = next(tool for tool in tools if tool.name == "lorebase_get")
    assert get.inputs["format"]["enum"] == definitions["lorebase_get"]["parameters"]["properties"]["format"]["enum"]


def test_tool_calling_agent_reads_the_record(herald: Herald) -> None:
    model, final = run_agent(to_smolagents_tools(herald), GET)
    assert_record(observed(model).strip(), herald)
    assert final == model.seen[0]


def test_a_tool_failure_is_the_observation(herald: Herald) -> None:
    model, final = run_agent(to_smolagents_tools(herald), GET_MISSING)
    assert_tool_error(observed(model).strip())
    assert "[not-found]" in final


def test_format_json_and_the_api_key(keyless_herald: Herald, reader_key: str) -> None:
    model, _ = run_agent(to_smolagents_tools(keyless_herald), GET)
    assert observed(model).strip().startswith("[unauthorized]")
    model, _ = run_agent(to_smolagents_tools(keyless_herald, api_key=reader_key), GET_JSON)
    assert json.loads(observed(model).strip())["ref"] == REF
    assert reader_key not in repr(to_smolagents_tools(keyless_herald, api_key=reader_key))

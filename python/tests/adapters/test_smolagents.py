"""smolagents: Herald's tools in smolagents' own agent loop (``ToolCallingAgent``), with
a scripted ``Model`` (smolagents' model interface, no network), against the sandbox."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from smolagents import ToolCallingAgent
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model

from lorebase_herald import Herald
from lorebase_herald.adapters.smolagents import HeraldSmolagentsTool, to_smolagents_tools
from scripted import (
    agent_loop_tests,
    answer,
    definitions_by_name,
)


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
            prefix = "Observation:\n"
            assert observations[0].startswith(prefix), observations[0]
            self.seen.append(observations[0][len(prefix) :])
            call = ChatMessageToolCallFunction(name="final_answer", arguments={"answer": answer(self.seen[0])})
        return ChatMessage(
            role=MessageRole.ASSISTANT, tool_calls=[ChatMessageToolCall(function=call, id=f"call_{len(self.seen)}", type="function")]
        )


def run_agent(tools: List[HeraldSmolagentsTool], arguments: Dict[str, Any]) -> Tuple[str, str]:
    model = ScriptedModel(arguments)
    final = str(ToolCallingAgent(tools=list(tools), model=model, max_steps=3, verbosity_level=0).run("Who is S-1001?"))
    return model.seen[0], final


globals().update(agent_loop_tests(run_agent, to_smolagents_tools))


def test_the_tools_are_heralds_definitions(herald: Herald) -> None:
    from smolagents.models import get_tool_json_schema

    tools = to_smolagents_tools(herald)
    definitions = definitions_by_name(herald)
    for tool in tools:
        # smolagents shows the model its own rendering of the inputs: the same arguments,
        # the same required ones, each argument's schema kept.
        parameters = get_tool_json_schema(tool)["function"]["parameters"]
        expected = definitions[tool.name]["parameters"]
        assert tool.description == definitions[tool.name]["description"]
        assert set(parameters["properties"]) == set(expected["properties"])
        assert set(parameters["required"]) == set(expected.get("required", []))
        assert tool.annotations == definitions[tool.name]["annotations"]
    assert [tool.name for tool in tools] == list(definitions)
    get = next(tool for tool in tools if tool.name == "lorebase_get")
    assert get.inputs["format"]["enum"] == definitions["lorebase_get"]["parameters"]["properties"]["format"]["enum"]



"""Google ADK: Herald's tools in ADK's own agent loop (``LlmAgent`` run by an
``InMemoryRunner``), with a scripted ``BaseLlm`` (ADK's model interface, no network),
against the sandbox."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncGenerator, Dict, List

from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types

from lorebase_herald import Herald
from lorebase_herald.adapters.google_adk import HeraldAdkTool, to_google_adk_tools
from scripted import GET, GET_JSON, GET_MISSING, REF, answer, assert_record, assert_tool_error, definitions_by_name


class ScriptedLlm(BaseLlm):
    """Turn 1 asks for ``lorebase_get`` with ``arguments``; turn 2 answers what it read."""

    model: str = "scripted"
    arguments: Dict[str, Any]
    seen: List[Dict[str, Any]] = []

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        responses = [
            part.function_response
            for content in llm_request.contents
            for part in content.parts or []
            if part.function_response is not None
        ]
        if not responses:
            assert "lorebase_get" in llm_request.tools_dict
            call = types.FunctionCall(id="call_1", name="lorebase_get", args=self.arguments)
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))
            return
        response = dict(responses[0].response or {})
        self.seen.append(response)
        text = response.get("result") or response.get("error") or ""
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=answer(text))]))


def run_agent(tools: List[HeraldAdkTool], arguments: Dict[str, Any]) -> "tuple[ScriptedLlm, str]":
    model = ScriptedLlm(arguments=arguments, seen=[])
    runner = InMemoryRunner(agent=LlmAgent(name="analyst", model=model, tools=list(tools)), app_name="herald")

    async def ask() -> str:
        session = await runner.session_service.create_session(app_name="herald", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text="Who is S-1001?")])
        final = ""
        async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            if event.is_final_response() and event.content and event.content.parts:
                final = "".join(part.text or "" for part in event.content.parts)
        return final

    return model, asyncio.run(ask())


def test_the_tools_are_heralds_definitions(herald: Herald) -> None:
    tools = to_google_adk_tools(herald)
    definitions = definitions_by_name(herald)
    assert [tool.name for tool in tools] == list(definitions)
    for tool in tools:
        definition = definitions[tool.name]
        declaration = tool._get_declaration()
        assert declaration.name == tool.name and declaration.description == definition["description"]
        assert declaration.parameters_json_schema == definition["parameters"]
        assert tool.custom_metadata == {"title": definition["title"], "annotations": definition["annotations"]}
        json.dumps(tool.custom_metadata)


def test_llm_agent_reads_the_record(herald: Herald) -> None:
    model, final = run_agent(to_google_adk_tools(herald), GET)
    assert list(model.seen[0]) == ["result"]
    assert_record(model.seen[0]["result"], herald)
    assert final == answer(model.seen[0]["result"])


def test_a_tool_failure_is_the_function_response(herald: Herald) -> None:
    model, final = run_agent(to_google_adk_tools(herald), GET_MISSING)
    assert list(model.seen[0]) == ["error"]
    assert_tool_error(model.seen[0]["error"])
    assert final.startswith("The tool said: [not-found]")


def test_format_json_and_the_api_key(keyless_herald: Herald, reader_key: str) -> None:
    model, _ = run_agent(to_google_adk_tools(keyless_herald), GET)
    assert model.seen[0]["error"].startswith("[unauthorized]")
    model, _ = run_agent(to_google_adk_tools(keyless_herald, api_key=reader_key), GET_JSON)
    assert json.loads(model.seen[0]["result"])["ref"] == REF
    assert reader_key not in repr(to_google_adk_tools(keyless_herald, api_key=reader_key))

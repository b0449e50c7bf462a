"""Google ADK: Herald's tools in ADK's own agent loop (``LlmAgent`` run by an
``InMemoryRunner``), with a scripted ``BaseLlm`` (ADK's model interface, no network),
against the sandbox."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncGenerator, Dict, List, Tuple

from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types

from conftest import Sandbox
from lorebase_herald import Herald
from lorebase_herald.adapters.google_adk import HeraldAdkTool, to_google_adk_tools
from scripted import (
    GET,
    RECORD_WORD,
    agent_loop_tests,
    answer,
    check_definitions,
    check_off_the_loop,
    definitions_by_name,
)


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


def run_agent(tools: List[HeraldAdkTool], arguments: Dict[str, Any]) -> Tuple[str, str]:
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

    final = asyncio.run(ask())
    (key, text), = model.seen[0].items()
    assert key == ("error" if text.startswith("[") else "result"), model.seen[0]
    return text, final


globals().update(agent_loop_tests(run_agent, to_google_adk_tools))


def test_the_tools_are_heralds_definitions(herald: Herald) -> None:
    tools = to_google_adk_tools(herald)
    declarations = [tool._get_declaration() for tool in tools]
    check_definitions(herald, declarations, lambda d: (d.name, d.description, d.parameters_json_schema))
    definitions = definitions_by_name(herald)
    for tool in tools:
        definition = definitions[tool.name]
        assert tool.custom_metadata == {"title": definition["title"], "annotations": definition["annotations"]}
        json.dumps(tool.custom_metadata)


def test_run_async_leaves_the_event_loop_free(herald: Herald, sandbox: Sandbox) -> None:
    get = next(tool for tool in to_google_adk_tools(herald) if tool.name == "lorebase_get")
    answer_ = check_off_the_loop(sandbox, lambda: get.run_async(args=dict(GET), tool_context=None))
    assert RECORD_WORD in answer_["result"]

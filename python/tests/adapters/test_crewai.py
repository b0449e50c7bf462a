"""CrewAI: Herald's tools in CrewAI's own agent loop (a ``Crew`` of one ``Agent`` and one
``Task``), with a scripted ``BaseLLM`` (CrewAI's custom-LLM interface, no network),
against the sandbox. CrewAI runs in its own environment (crewai-requirements.txt)."""

from __future__ import annotations

import json
import os
import re
from typing import Any, Dict, List, Tuple

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_DISABLE_TRACKING", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

import pytest  # noqa: E402
from crewai import Agent, Crew, Task  # noqa: E402
from crewai.llms.base_llm import BaseLLM  # noqa: E402

from lorebase_herald import Herald  # noqa: E402
from lorebase_herald.adapters.crewai import HeraldCrewAITool, to_crewai_tools  # noqa: E402
from scripted import (  # noqa: E402
    GET,
    GET_MISSING,
    RECORD_WORD,
    agent_loop_tests,
    answer,
    check_definitions,
    check_off_the_loop,
    definitions_by_name,
)

# CrewAI warns about its own deprecated fields when it builds a crew.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:crewai")

OBSERVATION = re.compile(r"Observation:\s*(.*?)\s*$", re.S)


class ScriptedLLM(BaseLLM):
    """Turn 1 asks for ``lorebase_get`` with ``arguments`` (CrewAI's text protocol);
    turn 2 gives the final answer from the observation it read."""

    arguments: Dict[str, Any] = {}
    seen: List[str] = []

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None, **_: Any) -> str:
        # The first two messages are CrewAI's prompt (which explains "Observation:");
        # the tool's result comes in a later one.
        later = [] if isinstance(messages, str) else [str(m.get("content", "")) for m in messages[2:]]
        found = next((OBSERVATION.search(m) for m in later if "Observation:" in m), None)
        if found is None:
            return f"Thought: I look it up.\nAction: lorebase_get\nAction Input: {json.dumps(self.arguments)}"
        self.seen.append(found.group(1))
        return f"Thought: I now know the final answer\nFinal Answer: {answer(found.group(1))}"

    def supports_function_calling(self) -> bool:
        return False


def run_crew(tools: List[HeraldCrewAITool], arguments: Dict[str, Any]) -> Tuple[str, str]:
    llm = ScriptedLLM(model="scripted", arguments=arguments, seen=[])
    analyst = Agent(role="analyst", goal="Answer about Records", backstory="Reads Lorebase.", tools=list(tools), llm=llm)
    task = Task(description="Who is S-1001?", expected_output="One line.", agent=analyst)
    final = str(Crew(agents=[analyst], tasks=[task]).kickoff())
    return llm.seen[0], final


globals().update(agent_loop_tests(run_crew, to_crewai_tools))


def test_the_tools_are_heralds_definitions(herald: Herald, reader_key: str) -> None:
    tools = to_crewai_tools(herald, api_key=reader_key)
    check_definitions(herald, tools, lambda t: (t.name, t.description, t.args_schema.model_json_schema()))
    definitions = definitions_by_name(herald)
    for tool in tools:
        assert tool.annotations == definitions[tool.name]["annotations"]
        assert reader_key not in repr(tool) and reader_key not in str(tool.model_dump())


def test_async_runs_off_the_loop(herald: Herald) -> None:
    import asyncio

    get = next(tool for tool in to_crewai_tools(herald) if tool.name == "lorebase_get")
    assert asyncio.run(get.arun(**GET)) == herald.call_tool("lorebase_get", GET).text
    assert get.run(**GET_MISSING).startswith("[not-found]")


def test_the_readme_example(monkeypatch: "pytest.MonkeyPatch", herald: Herald, sandbox: Any, reader_key: str) -> None:
    from scripted import run_readme_example

    monkeypatch.setenv("LOREBASE_URL", sandbox.url)
    monkeypatch.setenv("LOREBASE_API_KEY", reader_key)
    llm = ScriptedLLM(model="scripted", arguments=GET, seen=[])
    namespace = run_readme_example("python/crewai", llm=llm)
    assert namespace["answer"] == answer(herald.call_tool("lorebase_get", GET).text)


def test_arun_leaves_the_event_loop_free(herald: Herald, sandbox: Any) -> None:
    get = next(tool for tool in to_crewai_tools(herald) if tool.name == "lorebase_get")
    assert RECORD_WORD in check_off_the_loop(sandbox, lambda: get.arun(**GET))

"""The README's Python in-process examples run as written, one per framework, each with
that framework's scripted model (from the framework's own test beside this file) and
the sandbox Keeper in the environment (``Herald()`` reads LOREBASE_URL and
LOREBASE_API_KEY). CrewAI's example runs in test_crewai.py (its own environment)."""

from __future__ import annotations

import pytest

from conftest import Sandbox
from lorebase_herald import Herald
from scripted import LLAMA_INDEX_WARNINGS, GET, answer, readme_examples, run_readme_example


@pytest.fixture(autouse=True)
def _sandbox_in_the_environment(monkeypatch: pytest.MonkeyPatch, sandbox: Sandbox, reader_key: str) -> None:
    monkeypatch.setenv("LOREBASE_URL", sandbox.url)
    monkeypatch.setenv("LOREBASE_API_KEY", reader_key)


def expected(herald: Herald) -> str:
    return answer(herald.call_tool("lorebase_get", GET).text)


def test_the_readme_has_one_python_example_per_adapter() -> None:
    python = sorted(name for name in readme_examples() if name.startswith("python/"))
    frameworks = ["crewai", "google-adk", "langchain", "llama-index", "openai-agents", "pydantic-ai", "smolagents"]
    assert python == [f"python/{framework}" for framework in frameworks]


def test_langchain(herald: Herald) -> None:
    from test_langchain import ScriptedChatModel

    model = ScriptedChatModel(arguments=GET, seen=[])
    assert run_readme_example("python/langchain", model=model)["answer"] == expected(herald)


def test_pydantic_ai(herald: Herald) -> None:
    from pydantic_ai.models.function import FunctionModel
    from test_pydantic_ai import Script

    assert run_readme_example("python/pydantic-ai", model=FunctionModel(Script(GET)))["answer"] == expected(herald)


def test_openai_agents(herald: Herald) -> None:
    from test_openai_agents import ScriptedModel

    assert run_readme_example("python/openai-agents", model=ScriptedModel(GET))["answer"] == expected(herald)


@LLAMA_INDEX_WARNINGS[0]
@LLAMA_INDEX_WARNINGS[1]
def test_llama_index(herald: Herald) -> None:
    from llama_index.core.llms.mock import MockFunctionCallingLLM
    from test_llama_index import Script

    llm = MockFunctionCallingLLM(response_generator=Script(GET))
    assert run_readme_example("python/llama-index", llm=llm)["answer"] == expected(herald)


def test_google_adk(herald: Herald) -> None:
    from test_google_adk import ScriptedLlm

    model = ScriptedLlm(arguments=GET, seen=[])
    assert run_readme_example("python/google-adk", model=model)["answer"] == expected(herald)


def test_smolagents(herald: Herald) -> None:
    from test_smolagents import ScriptedModel

    assert run_readme_example("python/smolagents", model=ScriptedModel(GET))["answer"] == expected(herald)

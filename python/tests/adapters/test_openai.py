"""OpenAI-style function specs (no framework): the specs, one tool call round trip,
and the package importing no framework until an adapter is used."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lorebase_herald import Herald
from lorebase_herald.adapters.openai import run_openai_tool_call, to_openai_tools
from scripted import GET, GET_MISSING, assert_record, assert_tool_error


def test_importing_the_package_and_the_openai_specs_imports_no_framework() -> None:
    code = (
        "import sys, lorebase_herald\n"
        "from lorebase_herald.adapters.openai import to_openai_tools\n"
        "to_openai_tools(lorebase_herald.Herald(url='http://127.0.0.1:9'))\n"
        "frameworks = ('langchain_core', 'pydantic_ai', 'agents', 'openai', 'pydantic', 'llama_index',\n"
        "              'crewai', 'google', 'smolagents')\n"
        "loaded = [m for m in frameworks if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_openai_function_specs(herald: Herald) -> None:
    chat = to_openai_tools(herald)
    assert len(chat) == len(herald.list_tools())
    first = chat[0]
    assert first["type"] == "function"
    assert set(first["function"]) == {"name", "description", "parameters"}
    assert first["function"]["parameters"]["type"] == "object"
    assert "$schema" not in first["function"]["parameters"]
    json.dumps(chat)

    responses = to_openai_tools(herald, api="responses")
    assert responses[0] == {"type": "function", **first["function"]}
    with pytest.raises(ValueError):
        to_openai_tools(herald, api="assistants")


def test_openai_tool_call_round_trip(herald: Herald) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "lorebase_get", "arguments": json.dumps(GET)}}
    message = run_openai_tool_call(herald, call)
    assert message["role"] == "tool" and message["tool_call_id"] == "call_1"
    assert_record(message["content"], herald)

    missing = {"id": "call_2", "function": {"name": "lorebase_get", "arguments": json.dumps(GET_MISSING)}}
    assert_tool_error(run_openai_tool_call(herald, missing)["content"])
    made_up = {"id": "call_3", "function": {"name": "lorebase_fly", "arguments": "{}"}}
    assert run_openai_tool_call(herald, made_up)["content"].startswith("[unknown-tool]")
    broken = {"id": "call_4", "function": {"name": "lorebase_get", "arguments": "{not json"}}
    assert run_openai_tool_call(herald, broken)["content"].startswith("[bad-arguments]")

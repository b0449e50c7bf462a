"""What the framework adapter tests (``test_*.py`` beside this file) share: the Record
every scripted model asks for, the answer it gives once it has read a tool result, the
checks of what it read, and the README's examples.

Every scripted model follows the same two turns: turn 1 asks for ``lorebase_get``
with the arguments the test gives; turn 2 reads the tool result the framework sent
back and answers ``The tool said: <its first line>``. The tests then assert on what
the model received, as the model would have seen it.
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable, Dict, List, Tuple

import pytest

#: The Record the model asks for, a word of its text, and a ref that does not exist.
REF = "Supplier/S-1001"
RECORD_WORD = "Kavsen Alloys"
MISSING_REF = "Supplier/NO-SUCH-KEY"
GET = {"ref": REF}
GET_MISSING = {"ref": MISSING_REF}
GET_JSON = {"ref": REF, "format": "json"}

#: LlamaIndex's FunctionAgent inspects itself (inspect.getmembers), touching pydantic's
#: deprecated attributes: LlamaIndex's own warnings, not the adapter's.
LLAMA_INDEX_WARNINGS = [
    pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince20"),
    pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince211"),
]


def answer(tool_text: str) -> str:
    """What every scripted model says once it has read ``tool_text``."""
    return f"The tool said: {tool_text.splitlines()[0]}"


def assert_record(text: str, herald: Any) -> None:
    """``text`` is exactly what Herald answers for ``lorebase_get`` of :data:`REF`."""
    assert RECORD_WORD in text
    assert text == herald.call_tool("lorebase_get", GET).text


def assert_tool_error(text: str) -> None:
    """``text`` is Herald's not-found error, with its ``next:`` line."""
    assert text.startswith("[not-found] "), text
    assert "\nnext: " in text, text


def definitions_by_name(herald: Any) -> Dict[str, Dict[str, Any]]:
    """Herald's tool definitions, by name, with the input schema as frameworks get it."""
    out = {}
    for tool in herald.list_tools():
        schema = {k: v for k, v in tool["inputSchema"].items() if k != "$schema"}
        out[tool["name"]] = {**tool, "parameters": schema}
    return out


def readme_examples() -> Dict[str, str]:
    """The README's in-process examples, as written: ``{"<language>/<framework>": code}``
    for each fenced block after an ``<!-- example: ... -->`` line of README.md."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    return {m.group(1): m.group(2) for m in re.finditer(r"<!-- example: (\S+) -->\n```\w*\n(.*?)\n```", readme, re.S)}


def run_readme_example(name: str, **names: Any) -> Dict[str, Any]:
    """Runs one README block as written, with ``names`` (the scripted ``model`` or ``llm``)
    defined; top-level ``await`` runs on a fresh event loop. Returns its namespace."""
    import ast
    import asyncio
    import inspect

    code = readme_examples()[name]
    namespace: Dict[str, Any] = {"__name__": f"readme_{name.replace('/', '_').replace('-', '_')}", **names}
    compiled = compile(code, f"README.md <!-- example: {name} -->", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    outcome = eval(compiled, namespace)  # noqa: S307 - the README's own example
    if inspect.iscoroutine(outcome):
        asyncio.run(outcome)
    return namespace


#: One agent run: ``run(tools, arguments)`` drives the framework's loop with a scripted
#: model that asks ``lorebase_get`` for ``arguments``, and gives back the tool result text
#: the model read on its next turn and the run's final answer.
AgentRun = Callable[[List[Any], Dict[str, Any]], Tuple[str, str]]


def check_definitions(herald: Any, tools: List[Any], describe: Callable[[Any], Tuple[str, str, Dict[str, Any]]]) -> None:
    """The tools are Herald's, in order: ``describe(tool)`` gives the name, description
    and input schema the framework will show the model."""
    definitions = definitions_by_name(herald)
    described = [describe(tool) for tool in tools]
    assert [name for name, _, _ in described] == list(definitions)
    for name, description, parameters in described:
        assert description == definitions[name]["description"], name
        assert parameters == definitions[name]["parameters"], name


def check_reads_the_record(run: AgentRun, tools: List[Any], herald: Any) -> None:
    """The model's second turn reads exactly Herald's text for the Record; the run ends with its answer."""
    seen, final = run(tools, GET)
    assert_record(seen, herald)
    assert final == answer(seen)


def check_tool_failure(run: AgentRun, tools: List[Any]) -> None:
    """A tool failure is what the model reads as the tool's result, and the run goes on."""
    seen, final = run(tools, GET_MISSING)
    assert_tool_error(seen)
    assert final == answer(seen)


def check_key_and_format(run: AgentRun, to_tools: Callable[..., List[Any]], keyless_herald: Any, key: str) -> None:
    """Without a key the call is refused; ``api_key=`` sends one; ``format: json`` reaches
    Herald; the key never shows in the tools' repr."""
    seen, _ = run(to_tools(keyless_herald), GET)
    assert seen.startswith("[unauthorized]"), seen
    seen, _ = run(to_tools(keyless_herald, api_key=key), GET_JSON)
    assert json.loads(seen)["ref"] == REF
    assert key not in repr(to_tools(keyless_herald, api_key=key))


def agent_loop_tests(run: AgentRun, to_tools: Callable[..., List[Any]]) -> Dict[str, Callable[..., None]]:
    """The tests every adapter passes in its framework's own loop, for a test module to
    adopt: ``globals().update(agent_loop_tests(run_agent, to_x_tools))``."""

    def test_the_model_reads_the_record(herald: Any) -> None:
        check_reads_the_record(run, to_tools(herald), herald)

    def test_a_tool_failure_is_the_tool_result(herald: Any) -> None:
        check_tool_failure(run, to_tools(herald))

    def test_format_json_and_the_api_key(keyless_herald: Any, reader_key: str) -> None:
        check_key_and_format(run, to_tools, keyless_herald, reader_key)

    tests = (test_the_model_reads_the_record, test_a_tool_failure_is_the_tool_result, test_format_json_and_the_api_key)
    return {test.__name__: test for test in tests}


def check_off_the_loop(sandbox: Any, call: Callable[[], Awaitable[Any]]) -> Any:
    """``call()`` (an adapter's async path to ``lorebase_get``) leaves the event loop free
    while Keeper takes 600 ms to answer: a ticker on the same loop keeps ticking.
    Returns the call's result."""
    import asyncio

    async def measure() -> Tuple[Any, int]:
        ticks = 0
        done = False

        async def ticker() -> None:
            nonlocal ticks
            while not done:
                await asyncio.sleep(0.02)
                ticks += 1

        task = asyncio.ensure_future(ticker())
        try:
            return await call(), ticks
        finally:
            done = True
            await task

    sandbox.admin("POST", "/_sandbox/faults", {"count": 1, "delay_ms": 600})
    try:
        result, ticks = asyncio.run(measure())
    finally:
        sandbox.admin("DELETE", "/_sandbox/faults")
    assert ticks >= 10, f"the event loop ticked {ticks} times in a 600 ms call"
    return result

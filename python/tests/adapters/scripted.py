"""What the framework adapter tests (``test_*.py`` beside this file) share: the Record every scripted model asks for,
the answer it gives once it has read a tool result, and Heralds on the sandbox.

Every scripted model follows the same two turns: turn 1 asks for ``lorebase_get``
with the arguments the test gives; turn 2 reads the tool result the framework sent
back and answers ``The tool said: <its first line>``. The tests then assert on what
the model received, as the model would have seen it.
"""

from __future__ import annotations

from typing import Any, Dict

#: The Record the model asks for, a word of its text, and a ref that does not exist.
REF = "Supplier/S-1001"
RECORD_WORD = "Kavsen Alloys"
MISSING_REF = "Supplier/NO-SUCH-KEY"
GET = {"ref": REF}
GET_MISSING = {"ref": MISSING_REF}
GET_JSON = {"ref": REF, "format": "json"}


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

"""OpenAI-style function tool specs, as plain dicts (no dependency).

``to_openai_tools(herald)`` gives the ``tools`` list of the Chat Completions API
(``api="chat"``, also what most OpenAI-compatible endpoints take) or of the Responses
API (``api="responses"``); :func:`run_openai_tool_call` runs one ``tool_call`` of a
Chat Completions answer and gives the ``role: tool`` message to send back.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional

from ..errors import BadArgumentsError
from .tool_calls import call_for_model, mistake_result, parameters_schema

if TYPE_CHECKING:
    from ..herald import Herald

__all__ = ["to_openai_tools", "run_openai_tool_call", "parameters_schema"]


def to_openai_tools(herald: "Herald", *, api: str = "chat") -> List[Dict[str, Any]]:
    """The tools as OpenAI function tool specs.

    ``api="chat"``: ``{"type": "function", "function": {"name", "description", "parameters"}}``;
    ``api="responses"``: ``{"type": "function", "name", "description", "parameters"}``.
    """
    if api not in ("chat", "responses"):
        raise ValueError(f"api must be 'chat' or 'responses', not {api!r}")
    specs: List[Dict[str, Any]] = []
    for tool in herald.list_tools():
        function = {
            "name": tool["name"],
            "description": tool["description"],
            "parameters": parameters_schema(tool["inputSchema"]),
        }
        if api == "chat":
            specs.append({"type": "function", "function": function})
        else:
            specs.append({"type": "function", **function})
    return specs


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)


def run_openai_tool_call(
    herald: "Herald", tool_call: Any, *, api_key: Optional[str] = None
) -> Dict[str, Any]:
    """Runs one Chat Completions ``tool_call`` (a dict or the SDK's object).

    Returns the message to append to the conversation:
    ``{"role": "tool", "tool_call_id": ..., "content": text}``. Tool errors are
    content (``[code] message ... next: ...``), and so are a tool name or arguments
    the model made up (``[unknown-tool] ...``, ``[bad-arguments] ...``): the model
    reads them and corrects itself.
    """
    function = _field(tool_call, "function")
    name = _field(function, "name")
    raw = _field(function, "arguments") or "{}"
    if not isinstance(name, str):
        result = mistake_result(BadArgumentsError("the tool call has no function name"))
    else:
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError as error:
            result = mistake_result(BadArgumentsError(f"the tool call's arguments are not JSON: {error}"))
        else:
            result = call_for_model(herald, name, arguments, api_key)
    return {"role": "tool", "tool_call_id": _field(tool_call, "id"), "content": result.text}

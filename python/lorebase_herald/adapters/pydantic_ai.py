"""PydanticAI: Herald's tools as ``Tool`` objects (extra ``lorebase-herald[pydantic-ai]``).

::

    agent = Agent(model, tools=to_pydantic_ai_tools(herald))
    # or: Agent(model, toolsets=[to_pydantic_ai_toolset(herald)])

Tools run on the agent's event loop without blocking it. A tool error is reported to
the model as a failed tool result (``ToolFailed``) carrying the error text with its
``next:`` line; PydanticAI versions without ``ToolFailed`` get the text as the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Coroutine, List, Optional

from . import require
from .tool_calls import parameters_schema

require("pydantic_ai", "pydantic-ai")

from pydantic_ai import exceptions as _exceptions  # noqa: E402
from pydantic_ai.tools import Tool  # noqa: E402
from pydantic_ai.toolsets import FunctionToolset  # noqa: E402

if TYPE_CHECKING:
    from ..herald import Herald

__all__ = ["Tool", "to_pydantic_ai_tools", "to_pydantic_ai_toolset"]

_ToolFailed: Optional[type] = getattr(_exceptions, "ToolFailed", None)


def _tool_function(
    herald: "Herald", name: str, api_key: Optional[str]
) -> Callable[..., Coroutine[Any, Any, str]]:
    async def call(**arguments: Any) -> str:
        result = await herald.acall_tool(name, arguments, api_key=api_key)
        if result.is_error and _ToolFailed is not None:
            raise _ToolFailed(result.text)
        return result.text

    call.__name__ = name
    return call


def to_pydantic_ai_tools(herald: "Herald", *, api_key: Optional[str] = None) -> "List[Tool[Any]]":
    """Every tool of ``herald`` as a PydanticAI ``Tool`` (arguments checked by Herald), with
    ``metadata={"title": ..., "annotations": {...}}``."""
    tools: "List[Tool[Any]]" = []
    for definition in herald.list_tools():
        tool: "Tool[Any]" = Tool.from_schema(
            _tool_function(herald, definition["name"], api_key),
            name=definition["name"],
            description=definition["description"],
            json_schema=parameters_schema(definition["inputSchema"]),
        )
        # Not sent to the model: for the app's own use (filtering, approvals).
        tool.metadata = {"title": definition.get("title"), "annotations": dict(definition.get("annotations", {}))}
        tools.append(tool)
    return tools


def to_pydantic_ai_toolset(herald: "Herald", *, api_key: Optional[str] = None) -> "FunctionToolset[Any]":
    """Every tool of ``herald`` as one PydanticAI toolset."""
    return FunctionToolset(to_pydantic_ai_tools(herald, api_key=api_key))

"""What the framework adapters share: Herald's input schemas as frameworks take them,
and tool calls whose every failure is a result for the model to read.

A tool failure (``[not-found] ...``) already is a result; here a tool name or arguments
the model made up (``[unknown-tool] ...``, ``[bad-arguments] ...``) become results too,
so an agent run never ends on the model's own mistake.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional

from ..errors import BadArgumentsError, UnknownToolError

if TYPE_CHECKING:
    from ..herald import Herald, ToolResult

__all__ = ["parameters_schema", "call_for_model", "acall_for_model", "mistake_result"]


def parameters_schema(input_schema: Mapping[str, Any]) -> Dict[str, Any]:
    """A tool's input schema as frameworks take it (without the ``$schema`` dialect key)."""
    return {key: value for key, value in input_schema.items() if key != "$schema"}


def mistake_result(error: Exception) -> "ToolResult":
    """The error result that tells the model about its own mistake (``[code] message``)."""
    from ..herald import ToolResult

    return ToolResult(text=str(error), is_error=True)


def call_for_model(
    herald: "Herald", name: str, arguments: Optional[Mapping[str, Any]], api_key: Optional[str]
) -> "ToolResult":
    """:meth:`Herald.call_tool`, with the model's mistakes as error results."""
    try:
        return herald.call_tool(name, arguments, api_key=api_key)
    except (BadArgumentsError, UnknownToolError) as error:
        return mistake_result(error)


async def acall_for_model(
    herald: "Herald", name: str, arguments: Optional[Mapping[str, Any]], api_key: Optional[str]
) -> "ToolResult":
    """:meth:`Herald.acall_tool` (off the event loop), with the model's mistakes as error results."""
    try:
        return await herald.acall_tool(name, arguments, api_key=api_key)
    except (BadArgumentsError, UnknownToolError) as error:
        return mistake_result(error)

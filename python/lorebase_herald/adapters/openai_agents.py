"""OpenAI Agents SDK: Herald's tools as ``FunctionTool`` objects
(extra ``lorebase-herald[openai-agents]``).

::

    agent = Agent(name="analyst", tools=to_openai_agents_tools(herald))

Tools run on the agent's event loop without blocking it. Tool errors are returned to
the model as the error text (``[code] message ... next: ...``), as the SDK does for
failing tools; arguments that are not JSON become a ``[bad-arguments]`` text too.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Awaitable, Callable, List, Optional

from ..errors import BadArgumentsError
from . import require
from .tool_calls import acall_for_model, mistake_result, parameters_schema

require("agents", "openai-agents")

from agents import FunctionTool  # noqa: E402

if TYPE_CHECKING:
    from ..herald import Herald

__all__ = ["FunctionTool", "to_openai_agents_tools"]


def _invoker(herald: "Herald", name: str, api_key: Optional[str]) -> Callable[[Any, str], Awaitable[str]]:
    async def invoke(_context: Any, arguments_json: str) -> str:
        try:
            arguments = json.loads(arguments_json) if arguments_json.strip() else {}
        except ValueError as error:
            return mistake_result(BadArgumentsError(f"the tool arguments are not JSON: {error}")).text
        return (await acall_for_model(herald, name, arguments, api_key)).text

    return invoke


def to_openai_agents_tools(herald: "Herald", *, api_key: Optional[str] = None) -> List[FunctionTool]:
    """Every tool of ``herald`` as an Agents SDK ``FunctionTool`` (non-strict schemas)."""
    return [
        FunctionTool(
            name=tool["name"],
            description=tool["description"],
            params_json_schema=parameters_schema(tool["inputSchema"]),
            on_invoke_tool=_invoker(herald, tool["name"], api_key),
            strict_json_schema=False,
        )
        for tool in herald.list_tools()
    ]

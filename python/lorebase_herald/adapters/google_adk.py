"""Google ADK: Herald's tools as ADK tools (extra ``lorebase-herald[google-adk]``).

::

    from lorebase_herald.adapters.google_adk import to_google_adk_tools
    agent = LlmAgent(name="analyst", model="gemini-2.5-flash", tools=to_google_adk_tools(herald))

Each tool declares Herald's JSON Schema unchanged (``parameters_json_schema``), keeps
the title and MCP hints in ``custom_metadata``, and runs on the agent's event loop
without blocking it. The function response is ``{"result": text}``, or
``{"error": text}`` for a tool error (``[code] message ... next: ...``): the model reads
it, the run goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional

from . import require

require("google.adk", "google-adk")

from google.adk.tools.base_tool import BaseTool  # noqa: E402
from google.adk.tools.tool_context import ToolContext  # noqa: E402
from google.genai import types  # noqa: E402

from .tool_calls import acall_for_model, parameters_schema  # noqa: E402

if TYPE_CHECKING:
    from ..herald import Herald

__all__ = ["HeraldAdkTool", "to_google_adk_tools"]


class HeraldAdkTool(BaseTool):
    """One Herald tool as an ADK tool."""

    def __init__(self, herald: "Herald", definition: Mapping[str, Any], *, api_key: Optional[str] = None) -> None:
        super().__init__(
            name=definition["name"],
            description=definition["description"],
            custom_metadata={
                "title": definition.get("title"),
                "annotations": dict(definition.get("annotations", {})),
            },
        )
        self._herald = herald
        self._api_key = api_key
        self._parameters = parameters_schema(definition["inputSchema"])

    def __repr__(self) -> str:
        return f"HeraldAdkTool(name={self.name!r})"

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=self._parameters
        )

    async def run_async(self, *, args: Dict[str, Any], tool_context: ToolContext) -> Dict[str, str]:
        result = await acall_for_model(self._herald, self.name, args, self._api_key)
        return {"error": result.text} if result.is_error else {"result": result.text}


def to_google_adk_tools(herald: "Herald", *, api_key: Optional[str] = None) -> List[HeraldAdkTool]:
    """Every tool of ``herald`` as a :class:`HeraldAdkTool`; ``api_key`` is sent with every call."""
    return [HeraldAdkTool(herald, tool, api_key=api_key) for tool in herald.list_tools()]

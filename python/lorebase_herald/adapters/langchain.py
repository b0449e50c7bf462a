"""LangChain: Herald's tools as ``BaseTool`` objects (extra ``lorebase-herald[langchain]``).

::

    tools = to_langchain_tools(herald)
    agent = create_agent(model, tools)          # or llm.bind_tools(tools)

Each tool answers with ``response_format="content_and_artifact"``: the content is the
text a model reads, the artifact the structured JSON (``format: "json"``) or ``None``.
Tool errors raise ``ToolException`` with the error text, which LangChain hands to the
model as an error ``ToolMessage`` (``handle_tool_error=True``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Literal, Optional, Tuple

from . import require
from .tool_calls import parameters_schema

require("langchain_core", "langchain")

from langchain_core.tools import BaseTool, ToolException  # noqa: E402

from .tool_fields import CallKey, HeraldRef  # noqa: E402

if TYPE_CHECKING:
    from ..herald import Herald, ToolResult

__all__ = ["HeraldLangChainTool", "to_langchain_tools"]


class HeraldLangChainTool(BaseTool):
    """One Herald tool as a LangChain tool (sync and async)."""

    herald: HeraldRef
    api_key: CallKey = None
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    handle_tool_error: Any = True

    def _answer(self, result: "ToolResult") -> Tuple[str, Optional[Dict[str, Any]]]:
        if result.is_error:
            raise ToolException(result.text)
        return result.text, result.structured

    def _run(self, **arguments: Any) -> Tuple[str, Optional[Dict[str, Any]]]:
        return self._answer(self.herald.call_tool(self.name, arguments, api_key=self.api_key))

    async def _arun(self, **arguments: Any) -> Tuple[str, Optional[Dict[str, Any]]]:
        return self._answer(await self.herald.acall_tool(self.name, arguments, api_key=self.api_key))


def to_langchain_tools(herald: "Herald", *, api_key: Optional[str] = None) -> List[HeraldLangChainTool]:
    """Every tool of ``herald`` as a :class:`HeraldLangChainTool`."""
    return [
        HeraldLangChainTool(
            name=tool["name"],
            description=tool["description"],
            args_schema=parameters_schema(tool["inputSchema"]),
            metadata={"title": tool.get("title"), "annotations": tool.get("annotations", {})},
            herald=herald,
            api_key=api_key,
        )
        for tool in herald.list_tools()
    ]

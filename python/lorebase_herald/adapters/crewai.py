"""CrewAI: Herald's tools as CrewAI tools (extra ``lorebase-herald[crewai]``).

::

    from lorebase_herald.adapters.crewai import to_crewai_tools
    analyst = Agent(role="analyst", goal="...", backstory="...", tools=to_crewai_tools(herald), llm=llm)

Each tool declares Herald's JSON Schema unchanged (Herald checks the arguments
itself), runs sync or, in CrewAI's async paths, off the event loop. A tool answers the
text a model reads; a tool error is that text (``[code] message ... next: ...``),
never an exception that would end the task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional

from . import require

require("crewai", "crewai")

from crewai.tools import BaseTool  # noqa: E402
from pydantic import Field  # noqa: E402

from .schema_model import schema_model  # noqa: E402
from .tool_calls import acall_for_model, call_for_model, parameters_schema  # noqa: E402
from .tool_fields import CallKey, HeraldRef  # noqa: E402

if TYPE_CHECKING:
    from ..herald import Herald

__all__ = ["HeraldCrewAITool", "to_crewai_tools"]


class HeraldCrewAITool(BaseTool):
    """One Herald tool as a CrewAI tool (sync and async)."""

    herald: HeraldRef
    api_key: CallKey = None
    title: Optional[str] = None
    """The tool's human title."""
    annotations: Dict[str, bool] = Field(default_factory=dict)
    """MCP hints: ``readOnlyHint``, ``destructiveHint``, ``idempotentHint``, ``openWorldHint``."""

    def _run(self, **arguments: Any) -> str:
        return call_for_model(self.herald, self.name, arguments, self.api_key).text

    async def _arun(self, **arguments: Any) -> str:
        return (await acall_for_model(self.herald, self.name, arguments, self.api_key)).text


def to_crewai_tools(herald: "Herald", *, api_key: Optional[str] = None) -> List[HeraldCrewAITool]:
    """Every tool of ``herald`` as a :class:`HeraldCrewAITool`; ``api_key`` is sent with every call."""
    tools: List[HeraldCrewAITool] = []
    for tool in herald.list_tools():
        parameters = parameters_schema(tool["inputSchema"])
        tools.append(
            HeraldCrewAITool(
                name=tool["name"],
                description=tool["description"],
                args_schema=schema_model(tool["name"], parameters),
                title=tool.get("title"),
                annotations=dict(tool.get("annotations", {})),
                herald=herald,
                api_key=api_key,
            )
        )
    return tools

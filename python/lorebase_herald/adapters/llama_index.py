"""LlamaIndex: Herald's tools as LlamaIndex tools (extra ``lorebase-herald[llama-index]``).

::

    from lorebase_herald.adapters.llama_index import to_llama_index_tools
    agent = FunctionAgent(tools=to_llama_index_tools(herald), llm=llm)

Each tool declares Herald's JSON Schema unchanged, runs sync (``call``) or on the
agent's event loop without blocking it (``acall``), and answers a ``ToolOutput`` whose
content is the text a model reads and whose ``raw_output`` is Herald's
:class:`~lorebase_herald.ToolResult`. A tool error is a ``ToolOutput`` with
``is_error=True`` carrying the text with its ``next:`` line, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional

from . import require

require("llama_index.core", "llama-index")

from llama_index.core.tools import ToolMetadata, ToolOutput  # noqa: E402
from llama_index.core.tools.types import AsyncBaseTool  # noqa: E402

from .schema_model import schema_model  # noqa: E402
from .tool_calls import acall_for_model, call_for_model, parameters_schema  # noqa: E402

if TYPE_CHECKING:
    from ..herald import Herald, ToolResult

__all__ = ["HeraldLlamaIndexTool", "HeraldToolMetadata", "to_llama_index_tools"]


@dataclass
class HeraldToolMetadata(ToolMetadata):
    """``ToolMetadata`` whose parameters are Herald's JSON Schema, whole."""

    parameters: Dict[str, Any] = field(default_factory=dict)
    """The input schema the model sees."""
    title: Optional[str] = None
    """The tool's human title."""
    annotations: Dict[str, bool] = field(default_factory=dict)
    """MCP hints: ``readOnlyHint``, ``destructiveHint``, ``idempotentHint``, ``openWorldHint``."""

    def get_parameters_dict(self) -> Dict[str, Any]:
        return dict(self.parameters)


class HeraldLlamaIndexTool(AsyncBaseTool):
    """One Herald tool as a LlamaIndex tool (sync and async)."""

    def __init__(self, herald: "Herald", definition: Mapping[str, Any], *, api_key: Optional[str] = None) -> None:
        parameters = parameters_schema(definition["inputSchema"])
        self._herald = herald
        self._api_key = api_key
        self._metadata = HeraldToolMetadata(
            name=definition["name"],
            description=definition["description"],
            fn_schema=schema_model(definition["name"], parameters),
            parameters=parameters,
            title=definition.get("title"),
            annotations=dict(definition.get("annotations", {})),
        )

    def __repr__(self) -> str:
        return f"HeraldLlamaIndexTool(name={self._metadata.name!r})"

    @property
    def metadata(self) -> HeraldToolMetadata:
        return self._metadata

    def _output(self, arguments: Dict[str, Any], result: "ToolResult") -> ToolOutput:
        return ToolOutput(
            tool_name=self._metadata.get_name(),
            content=result.text,
            raw_input=arguments,
            raw_output=result,
            is_error=result.is_error,
        )

    @staticmethod
    def _arguments(args: Any, kwargs: Dict[str, Any]) -> Dict[str, Any]:
        # Agents call tool(**arguments); LlamaIndex's own helpers may pass one dict.
        if len(args) == 1 and isinstance(args[0], Mapping):
            return {**args[0], **kwargs}
        return dict(kwargs)

    def call(self, *args: Any, **kwargs: Any) -> ToolOutput:
        arguments = self._arguments(args, kwargs)
        return self._output(arguments, call_for_model(self._herald, self._metadata.get_name(), arguments, self._api_key))

    async def acall(self, *args: Any, **kwargs: Any) -> ToolOutput:
        arguments = self._arguments(args, kwargs)
        result = await acall_for_model(self._herald, self._metadata.get_name(), arguments, self._api_key)
        return self._output(arguments, result)


def to_llama_index_tools(herald: "Herald", *, api_key: Optional[str] = None) -> List[HeraldLlamaIndexTool]:
    """Every tool of ``herald`` as a :class:`HeraldLlamaIndexTool`; ``api_key`` is sent with every call."""
    return [HeraldLlamaIndexTool(herald, tool, api_key=api_key) for tool in herald.list_tools()]

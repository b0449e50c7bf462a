"""smolagents: Herald's tools as smolagents tools (extra ``lorebase-herald[smolagents]``).

::

    from lorebase_herald.adapters.smolagents import to_smolagents_tools
    agent = ToolCallingAgent(tools=to_smolagents_tools(herald), model=model)

smolagents describes a tool by its ``inputs``: each of Herald's arguments becomes one,
with its JSON Schema kept (``enum``, ``items``, bounds, nested ``properties``) and the
optional ones ``nullable``. A tool answers the text a model reads; a tool error is that
text (``[code] message ... next: ...``), never an exception. smolagents runs tools
synchronously; the call releases the GIL while Keeper answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional

from . import require

require("smolagents", "smolagents")

from smolagents import Tool  # type: ignore[import-untyped]  # noqa: E402  (smolagents ships no py.typed)

from .tool_calls import call_for_model, parameters_schema  # noqa: E402

if TYPE_CHECKING:
    from ..herald import Herald

__all__ = ["HeraldSmolagentsTool", "to_smolagents_tools", "smolagents_inputs"]

_TYPES = {"string", "boolean", "integer", "number", "array", "object", "null"}


def smolagents_inputs(parameters: Mapping[str, Any]) -> Dict[str, Dict[str, Any]]:
    """A JSON Schema object's properties as smolagents ``inputs``."""
    required = set(parameters.get("required", []))
    inputs: Dict[str, Dict[str, Any]] = {}
    for name, schema in parameters.get("properties", {}).items():
        entry = dict(schema)
        kind = entry.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        entry["type"] = kind if kinds and all(k in _TYPES for k in kinds) else "any"
        entry["description"] = entry.get("description") or name
        if name not in required:
            entry["nullable"] = True
        inputs[name] = entry
    return inputs


class HeraldSmolagentsTool(Tool):  # type: ignore[misc]
    """One Herald tool as a smolagents tool."""

    skip_forward_signature_validation = True
    output_type = "string"

    def __init__(self, herald: "Herald", definition: Mapping[str, Any], *, api_key: Optional[str] = None) -> None:
        self.name = definition["name"]
        self.description = definition["description"]
        self.inputs = smolagents_inputs(parameters_schema(definition["inputSchema"]))
        self.title: Optional[str] = definition.get("title")
        self.annotations: Dict[str, bool] = dict(definition.get("annotations", {}))
        self._herald = herald
        self._api_key = api_key
        super().__init__()

    def __repr__(self) -> str:
        return f"HeraldSmolagentsTool(name={self.name!r})"

    def forward(self, **arguments: Any) -> str:
        # smolagents passes the optional inputs the model left out as None.
        given = {name: value for name, value in arguments.items() if value is not None}
        return call_for_model(self._herald, self.name, given, self._api_key).text


def to_smolagents_tools(herald: "Herald", *, api_key: Optional[str] = None) -> List[HeraldSmolagentsTool]:
    """Every tool of ``herald`` as a :class:`HeraldSmolagentsTool`; ``api_key`` is sent with every call."""
    return [HeraldSmolagentsTool(herald, tool, api_key=api_key) for tool in herald.list_tools()]

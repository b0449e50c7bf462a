"""A pydantic model class that stands for one of Herald's input schemas, for the
frameworks that describe tool arguments with pydantic models (LlamaIndex, CrewAI).

The class reports Herald's JSON Schema unchanged (``model_json_schema()``), declares
no fields and keeps every argument it is given: Herald checks the arguments itself
and answers a ``[validation-failed]`` result naming the argument, instead of the
framework dropping or rewriting what the model sent.
"""

from __future__ import annotations

import copy
from typing import Any, Dict, Mapping, Type

from pydantic import BaseModel, ConfigDict

__all__ = ["schema_model"]


def schema_model(tool_name: str, parameters: Mapping[str, Any]) -> Type[BaseModel]:
    """The arguments model of ``tool_name``, whose JSON Schema is ``parameters``."""
    schema: Dict[str, Any] = copy.deepcopy(dict(parameters))

    class Arguments(BaseModel):
        model_config = ConfigDict(extra="allow")

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> Dict[str, Any]:
            return copy.deepcopy(schema)

    name = "".join(part.capitalize() for part in tool_name.split("_")) + "Arguments"
    Arguments.__name__ = Arguments.__qualname__ = name
    return Arguments

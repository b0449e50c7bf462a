"""Adapters that hand Herald's tools to agent frameworks.

Each module imports its framework only when used, and each framework is an optional
extra of the package:

- :mod:`.openai`: OpenAI-style function tool specs (plain dicts, no dependency).
- :mod:`.langchain`: LangChain ``BaseTool`` objects (``lorebase-herald[langchain]``).
- :mod:`.pydantic_ai`: PydanticAI ``Tool`` objects (``lorebase-herald[pydantic-ai]``).
- :mod:`.openai_agents`: OpenAI Agents SDK ``FunctionTool`` objects
  (``lorebase-herald[openai-agents]``).
"""

from __future__ import annotations

import importlib
from types import ModuleType


def require(module: str, extra: str) -> ModuleType:
    """Imports a framework module, or says which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"{module} is not installed: pip install 'lorebase-herald[{extra}]'"
        ) from error

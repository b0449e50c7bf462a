"""Adapters that hand Herald's tools to agent frameworks.

Each module takes a :class:`~lorebase_herald.Herald` (the adapters depend on its API;
it depends on none of them), imports its framework only when imported, and each
framework is an optional extra of the package:

- :mod:`.openai`: OpenAI-style function tool specs (plain dicts, no dependency).
- :mod:`.langchain`: LangChain ``BaseTool`` objects (``lorebase-herald[langchain]``).
- :mod:`.pydantic_ai`: PydanticAI ``Tool`` objects (``lorebase-herald[pydantic-ai]``).
- :mod:`.openai_agents`: OpenAI Agents SDK ``FunctionTool`` objects
  (``lorebase-herald[openai-agents]``).
- :mod:`.llama_index`: LlamaIndex tools (``lorebase-herald[llama-index]``).
- :mod:`.crewai`: CrewAI tools (``lorebase-herald[crewai]``).
- :mod:`.google_adk`: Google ADK tools (``lorebase-herald[google-adk]``).
- :mod:`.smolagents`: smolagents tools (``lorebase-herald[smolagents]``).

What they share is in :mod:`.tool_calls` (and :mod:`.schema_model` for the frameworks
that describe arguments with pydantic models, :mod:`.tool_fields` for those whose tools
are pydantic models).
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

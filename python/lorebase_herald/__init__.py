"""Lorebase Herald: the MCP server for Lorebase Domains, and its tools in process.

- ``lorebase-herald`` (or ``python -m lorebase_herald``, ``uvx lorebase-herald``) runs
  the MCP server, exactly like the native binary.
- :class:`Herald` calls the same tools from Python, and its adapters hand them to
  agent frameworks: :meth:`Herald.to_openai_tools`, :meth:`Herald.to_langchain_tools`,
  :meth:`Herald.to_pydantic_ai_tools`, :meth:`Herald.to_openai_agents_tools`.
"""

from __future__ import annotations

from . import _native
from .errors import (
    BadArgumentsError,
    CallCancelledError,
    HeraldError,
    InternalError,
    SettingsError,
    UnknownToolError,
)
from .herald import Herald, ToolResult

__version__: str = _native.version()

__all__ = [
    "BadArgumentsError",
    "CallCancelledError",
    "Herald",
    "HeraldError",
    "InternalError",
    "SettingsError",
    "ToolResult",
    "UnknownToolError",
    "__version__",
]

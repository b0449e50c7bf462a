"""Lorebase Herald: the MCP server for Lorebase Domains, and its tools in process.

- ``lorebase-herald`` (or ``python -m lorebase_herald``, ``uvx lorebase-herald``) runs
  the MCP server, exactly like the native binary.
- :class:`Herald` calls the same tools from Python, and :mod:`lorebase_herald.adapters`
  hands them to agent frameworks (``adapters.langchain.to_langchain_tools(herald)``, ...).

The Python API is imported on first use, so that the server's command line starts
without loading asyncio or typing.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at startup

from . import _native

if TYPE_CHECKING:
    from typing import Any

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

_LAZY = {
    "Herald": "herald",
    "ToolResult": "herald",
    "BadArgumentsError": "errors",
    "CallCancelledError": "errors",
    "HeraldError": "errors",
    "InternalError": "errors",
    "SettingsError": "errors",
    "UnknownToolError": "errors",
}


def __getattr__(name: str) -> Any:  # PEP 562
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lorebase_herald' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

"""Typed exceptions of `lorebase_herald`.

Tool failures are never exceptions: a Keeper problem (``[not-found] ...``,
``[forbidden] ...``) comes back as a :class:`~lorebase_herald.ToolResult` with
``is_error=True``, as an MCP host would show it to a model. Exceptions are for
the caller's programming errors and carry a stable :attr:`HeraldError.code`.
"""

from __future__ import annotations

from typing import Dict, Type

__all__ = [
    "BadArgumentsError",
    "CallCancelledError",
    "HeraldError",
    "InternalError",
    "SettingsError",
    "UnknownToolError",
    "error_from_code",
]


class HeraldError(Exception):
    """Base class of every exception raised by `lorebase_herald`."""

    #: Stable, machine-readable code (``unknown-tool``, ``bad-arguments``, ...).
    code: str = "error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


class SettingsError(HeraldError, ValueError):
    """Settings that do not load or validate (unknown key, wrong type, unresolved secret)."""

    code = "invalid-settings"


class UnknownToolError(HeraldError, LookupError):
    """No tool has that name (or it is not served with these settings)."""

    code = "unknown-tool"


class BadArgumentsError(HeraldError, TypeError):
    """The tool arguments are not a JSON object, or the per-call ``api_key`` is empty."""

    code = "bad-arguments"


class CallCancelledError(HeraldError):
    """The call was cancelled before it finished."""

    code = "cancelled"


class InternalError(HeraldError):
    """A failure inside lorebase_herald itself (a bug: please report it)."""

    code = "internal"


_BY_CODE: Dict[str, Type[HeraldError]] = {
    cls.code: cls
    for cls in (SettingsError, UnknownToolError, BadArgumentsError, CallCancelledError, InternalError)
}


def error_from_code(code: str, message: str) -> HeraldError:
    """The exception for ``code`` (used by the native module)."""
    cls = _BY_CODE.get(code)
    if cls is None:
        return HeraldError(message, code=code)
    return cls(message)

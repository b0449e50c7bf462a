"""The in-process Python API: :class:`Herald` and :class:`ToolResult`."""

from __future__ import annotations

import asyncio
import atexit
import json
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import _native
from .errors import BadArgumentsError, SettingsError

# Before the interpreter finalizes, native threads stop calling into Python (a
# call's outcome is handed over from one): one taking the GIL during
# finalization would abort the process. Registered first, so it runs last.
atexit.register(_native.close_for_exit)

__all__ = ["Herald", "ToolResult"]


def _shortcuts() -> Dict[str, Tuple[str, str]]:
    """The keywords standing for a nested setting, from the settings table (through the binding)."""
    shortcuts: Dict[str, Tuple[str, str]] = {}
    for keyword, key in _native.setting_keywords():
        section, _, field = key.partition(".")
        if not field or "." in field:
            raise ImportError(f"the keyword {keyword!r} stands for {key!r}, not a key of a section")
        shortcuts[keyword] = (section, field)
    return shortcuts


#: Short keyword arguments, named like the short environment variables, and the
#: nested setting each one stands for.
_SHORTCUTS: Dict[str, Tuple[str, str]] = _shortcuts()


@dataclass(frozen=True)
class ToolResult:
    """The answer of one tool call, as an MCP host would receive it."""

    #: The text block a model reads (``[code] message ... next: ...`` on errors).
    text: str
    #: A tool error: Keeper refused or failed the call (the text says why and what next).
    is_error: bool
    #: ``structuredContent``: the JSON answer when the call asked for ``format: "json"``.
    structured: Optional[Dict[str, Any]] = None

    def __str__(self) -> str:
        return self.text


def _json_default(value: Any) -> Any:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _options_json(settings: Mapping[str, Any]) -> str:
    """The settings as the JSON object the core reads (shaped like the YAML ``herald`` section)."""
    options: Dict[str, Any] = {}
    for key, value in settings.items():
        if key in _SHORTCUTS:
            continue
        options[key] = dict(value) if isinstance(value, Mapping) else value
    for key, (section, field) in _SHORTCUTS.items():
        if key not in settings:
            continue
        nested = options.setdefault(section, {})
        if not isinstance(nested, dict):
            raise SettingsError(f"the setting {section!r} must be a mapping (from options)")
        if field in nested and nested[field] != settings[key]:
            raise SettingsError(f"{key}= and {section}.{field} disagree (from options)")
        nested[field] = settings[key]
    try:
        return json.dumps(options, allow_nan=False, default=_json_default)
    except (TypeError, ValueError) as error:
        raise SettingsError(f"settings must be JSON values: {error}") from None


def _arguments_json(arguments: Optional[Mapping[str, Any]]) -> str:
    if arguments is None:
        return "{}"
    if not isinstance(arguments, Mapping):
        raise BadArgumentsError(f"tool arguments must be a mapping, got {type(arguments).__name__}")
    try:
        return json.dumps(dict(arguments), allow_nan=False, default=_json_default)
    except (TypeError, ValueError) as error:
        raise BadArgumentsError(f"tool arguments must be JSON values: {error}") from None


def _result(output: Tuple[str, bool, Optional[str]]) -> ToolResult:
    text, is_error, structured = output
    return ToolResult(text=text, is_error=is_error, structured=None if structured is None else json.loads(structured))


def _settle(future: "asyncio.Future[Any]", outcome: Any) -> None:
    if future.done():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


class Herald:
    """The tools of one Herald, called in process (no MCP server, no subprocess).

    Settings are those of the server, as keyword arguments shaped like the YAML
    ``herald`` section, on top of the environment (``LOREBASE_CONFIG``,
    ``LOREBASE__HERALD__...``, ``LOREBASE_URL``, ``LOREBASE_API_KEY``,
    ``LOREBASE_DOMAIN``, ``LOREBASE_BRANCH``)::

        herald = Herald(url="http://127.0.0.1:8080", api_key="lbk_...", domain="supply",
                        output={"max_chars": 4000}, tools={"read_only": True})

    ``url`` and ``api_key`` are shortcuts for ``keeper={"base_url": ..., "api_key": ...}``.
    Invalid settings raise :class:`~lorebase_herald.errors.SettingsError`.
    """

    def __init__(self, **settings: Any) -> None:
        self._native = _native.NativeHerald(_options_json(settings))

    def __repr__(self) -> str:
        return f"Herald(url={self._native.base_url!r}, domain={self._native.domain!r})"

    @property
    def base_url(self) -> str:
        """Keeper's origin."""
        return self._native.base_url

    @property
    def domain(self) -> Optional[str]:
        """The Domain used when a call names none."""
        return self._native.domain

    @property
    def branch(self) -> Optional[str]:
        """The branch used when a call names none (``None``: the Domain's default branch)."""
        return self._native.branch

    def list_tools(self) -> List[Dict[str, Any]]:
        """The tool definitions a model sees, as plain dicts in MCP's shape.

        Each has ``name``, ``title``, ``description``, ``inputSchema`` (JSON Schema),
        ``annotations`` (``readOnlyHint``, ...) and, where the tool has one,
        ``outputSchema``. A fresh copy every time.
        """
        tools: List[Dict[str, Any]] = json.loads(self._native.definitions_json())
        return tools

    def call_tool(
        self, name: str, arguments: Optional[Mapping[str, Any]] = None, *, api_key: Optional[str] = None
    ) -> ToolResult:
        """Calls one tool and waits for its answer (other Python threads run meanwhile).

        ``api_key`` sends that key instead of the configured one (an empty one is
        refused). Tool failures are results with ``is_error=True``; an unknown tool,
        arguments that are not a JSON object or an empty ``api_key`` raise
        :class:`~lorebase_herald.errors.HeraldError` subclasses.
        """
        return _result(self._native.call(name, _arguments_json(arguments), api_key))

    async def acall_tool(
        self, name: str, arguments: Optional[Mapping[str, Any]] = None, *, api_key: Optional[str] = None
    ) -> ToolResult:
        """:meth:`call_tool` for asyncio: the call runs off the event loop, which keeps running.

        Cancelling the awaiting task cancels the call.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()

        def on_done(outcome: Any) -> None:  # runs on a native thread
            try:
                loop.call_soon_threadsafe(_settle, future, outcome)
            except RuntimeError:  # the loop was closed meanwhile: nobody waits
                pass

        call = self._native.call_async(name, _arguments_json(arguments), api_key, on_done)
        try:
            output = await future
        except asyncio.CancelledError:
            call.cancel()
            raise
        return _result(output)

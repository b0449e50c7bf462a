"""The fields the pydantic tool classes (CrewAI's and LangChain's ``BaseTool``) share:
the Herald that serves the tool and the key sent instead of the configured one, both
left out of the tool's dumps and repr (the key is never shown)."""

from __future__ import annotations

from typing import Annotated, Any, Optional

from pydantic import Field

__all__ = ["HeraldRef", "CallKey"]

HeraldRef = Annotated[Any, Field(exclude=True, repr=False)]
"""The :class:`~lorebase_herald.Herald` that serves the tool."""

CallKey = Annotated[Optional[str], Field(exclude=True, repr=False)]
"""A key to send instead of the configured one (default ``None``: the configured one)."""

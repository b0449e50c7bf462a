"""The shared table of tool calls (tool_calls.json), with the Revision ids
the diff call needs read from the sandbox Keeper's branch log."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import httpx2

TABLE = json.loads((Path(__file__).with_name("tool_calls.json")).read_text())

# The tool table's order (docs/tools.md, "The tools").
TOOL_NAMES = [
    "lorebase_context",
    "lorebase_schema",
    "lorebase_get",
    "lorebase_resolve",
    "lorebase_query",
    "lorebase_search",
    "lorebase_neighborhood",
    "lorebase_explain",
    "lorebase_history",
    "lorebase_lineage",
    "lorebase_changes",
    "lorebase_diff",
    "lorebase_execute",
    "lorebase_branches",
]

RECORD_TEMPLATE = "lorebase://{domain}/{kind}/{key}"
LENS_TEMPLATE = "lorebase://{domain}/lenses/{lens}"
SCHEMA_TEMPLATE = "lorebase://{domain}/schema"


def revisions(keeper_url: str, headers: dict[str, str] | None = None) -> tuple[str, str]:
    """The oldest and the newest Revision of supply/main."""
    with httpx2.Client(timeout=10, headers=headers or {}) as c:
        r = c.get(f"{keeper_url}/api/v1/domains/supply/branches/main/log", params={"limit": 100})
        r.raise_for_status()
        entries = r.json()["entries"]
    return entries[-1]["revision"], entries[0]["revision"]


def tool_calls(keeper_url: str, headers: dict[str, str] | None = None) -> list[dict]:
    """Every call of the table, ready to send."""
    oldest, newest = revisions(keeper_url, headers)
    calls = copy.deepcopy(TABLE["calls"])
    for call in calls:
        for k, v in call["arguments"].items():
            if v == "{from_revision}":
                call["arguments"][k] = oldest
            elif v == "{to_revision}":
                call["arguments"][k] = newest
    return calls

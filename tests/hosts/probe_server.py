"""A tiny MCP server over stdio (stdlib only) that measures what a host does with what a server sends.

  - `probe_always` carries `_meta: {"anthropic/alwaysLoad": true}` (Claude Code's hint to list a
    tool directly instead of deferring it behind its tool search); `probe_plain` carries nothing; `probe_hinted`
    carries `_meta: {"anthropic/searchHint": "zebra crossing"}` (words for Claude Code's ToolSearch);
  - `probe_long` (deferred) and `probe_always_long` (alwaysLoad) have descriptions of LONG
    characters, and the server instructions are LONG characters too, all made of numbered marks
    (`<0000><0001>…`, six characters each, see `marks`), so what the model sees tells where a host cuts;
  - `probe_bounds` has an argument with every JSON Schema keyword Herald uses (minimum, maximum,
    default, pattern, minLength, maxLength, enum, maxItems, uniqueItems, additionalProperties),
    so the schema the model sees tells what a host strips.

It answers `initialize` with the protocol version the host asks for, `tools/list`, `tools/call`
(every tool answers `probe ok: NAME ARGS`), and -32601 to any other request (the host falls back:
`server/discover` of protocol 2026-07-28 included). It exits when stdin closes.
"""

from __future__ import annotations

import json
import sys

LONG = 20000


def marks(n: int) -> str:
    """N characters of `<0000>`, `<0001>`, … (six characters each): a cut at c leaves mark c // 6 - 1 whole."""
    return "".join(f"<{i:04d}>" for i in range(n // 6 + 1))[:n]


INSTRUCTIONS = marks(LONG)

TOOLS = [
    {"name": "probe_always", "description": "Probe tool with the alwaysLoad hint.",
     "inputSchema": {"type": "object", "properties": {}}, "_meta": {"anthropic/alwaysLoad": True}},
    {"name": "probe_plain", "description": "Probe tool without hints.",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "probe_hinted", "description": "Probe tool with a search hint.",
     "inputSchema": {"type": "object", "properties": {}}, "_meta": {"anthropic/searchHint": "zebra crossing"}},
    {"name": "probe_long", "description": marks(LONG),
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "probe_always_long", "description": marks(LONG),
     "inputSchema": {"type": "object", "properties": {}}, "_meta": {"anthropic/alwaysLoad": True}},
    {"name": "probe_bounds", "description": "Probe tool whose schema carries every keyword.",
     "inputSchema": {
         "type": "object",
         "properties": {
             "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50, "description": "limit words"},
             "ref": {"type": "string", "pattern": "^[A-Z][a-z]*/.+$", "minLength": 3, "maxLength": 385, "description": "ref words"},
             "format": {"type": "string", "enum": ["text", "json"], "default": "text", "description": "format words"},
             "refs": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 20, "uniqueItems": True, "description": "refs words"},
             "filter": {"type": "object", "minProperties": 1, "additionalProperties": {"type": "string"}, "description": "filter words"},
         },
         "required": ["ref"],
         "additionalProperties": False,
     }},
]


def answer(msg: dict) -> dict | None:
    method, mid = msg.get("method"), msg.get("id")
    if mid is None:
        return None  # a notification
    if method == "initialize":
        version = (msg.get("params") or {}).get("protocolVersion", "2025-06-18")
        result = {"protocolVersion": version, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "probe", "version": "1.0.0"}, "instructions": INSTRUCTIONS}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        params = msg.get("params") or {}
        result = {"content": [{"type": "text", "text": f"probe ok: {params.get('name')} {json.dumps(params.get('arguments'))}"}]}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": f"method not found: {method}"}}
    return {"jsonrpc": "2.0", "id": mid, "result": result}


def main() -> None:
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        out = answer(msg) if isinstance(msg, dict) else None
        if out is not None:
            sys.stdout.write(json.dumps(out) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

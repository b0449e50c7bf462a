"""python-sdk-herald: a faithful minimal Herald on the official Python ``mcp`` SDK
2.x (``MCPServer``, formerly FastMCP) and httpx2, for the benchmark in
``benches/run.py``. Same tool names, arguments, bounds and descriptions as
Herald for lorebase_get, lorebase_query, lorebase_search and lorebase_schema;
the same Keeper calls, resends and text; the same short variables:

    LOREBASE_URL=http://127.0.0.1:8080 LOREBASE_API_KEY=lbk_... LOREBASE_DOMAIN=supply \\
        python benches/peers/python_sdk_herald/server.py            # stdio

    LOREBASE__HERALD__TRANSPORT=streamable_http LOREBASE__HERALD__HTTP__PORT=8091 ... server.py

Streamable HTTP runs as the SDK recommends for a shared server: stateless with
JSON responses (``stateless_http=True, json_response=True``), each caller's
``Authorization: Bearer`` header forwarded unchanged.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcp.server.mcpserver import Context, MCPServer  # noqa: E402
from mcp.server.transport_security import TransportSecuritySettings  # noqa: E402
from mcp_types import CallToolResult, TextContent, ToolAnnotations  # noqa: E402
from pydantic import BaseModel, ConfigDict, Field  # noqa: E402

import render  # noqa: E402
from keeper import Keeper, ToolFailure  # noqa: E402

REF_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*/.+$"
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)

TRANSPORT = os.environ.get("LOREBASE__HERALD__TRANSPORT", "stdio")
DOMAIN = os.environ.get("LOREBASE_DOMAIN")
BRANCH = os.environ.get("LOREBASE_BRANCH")
ALLOW_ANONYMOUS = os.environ.get("LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS", "false").lower() == "true"
keeper = Keeper(
    os.environ.get("LOREBASE_URL", "http://127.0.0.1:8080"),
    os.environ.get("LOREBASE_API_KEY") or None,
    max_retries=int(os.environ.get("LOREBASE__HERALD__KEEPER__MAX_RETRIES", "2")),
    retry_max_wait_s=float(os.environ.get("LOREBASE__HERALD__KEEPER__RETRY_MAX_WAIT_S", "5")),
)

mcp = MCPServer(name="python-sdk-herald", version="0.1.0", log_level="WARNING")

# The shared arguments, as Herald declares them.
Domain = Annotated[str | None, Field(min_length=1, max_length=128, description=(
    "Domain api name. Default: the configured Domain (LOREBASE_DOMAIN)."))]
Branch = Annotated[str | None, Field(min_length=1, max_length=256, description=(
    "Branch. Default: the configured branch (LOREBASE_BRANCH), else the Domain's default branch."))]
At = Annotated[str | None, Field(min_length=1, max_length=128, description=(
    "Read as of this Revision (64 hex digits or an 8+ digit prefix) or tag."))]
Format = Annotated[Literal["text", "json"], Field(description=(
    "`text`: compact lines (default). `json`: the stable JSON shape, also as structured content."))]
Names = Annotated[list[Annotated[str, Field(min_length=1, max_length=128)]] | None, Field(max_length=50)]


# Output models (the SDK publishes them as outputSchema and validates structuredContent).
class Cut(BaseModel):
    path: str
    omitted: int = Field(ge=0)
    unit: str


class Link(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    relation: str
    from_: str = Field(alias="from", description="Kind/key")
    to: str = Field(description="Kind/key")


class RecordOut(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")
    ref: str = Field(description="Kind/key")
    title: str | None = None
    branch: str
    revision: str
    values: dict[str, Any]
    masked: list[str] | None = None
    link_counts: dict[str, int] | None = None
    links: list[Link] | None = None
    cuts: list[Cut] | None = None


class Hit(BaseModel):
    ref: str = Field(description="Kind/key")
    title: str | None = None
    snippet: str | None = None
    score: float


class SearchOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    revision: str
    mode: Literal["lexical", "vector", "hybrid"]
    hits: list[Hit]
    truncated_candidates: bool
    truncated: bool
    cuts: list[Cut] | None = None


class Neighbor(BaseModel):
    ref: str = Field(description="Kind/key")
    title: str | None = None
    values: dict[str, Any] | None = None


class Row(BaseModel):
    ref: str = Field(description="Kind/key")
    title: str | None = None
    values: dict[str, Any]
    included: dict[str, list[Neighbor]] | None = None


class Group(BaseModel):
    value: Any
    count: int = Field(ge=0)


class AggregateOut(BaseModel):
    kind: str
    group_by: str
    groups: list[Group]


class Coverage(BaseModel):
    model_config = ConfigDict(extra="allow")
    signal: Literal["missing_values", "stale_source", "unknown_phrase"]
    message: str


class QueryOut(BaseModel):
    model_config = ConfigDict(extra="forbid")
    revision: str
    total: int = Field(ge=0)
    rows: list[Row]
    aggregate: AggregateOut | None = None
    next_cursor: str | None = None
    coverage: list[Coverage] | None = None
    cuts: list[Cut] | None = None


class SchemaOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    domain: str
    branch: str
    revision: str
    kinds: list[dict[str, Any]]
    relations: list[dict[str, Any]]
    cuts: list[Cut] | None = None


def _key(ctx: Context) -> str | None:
    """The credential of a call: the configured key on stdio, the caller's
    header unchanged on Streamable HTTP."""
    if TRANSPORT == "stdio":
        return keeper.api_key
    auth = (ctx.headers or {}).get("authorization")
    if auth and auth[:7].lower() == "bearer " and auth[7:].strip():
        return auth[7:].strip()
    if ALLOW_ANONYMOUS:
        return None
    raise ToolFailure("unauthorized", "an API key is required: send Authorization: Bearer lbk_...")


def _domain(domain: str | None) -> str:
    d = domain or DOMAIN
    if not d:
        raise ToolFailure("validation-failed", "invalid argument `domain`: no Domain given and no default Domain "
                          "configured", [{"path": "domain", "message": "no Domain given"}])
    return d


def _read(branch: str | None, at: str | None) -> dict[str, Any]:
    return {"branch": branch or BRANCH, "at": at}


def _finish(answer: dict, fmt: str, text) -> CallToolResult:
    structured = render.cap_json(answer)
    body = render.cut_text(text(answer)) if fmt == "text" else json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=body)], structured_content=structured)


def _failed(e: ToolFailure) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=e.render())], is_error=True)


async def _answer(ctx: Context, method: str, domain: str | None, segments: tuple[str, ...], fmt: str, text, *,
                  params: dict[str, Any] | None = None, body: dict[str, Any] | None = None) -> CallToolResult:
    """One tool's Keeper call (the Domain's `segments`; a body without its unset keys), its answer finished in
    `fmt` (`text` renders the text form) or its failure as the error result."""
    try:
        url = keeper.url(_domain(domain), *segments)
        if body is not None:
            body = {k: v for k, v in body.items() if v is not None}
        answer = await keeper.call(method, url, _key(ctx), params=params, body=body)
        return _finish(answer, fmt, text)
    except ToolFailure as e:
        return _failed(e)


@mcp.tool(name="lorebase_get", title="One Record", annotations=READ_ONLY, description=(
    "Reads one Record by ref (Kind/key): its values (masked ones show ***) and its Link counts per Relation; "
    "`links: true` lists the Links too. Use it when you know the ref; use lorebase_search or lorebase_query to "
    "find refs, lorebase_explain to see where values came from. Example: "
    "{\"ref\": \"Supplier/S-1001\", \"links\": true}"))
async def lorebase_get(
    ctx: Context,
    ref: Annotated[str, Field(pattern=REF_PATTERN, min_length=3, max_length=385,
                              description="The Record, Kind/key (for example Supplier/S-1001).")],
    links: Annotated[bool, Field(description="Also list the Links (not only their counts).")] = False,
    domain: Domain = None, branch: Branch = None, at: At = None, format: Format = "text",
) -> Annotated[CallToolResult, RecordOut]:
    kind, key = ref.split("/", 1)
    params = _read(branch, at) | {"links": "true" if links else None}
    return await _answer(ctx, "GET", domain, ("kinds", kind, "records", key), format, render.record, params=params)


@mcp.tool(name="lorebase_search", title="Find Records by words", annotations=READ_ONLY, description=(
    "Finds Records by words: ranked hits with snippet and score. Lexical unless you pass `query_vector` (computed "
    "on your side with the Domain's embedding model, see the SEARCH line of lorebase_schema; Herald never "
    "embeds), which makes it vector or hybrid. Narrow with `kinds`, `traits`, `lens` or a `where` predicate. Use "
    "lorebase_query for exact filters and counts, lorebase_resolve to map words to attributes and values. "
    "Example: {\"query\": \"Kavsen alloys\", \"kinds\": [\"Supplier\"], \"limit\": 5}"))
async def lorebase_search(
    ctx: Context,
    query: Annotated[str | None, Field(min_length=1, max_length=1000, description="Words to search for.")] = None,
    kinds: Annotated[Names, Field(description="Limit to these Kinds.")] = None,
    traits: Annotated[Names, Field(max_length=20, description="Limit to Kinds implementing these Traits.")] = None,
    lens: Annotated[str | None, Field(min_length=1, max_length=128, description="Limit to a lens's Kinds.")] = None,
    where: Annotated[dict[str, Any] | None, Field(min_length=1, description="A filter on the hits.")] = None,
    query_vector: Annotated[list[float] | None, Field(min_length=1, max_length=4096, description=(
        "The query embedded with the Domain's model: vector or hybrid search."))] = None,
    limit: Annotated[int | None, Field(ge=1, le=100, description="Most hits.")] = None,
    domain: Domain = None, branch: Branch = None, at: At = None, format: Format = "text",
) -> Annotated[CallToolResult, SearchOut]:
    body = _read(branch, at) | {"query": query, "kinds": kinds, "traits": traits, "lens": lens, "where": where,
                                "query_vector": query_vector, "limit": limit}
    return await _answer(ctx, "POST", domain, ("search",), format, render.search, body=body)


class QueryIn(BaseModel):
    """The query (DSL JSON)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    kind: str = Field(min_length=1, description="The Kind to read.")
    where: dict[str, Any] | None = Field(default=None, min_length=1, description="The filter.")
    select: list[str] | None = Field(default=None, description="Attributes to return (default: all).")
    include: list[dict[str, Any]] | None = Field(default=None, description="Neighbors to include per row.")
    aggregate: dict[str, str] | None = Field(default=None, description="Count Records per value of an attribute.")
    order_by: str | None = Field(default=None, description="Sort attribute; `-attr` for descending.")
    limit: int | None = Field(default=None, ge=1, le=1000, description="Page size.")
    coverage: bool | None = Field(default=None, description="`false` leaves the coverage lines out.")


@mcp.tool(name="lorebase_query", title="Filtered lists and counts", annotations=READ_ONLY, description=(
    "Runs a query of the DSL: Records of one Kind filtered by `where`, with `select`, `include` (neighbors per "
    "Relation), `order_by`, `limit`, and `aggregate: {\"group_by\": attr}` to count Records per value. Text rows "
    "are `ref \"title\" | attr=value`, aggregates `count <Kind> <value>: <n>`, then `next_cursor:` and "
    "`coverage:` lines; read coverage before answering \"none\". Use lorebase_resolve first to get the `where` "
    "fragments for a question's words. Example: {\"query\": {\"kind\": \"Product\", \"where\": {\"and\": "
    "[{\"attr\": \"color\", \"op\": \"in\", \"value\": [\"Rosso\", \"red\"]}, {\"attr\": \"category\", "
    "\"op\": \"eq\", \"value\": \"Calzature\"}]}, \"aggregate\": {\"group_by\": \"brand\"}}}"))
async def lorebase_query(
    ctx: Context,
    query: QueryIn,
    cursor: Annotated[str | None, Field(min_length=1, max_length=1024,
                                        description="The `next_cursor` of the previous page.")] = None,
    domain: Domain = None, branch: Branch = None, at: At = None, format: Format = "text",
) -> Annotated[CallToolResult, QueryOut]:
    body = _read(branch, at) | {"query": query.model_dump(exclude_none=True), "cursor": cursor}
    return await _answer(ctx, "POST", domain, ("query",), format, render.query, body=body)


@mcp.tool(name="lorebase_schema", title="Schema of the Domain", annotations=READ_ONLY, description=(
    "Lists the Domain's Kinds with attribute types (`!` marks required), key and title attributes, built-in "
    "Operations; Relations; custom Operations with parameters and review policy; Traits; LENSES; Sources; and a "
    "final SEARCH line with the search modes and the embedding model and dimension for query_vector. Use it to "
    "learn names before writing a lorebase_query, or when lorebase_resolve finds nothing. Example: "
    "{\"kinds\": [\"Supplier\"], \"detail\": \"full\"}"))
async def lorebase_schema(
    ctx: Context,
    kinds: Annotated[Names, Field(max_length=100, description="Limit to these Kinds (default: all).")] = None,
    detail: Annotated[Literal["summary", "full"] | None, Field(description=(
        "`summary`: names, types and flags. `full`: plus descriptions, enum values and synonyms."))] = None,
    domain: Domain = None, branch: Branch = None, at: At = None, format: Format = "text",
) -> Annotated[CallToolResult, SchemaOut]:
    params = _read(branch, at) | {"kinds": ",".join(kinds) if kinds else None, "detail": detail}
    return await _answer(ctx, "GET", domain, ("schema",), format, render.schema, params=params)


def main() -> None:
    if TRANSPORT == "stdio":
        mcp.run("stdio")
        return
    host = os.environ.get("LOREBASE__HERALD__HTTP__HOST", "127.0.0.1")
    port = int(os.environ.get("LOREBASE__HERALD__HTTP__PORT", "8090"))
    security = TransportSecuritySettings(
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*"],
    )
    print(f"python-sdk-herald listening on http://{host}:{port}/mcp", file=sys.stderr, flush=True)
    mcp.run("streamable-http", host=host, port=port, streamable_http_path="/mcp", stateless_http=True,
            json_response=True, transport_security=security)


if __name__ == "__main__":
    main()

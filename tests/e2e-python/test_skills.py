"""The MCP Skills extension (`io.modelcontextprotocol/skills`): Herald's `lorebase` skill (and
`kb` with a knowledge base) read as a host reads them, with the official SDK's session over real
stdio pipes and real HTTP: `skills/list`, `skills/get`, then every file of each manifest with
`resources/read`, its bytes checked against the manifest's sha256 digest and size. The SDK has
no skills methods of its own: they are sent through the session's `send_request` with request
models made here. Skills follow the tools' visibility: a read-only Herald, or a request with
`X-MCP-Readonly`, is taught no write; a client that does not declare the extension sees the
same tools as before."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import AsyncIterator
from typing import Any, Literal

import pytest
from conftest import clean_env
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from pydantic import TypeAdapter

pytestmark = pytest.mark.anyio

SKILLS = "io.modelcontextprotocol/skills"
WRITES = ("lorebase_execute", "dry_run", "expected_head", "idempotency_key", "stale-head")
KEY = {"Authorization": "Bearer any-key"}
ANY = TypeAdapter(dict[str, Any])


class ListSkillsRequest(types.Request[types.PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: types.PaginatedRequestParams | None = None


class GetSkillParams(types.RequestParams):
    uri: str


class GetSkillRequest(types.Request[GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: GetSkillParams


@contextlib.asynccontextmanager
async def skills_stdio(binaries, keeper_url: str, args: list[str] | None = None,
                       env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """A session over stdio whose client declares the skills extension."""
    params = StdioServerParameters(
        command=binaries["herald"], args=args or [],
        env=clean_env({"LOREBASE_URL": keeper_url, "LOREBASE_DOMAIN": "supply", **(env or {})}),
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, extensions={SKILLS: {}}) as session:
                await session.initialize()
                yield session


@contextlib.asynccontextmanager
async def skills_http(url: str, headers: dict[str, str] | None = None,
                      declare: bool = True) -> AsyncIterator[ClientSession]:
    """A session over Streamable HTTP (declaring the extension unless `declare` is false)."""
    async with create_mcp_http_client(headers={**KEY, **(headers or {})}) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            extensions = {SKILLS: {}} if declare else None
            async with ClientSession(read, write, extensions=extensions) as session:
                await session.initialize()
                yield session


async def read_skills(session: ClientSession) -> dict[str, dict[str, Any]]:
    """Every listed skill by name: its entry, and each file's text, checked against the manifest
    (sha256 digest and size of the bytes `resources/read` returns) and against `skills/get`."""
    caps = session.initialize_result.capabilities
    assert SKILLS in (caps.extensions or {}), caps
    assert caps.resources is not None, "the skill files are read through resources/read"
    listed = await session.send_request(ListSkillsRequest(), ANY)
    out = {}
    for entry in listed["skills"]:
        got = await session.send_request(GetSkillRequest(params=GetSkillParams(uri=entry["uri"])), ANY)
        assert got["skill"] == entry
        files = {}
        for f in entry["resources"]:
            read = await session.read_resource(f["uri"])
            (content,) = read.contents
            assert content.uri == f["uri"] and content.mime_type == "text/markdown"
            data = content.text.encode()
            assert f["digest"] == "sha256:" + hashlib.sha256(data).hexdigest(), f["uri"]
            assert f["size"] == len(data), f["uri"]
            files[f["uri"]] = content.text
        skill_md = files[entry["uri"]]
        name, description = entry["frontmatter"]["name"], entry["frontmatter"]["description"]
        assert entry["uri"] == f"skill://{name}/SKILL.md"
        head = skill_md.split("\n---\n", 1)[0]
        assert head == f"---\nname: {name}\ndescription: {json.dumps(description)}", head
        out[name] = {"entry": entry, "files": files}
    return out


async def test_the_lorebase_skill_is_listed_got_and_read_with_its_digests_over_stdio(binaries, sandbox):
    async with skills_stdio(binaries, sandbox.url) as session:
        skills = await read_skills(session)
    assert list(skills) == ["lorebase"]
    files = skills["lorebase"]["files"]
    assert sorted(files) == [
        "skill://lorebase/SKILL.md",
        "skill://lorebase/references/errors.md",
        "skill://lorebase/references/examples.md",
        "skill://lorebase/references/query-dsl.md",
    ]
    body = files["skill://lorebase/SKILL.md"]
    for taught in ("lorebase_context", "lorebase_resolve", "coverage:", *WRITES[:3], "references/query-dsl.md"):
        assert taught in body, taught
    examples = files["skill://lorebase/references/examples.md"]
    for worked in ("red shoes per brand", "Supplier/S-1001", "expected_head", '"task"', '"intent"'):
        assert worked in examples, worked
    assert "`stale-head`" in files["skill://lorebase/references/errors.md"]
    assert '"aggregate": {"group_by"' in files["skill://lorebase/references/query-dsl.md"]


async def test_the_skills_over_http_and_a_read_only_request_is_taught_no_write(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url)
    async with skills_http(herald.url) as session:
        full = await read_skills(session)
    async with skills_http(herald.url, {"X-MCP-Readonly": "yes"}) as session:
        read_only = await read_skills(session)
    assert list(full) == list(read_only) == ["lorebase"]
    everything = "".join(full["lorebase"]["files"].values())
    assert all(w in everything for w in WRITES)
    taught = "".join(read_only["lorebase"]["files"].values())
    assert not [w for w in WRITES if w in taught], [w for w in WRITES if w in taught]
    # The digests describe what each request is served: the read-only SKILL.md is another file.
    digest = {e["uri"]: e["digest"] for s in (full, read_only) for e in s["lorebase"]["entry"]["resources"]}
    assert len(digest) == 4
    assert full["lorebase"]["entry"]["resources"][0] != read_only["lorebase"]["entry"]["resources"][0]
    # A toolset without lorebase_query: no query DSL reference.
    async with skills_http(herald.url, {"X-MCP-Toolsets": "provenance"}) as session:
        narrowed = await read_skills(session)
    assert "skill://lorebase/references/query-dsl.md" not in narrowed["lorebase"]["files"]
    assert "lorebase_history" in narrowed["lorebase"]["files"]["skill://lorebase/SKILL.md"]


async def test_a_read_only_herald_over_stdio_teaches_no_write(binaries, sandbox):
    env = {"LOREBASE__HERALD__TOOLS__READ_ONLY": "true"}
    async with skills_stdio(binaries, sandbox.url, env=env) as session:
        assert "lorebase_execute" not in [t.name for t in (await session.list_tools()).tools]
        skills = await read_skills(session)
    taught = "".join(skills["lorebase"]["files"].values())
    assert not [w for w in WRITES if w in taught]


async def test_the_kb_skill_comes_with_the_knowledge_base(binaries, sandbox, tmp_path):
    (tmp_path / "runbooks").mkdir()
    (tmp_path / "runbooks" / "disk.md").write_text("---\ntitle: Disk full\n---\nFree space first.\n")
    env = {"LOREBASE__HERALD__KB__DIR": str(tmp_path)}
    async with skills_stdio(binaries, sandbox.url, env=env) as session:
        skills = await read_skills(session)
    assert list(skills) == ["kb", "lorebase"]
    kb = skills["kb"]["files"]["skill://kb/SKILL.md"]
    assert "kb_search" in kb and "kb_get" in kb
    # KB-only: the kb skill alone, and no Keeper resource.
    async with skills_stdio(binaries, "http://127.0.0.1:9", args=["kb", str(tmp_path)]) as session:
        assert (await session.list_resources()).resources == []
        skills = await read_skills(session)
    assert list(skills) == ["kb"]


async def test_a_client_without_the_extension_sees_the_same_tools_and_resources(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url)
    async with skills_http(herald.url, declare=False) as plain, skills_http(herald.url) as declaring:
        assert (await plain.list_tools()).tools == (await declaring.list_tools()).tools
        resources = [r.uri for r in (await plain.list_resources()).resources]
        assert not [u for u in resources if u.startswith("skill://")], resources


def test_a_2026_07_28_client_over_raw_http_lists_and_reads_the_skills(sandbox, http_herald_factory):
    """What Claude Code does once it asks: `server/discover`, then `skills/list` and `skills/get`
    with the client's skills extension in `_meta`, then `resources/read` of a file, each a plain
    HTTP POST under 2026-07-28; the answers carry the list's cache lifetime."""
    import httpx2

    herald = http_herald_factory(sandbox.url)
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "skills-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {SKILLS: {}}},
    }

    def post(method: str, params: dict[str, Any]) -> dict[str, Any]:
        headers = {**KEY, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
        if "uri" in params and method == "resources/read":
            headers["Mcp-Name"] = params["uri"]
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
        answer = httpx2.post(herald.url, json=body, headers=headers, timeout=10)
        assert answer.status_code == 200, answer.text
        return answer.json()["result"]

    assert SKILLS in post("server/discover", {})["capabilities"]["extensions"]
    listed = post("skills/list", {})
    assert listed["ttlMs"] > 0 and [s["frontmatter"]["name"] for s in listed["skills"]] == ["lorebase"]
    (skill,) = listed["skills"]
    assert post("skills/get", {"uri": skill["uri"]})["skill"] == skill
    for f in skill["resources"]:
        (content,) = post("resources/read", {"uri": f["uri"]})["contents"]
        data = content["text"].encode()
        assert f["digest"] == "sha256:" + hashlib.sha256(data).hexdigest() and f["size"] == len(data)

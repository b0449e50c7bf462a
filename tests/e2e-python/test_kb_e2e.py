"""kb_search and kb_get end to end: `lorebase-herald kb DIR` over real stdio
pipes, driven by the official Python MCP SDK client.

Covers what a host sees: the tool list (schemas, read-only annotations), hits
with their fields in both formats, the k rules, tool errors, paths that can
never reach a file, skipped files (with the warning on stderr), and a
re-index after the folder changes while the server runs.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from conftest import clean_env, text_of

pytestmark = pytest.mark.anyio

RUNBOOK = """---
type: runbook
title: harbor-core OOMKilled after upgrade
description: The registry API pods restart in a loop.
resource: Deployment/harbor-core
alert_resource: HarborCoreDown
tags: [harbor, oom]
status: retired
last_validated: 2026-02-27
timestamp: 2026-03-01T10:00:00Z
fingerprint: 9f2c0e
---

## Fix
Raise the memory limit to 2Gi; v1.8.2 fixes the leak.
"""

NOTE = "# Karpenter EC2NodeClass drift\n\nPin the AMI alias; call kb_search before paging.\n"


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    write(root, "runbooks/harbor-core-oom.md", RUNBOOK)
    write(root, "notes/karpenter.md", NOTE)
    for n in range(25):
        write(root, f"bulk/disk-{n:02}.md", f"---\ntitle: Disk note {n}\n---\n{'disk ' * (n + 1)}\n")
    # Never entries: repository documents, hidden files, other extensions,
    # symlinks, malformed files.
    write(root, "README.md", "# disk narwhal\n")
    write(root, ".drafts/secret.md", "---\ntitle: zanzibar disk\n---\ndisk\n")
    write(root, "notes.txt", "disk\n")
    outside = tmp_path / "outside"
    write(outside, "leak.md", "---\ntitle: quokka disk\n---\ndisk\n")
    os.symlink(outside / "leak.md", root / "leak.md")
    write(root, "broken/bad.md", "---\ntitle: [unclosed\n---\ndisk\n")
    return root


@contextlib.asynccontextmanager
async def kb_session(binaries: dict[str, str], root: Path, errlog_path: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=binaries["herald"],
        args=["kb", str(root)],
        env=clean_env({"LOREBASE_CONFIG": str(root / "no-such-config.yaml")}),
    )
    with open(errlog_path, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write_stream):
            async with ClientSession(read, write_stream) as session:
                await session.initialize()
                yield session


async def test_kb_tools_are_listed_read_only_with_schemas(binaries, catalog, tmp_path):
    async with kb_session(binaries, catalog, tmp_path / "stderr.log") as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert sorted(tools) == ["kb_get", "kb_search"]
        for tool in tools.values():
            assert tool.annotations is not None and tool.annotations.read_only_hint is True
            assert tool.input_schema["additionalProperties"] is False
        assert tools["kb_search"].input_schema["required"] == ["query"]
        assert tools["kb_get"].input_schema["required"] == ["path"]


async def test_search_and_get_through_mcp(binaries, catalog, tmp_path):
    async with kb_session(binaries, catalog, tmp_path / "stderr.log") as session:
        result = await session.call_tool("kb_search", {"query": "harbor-core", "format": "json"})
        assert not result.is_error, text_of(result)
        hits = result.structured_content["hits"]
        assert hits[0]["path"] == "runbooks/harbor-core-oom.md"
        assert list(hits[0]) == ["path", "type", "title", "description", "resource", "tags",
                                 "status", "last_validated", "score"]
        assert hits[0]["status"] == "retired"

        # Identifiers of each shape.
        for query, path in [("v1.8.2", "runbooks/harbor-core-oom.md"),
                            ("EC2NodeClass", "notes/karpenter.md"),
                            ("kb_search", "notes/karpenter.md")]:
            found = await session.call_tool("kb_search", {"query": query, "k": 1, "format": "json"})
            assert [h["path"] for h in found.structured_content["hits"]] == [path], query

        # A hit without frontmatter: description, resource and tags are there,
        # empty (a hit's shape never varies, docs/kb.md); status and
        # last_validated only when the entry has them.
        note = (await session.call_tool("kb_search", {"query": "karpenter", "format": "json"})).structured_content
        assert note["hits"][0]["title"] == "Karpenter EC2NodeClass drift"
        assert list(note["hits"][0]) == ["path", "type", "title", "description", "resource", "tags", "score"]
        assert [note["hits"][0][k] for k in ("description", "resource", "tags")] == ["", "", []]

        # k: default 5, below 1 gives 5, capped at 20.
        for k, expected in [(None, 5), (0, 5), (-1, 5), (3, 3), (50, 20)]:
            args = {"query": "disk", "format": "json"} | ({} if k is None else {"k": k})
            got = await session.call_tool("kb_search", args)
            assert len(got.structured_content["hits"]) == expected, k
            paths = [h["path"] for h in got.structured_content["hits"]]
            assert all(p.startswith("bulk/") for p in paths), paths

        # No hits is an empty list.
        none = await session.call_tool("kb_search", {"query": "zebra", "format": "json"})
        assert not none.is_error and none.structured_content["hits"] == []

        # kb_get returns the whole entry; text format is frontmatter + body.
        entry = await session.call_tool("kb_get", {"path": "runbooks/harbor-core-oom.md", "format": "json"})
        assert entry.structured_content["timestamp"] == "2026-03-01T10:00:00Z"
        assert entry.structured_content["fingerprint"] == "9f2c0e"
        assert entry.structured_content["alert_resource"] == "HarborCoreDown"
        assert entry.structured_content["body"].startswith("## Fix")
        text = text_of(await session.call_tool("kb_get", {"path": "runbooks/harbor-core-oom.md"}))
        assert text.startswith("---\npath: runbooks/harbor-core-oom.md\ntype: runbook\n")
        assert "v1.8.2 fixes the leak" in text


async def test_errors_and_paths_that_never_reach_a_file(binaries, catalog, tmp_path):
    async with kb_session(binaries, catalog, tmp_path / "stderr.log") as session:
        empty = await session.call_tool("kb_search", {"query": "  "})
        assert empty.is_error and text_of(empty).startswith("[validation-failed]")
        assert "\nnext: " in text_of(empty)
        for path in ["../outside/leak.md", "leak.md", "README.md", ".drafts/secret.md",
                     str(catalog / "runbooks/harbor-core-oom.md"), "/etc/passwd",
                     "runbooks/../runbooks/harbor-core-oom.md", "broken/bad.md", "notes.txt"]:
            result = await session.call_tool("kb_get", {"path": path})
            assert result.is_error, path
            assert text_of(result).startswith(
                f'[not-found] no entry at "{path}" (use kb_search to discover paths)'), text_of(result)
        # Nothing outside the entries is searchable.
        hits = (await session.call_tool("kb_search", {"query": "zanzibar quokka narwhal", "format": "json"}))
        assert hits.structured_content["hits"] == []
    log = (tmp_path / "stderr.log").read_text()
    warnings = [line for line in log.splitlines() if "bad.md" in line]
    assert len(warnings) == 1 and "invalid frontmatter" in warnings[0], log


async def test_the_catalog_is_reindexed_while_serving(binaries, catalog, tmp_path):
    async def paths(session: ClientSession, query: str) -> list[str]:
        result = await session.call_tool("kb_search", {"query": query, "format": "json"})
        return [h["path"] for h in result.structured_content["hits"]]

    async def eventually(what: str, check) -> None:
        deadline = time.monotonic() + 30
        while not await check():
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            await anyio.sleep(0.1)

    async with kb_session(binaries, catalog, tmp_path / "stderr.log") as session:
        assert await paths(session, "tempo") == []
        write(catalog, "new/tempo.md", "---\ntitle: Tempo distributor backpressure\n---\ntempo\n")

        async def added() -> bool:
            return await paths(session, "tempo") == ["new/tempo.md"]

        await eventually("the added entry", added)
        write(catalog, "new/tempo.md", "---\ntitle: Tempo ingester\n---\nloki now\n")

        async def changed() -> bool:
            return await paths(session, "ingester") == ["new/tempo.md"]

        await eventually("the changed entry", changed)
        (catalog / "new/tempo.md").unlink()

        async def removed() -> bool:
            result = await session.call_tool("kb_get", {"path": "new/tempo.md"})
            return result.is_error

        await eventually("the removed entry", removed)
    log = (tmp_path / "stderr.log").read_text()
    assert "KB: re-indexed" in log and "new/tempo.md" in log, log

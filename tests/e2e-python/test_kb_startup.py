"""A large catalog and a hostile entry never hold back the MCP handshake:
`lorebase-herald kb DIR` over real stdio pipes with the official
Python MCP SDK client, on a catalog of 15,000 entries plus one whose
frontmatter nests `tags: [[[[...]]]]` 100,000 deep (a 200 KB file that took
47 s to refuse, during which `initialize` went unanswered).
"""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from conftest import clean_env, text_of

pytestmark = pytest.mark.anyio

ENTRIES = 15_000
DEPTH = 100_000


@pytest.fixture(scope="module")
def large_catalog(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("large-kb")
    for folder in range(100):
        (root / f"f{folder:02}").mkdir()
    for i in range(ENTRIES):
        (root / f"f{i % 100:02}" / f"note-{i}.md").write_text(
            f"---\ntitle: Disk note {i}\ntags: [disk, n{i % 37}]\n---\nThe disk of node {i} fills up.\n"
        )
    (root / "deep.md").write_text("---\ntitle: deep\ntags: " + "[" * DEPTH + "]" * DEPTH + "\n---\nbody\n")
    return root


async def test_initialize_is_answered_while_the_catalog_is_indexed(binaries, large_catalog, tmp_path):
    params = StdioServerParameters(
        command=binaries["herald"],
        args=["kb", str(large_catalog)],
        env=clean_env(
            {
                "LOREBASE_CONFIG": str(tmp_path / "none.yaml"),
                # A call before the index is ready answers at once.
                "LOREBASE__HERALD__KB__INDEX_WAIT_S": "0",
            }
        ),
    )
    errlog_path = tmp_path / "stderr.log"
    with open(errlog_path, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                started = time.monotonic()
                await session.initialize()
                assert time.monotonic() - started < 3.0
                tools = [t.name for t in (await session.list_tools()).tools]
                assert tools == ["kb_search", "kb_get"]

                early = await session.call_tool("kb_search", {"query": "disk"})
                lines = text_of(early).split("\n")
                assert early.is_error, lines
                assert lines[0].startswith("[kb-indexing] the knowledge base is still being indexed"), lines
                assert lines[-1].startswith("next: retry after 5 s"), lines

                # The index arrives in the background; calls then answer.
                with anyio.fail_after(120):
                    while True:
                        result = await session.call_tool("kb_search", {"query": "disk", "k": 3, "format": "json"})
                        if not result.is_error:
                            break
                        await anyio.sleep(0.25)
                assert len(result.structured_content["hits"]) == 3
                got = await session.call_tool("kb_get", {"path": "f07/note-7.md"})
                assert not got.is_error and "The disk of node 7" in text_of(got)
                missing = await session.call_tool("kb_get", {"path": "deep.md"})
                assert missing.is_error and text_of(missing).startswith("[not-found]")
    stderr = errlog_path.read_text()
    assert f"indexed {ENTRIES} entries" in stderr, stderr[-2000:]
    assert "deep.md: frontmatter nests collections more than 32 deep (line 2)" in stderr, stderr[-2000:]

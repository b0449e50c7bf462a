"""The KB never blocks on a special file.

An entry listed as a regular file and swapped for a FIFO before it is read used to
block the indexing thread in `open` for good (no writer ever comes): the index was
never published and no later change was seen. Here the swap is timed with inotify:
the moment Herald opens the first entry of the catalog (the listing is over), the
last one becomes a FIFO. It must be skipped with a warning, the rest served, and a
later change (the FIFO swapped back for a file) indexed. `lorebase-herald kb DIR`
over real stdio pipes with the official Python MCP SDK client.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import struct
import threading
import time
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from conftest import clean_env

pytestmark = pytest.mark.anyio

ENTRIES = 1500
IN_OPEN = 0x20


def watch_first_open(path: Path, then) -> threading.Thread:
    """Calls `then()` as soon as `path` is opened (inotify IN_OPEN)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init()
    assert fd >= 0, ctypes.get_errno()
    assert libc.inotify_add_watch(fd, str(path).encode(), IN_OPEN) >= 0, ctypes.get_errno()

    def run() -> None:
        try:
            data = os.read(fd, 4096)
            assert struct.unpack_from("iIII", data)[1] & IN_OPEN
            then()
        finally:
            os.close(fd)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


async def search(session: ClientSession, query: str) -> list[str]:
    result = await session.call_tool("kb_search", {"query": query, "format": "json"})
    assert not result.is_error, result
    return [h["path"] for h in result.structured_content["hits"]]


async def test_a_fifo_swapped_in_for_an_entry_never_blocks_the_index(binaries, tmp_path):
    root = tmp_path / "kb"
    root.mkdir()
    for n in range(ENTRIES):
        (root / f"e{n:05}.md").write_text(f"---\ntitle: Note {n}\n---\nbulk words {n}\n")
    first, last = root / "a-first.md", root / "z-last.md"
    first.write_text("# First\n\nharbor\n")
    last.write_text("# Last\n\nquokka\n")

    def swap() -> None:
        spare = root / ".fifo"
        os.mkfifo(spare)
        os.replace(spare, last)

    watcher = watch_first_open(first, swap)
    errlog = tmp_path / "stderr.log"
    params = StdioServerParameters(
        command=binaries["herald"], args=["kb", str(root)],
        env=clean_env({"LOREBASE_CONFIG": str(root / "no-such-config.yaml"),
                       "LOREBASE__HERALD__KB__INDEX_WAIT_S": "30"}),
    )
    try:
        with open(errlog, "w") as err, anyio.fail_after(90):
            async with stdio_client(params, errlog=err) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    # Served once indexed: the first index was not blocked by the FIFO.
                    assert await search(session, "harbor") == ["a-first.md"]
                    watcher.join(5)
                    assert last.is_fifo(), "the swap did not happen"
                    # Never served as its old content: skipped by the first index when the
                    # swap came in time, else dropped once the watcher sees the swap (on a
                    # loaded machine the swap can come after the whole catalog was read).
                    deadline = time.monotonic() + 30
                    while await search(session, "quokka") != []:
                        assert time.monotonic() < deadline, "the entry swapped for a FIFO is still served"
                        await anyio.sleep(0.2)
                    # The FIFO swapped back for an entry: the watcher sees it.
                    spare = root / ".spare"
                    spare.write_text("# Last again\n\nnarwhal\n")
                    os.replace(spare, last)
                    deadline = time.monotonic() + 30
                    while await search(session, "narwhal") != ["z-last.md"]:
                        assert time.monotonic() < deadline, "the change after the FIFO was never indexed"
                        await anyio.sleep(0.2)
    finally:
        # On a Herald blocked in open(), a writer releases it.
        with contextlib.suppress(OSError):
            if last.is_fifo():
                os.close(os.open(last, os.O_WRONLY | os.O_NONBLOCK))
    log = errlog.read_text()
    assert "z-last.md" in log and "FIFO" in log, log[-3000:]

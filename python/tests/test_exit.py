"""Interpreter exit after asynchronous calls.

A Python agent that awaited ``acall_tool`` and then ended normally died with
SIGABRT in some runs: a thread of Herald's runtime took the GIL (the event
loop's wake-up) while the interpreter finalized, and CPython ended that
thread with a forced unwind through Rust frames. Each run here is a fresh
interpreter running such a script (50 awaited calls under
``asyncio.run``, then a normal end), and one that leaves calls in flight
when ``asyncio.run`` returns; every run must exit 0.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from typing import Any, List

RUNS = 50
AT_ONCE = 4

AWAITED = textwrap.dedent(
    """
    import asyncio, sys
    from lorebase_herald import Herald

    async def main() -> None:
        h = Herald(url=sys.argv[1], api_key=sys.argv[2], domain="supply", keeper={"max_retries": 0})
        for _ in range(50):
            result = await h.acall_tool("lorebase_get", {"ref": "Supplier/S-1001"})
            assert not result.is_error, result.text
        print("ok")

    asyncio.run(main())
    """
)

# Ends with calls still running: asyncio.run cancels their tasks, and their
# outcomes arrive while (or after) the interpreter exits.
IN_FLIGHT = textwrap.dedent(
    """
    import asyncio, sys
    from lorebase_herald import Herald

    async def main() -> None:
        h = Herald(url=sys.argv[1], api_key=sys.argv[2], domain="supply", keeper={"max_retries": 0})
        for _ in range(10):
            await h.acall_tool("lorebase_get", {"ref": "Supplier/S-1001"})
        for _ in range(20):
            asyncio.ensure_future(h.acall_tool("lorebase_get", {"ref": "Supplier/S-1002"}))
        await asyncio.sleep(0)
        print("ok")

    asyncio.run(main())
    """
)


def _runs(script: str, sandbox: Any, key: str) -> List[subprocess.CompletedProcess]:
    def once(_: int) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", script, sandbox.url, key], capture_output=True, text=True, timeout=60
        )

    with ThreadPoolExecutor(AT_ONCE) as pool:
        return list(pool.map(once, range(RUNS)))


def _check(runs: List[subprocess.CompletedProcess]) -> None:
    failed = [r for r in runs if r.returncode != 0 or r.stdout.strip() != "ok"]
    codes = sorted({r.returncode for r in failed})
    detail = failed[0].stderr[-1500:] if failed else ""
    assert not failed, f"{len(failed)} of {len(runs)} runs failed (exit codes {codes}):\n{detail}"


def test_50_exits_after_awaited_async_calls_all_return_0(sandbox: Any, reader_key: str) -> None:
    _check(_runs(AWAITED, sandbox, reader_key))


def test_50_exits_with_async_calls_in_flight_all_return_0(sandbox: Any, reader_key: str) -> None:
    _check(_runs(IN_FLIGHT, sandbox, reader_key))

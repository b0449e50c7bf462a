"""Concurrency: 100 calls in flight from threads and from asyncio, the GIL and the
event loop stay free while calls wait on Keeper, cancellation, and fork safety."""

from __future__ import annotations

import asyncio
import multiprocessing
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, List

import pytest

from lorebase_herald import Herald, ToolResult

SUPPLIERS = ["S-1001", "S-1002", "S-1003", "S-2001", "S-2002"]
REFS = [f"Supplier/{SUPPLIERS[i % len(SUPPLIERS)]}" for i in range(100)]


def _wait_for_requests(sandbox: Any, at_least: int) -> None:
    """Waits (Python code running) until the sandbox has received `at_least` API calls."""
    for _ in range(2000):
        if sandbox.stats() >= at_least:
            return
        threading.Event().wait(0.005)
    pytest.fail("the call never reached the sandbox")


def test_100_calls_from_threads(herald: Herald, sandbox: Any) -> None:
    before = sandbox.stats()
    with ThreadPoolExecutor(max_workers=100) as pool:
        results: List[ToolResult] = list(pool.map(lambda ref: herald.call_tool("lorebase_get", {"ref": ref}), REFS))
    assert len(results) == 100
    assert all(not result.is_error for result in results), [r.text for r in results if r.is_error][:3]
    assert all(ref.split("/")[1] in result.text for ref, result in zip(REFS, results))
    assert sandbox.stats() - before == 100


def test_100_calls_in_flight_from_asyncio(herald: Herald, sandbox: Any) -> None:
    async def main() -> List[ToolResult]:
        return await asyncio.gather(*(herald.acall_tool("lorebase_get", {"ref": ref}) for ref in REFS))

    before = sandbox.stats()
    results = asyncio.run(main())
    assert all(not result.is_error for result in results)
    assert all(ref.split("/")[1] in result.text for ref, result in zip(REFS, results))
    assert sandbox.stats() - before == 100


def test_sync_call_releases_the_gil(herald: Herald, sandbox: Any) -> None:
    sandbox.admin("POST", "/_sandbox/faults", {"count": 1, "delay_ms": 3000})
    try:
        before = sandbox.stats()
        worker = threading.Thread(target=herald.call_tool, args=("lorebase_get", {"ref": REFS[0]}))
        worker.start()
        # This thread runs Python while the worker's call waits on Keeper: were the
        # GIL held during the call, it would only get here once the call had returned.
        _wait_for_requests(sandbox, before + 1)
        assert worker.is_alive()
        worker.join()
    finally:
        sandbox.admin("DELETE", "/_sandbox/faults")


def test_async_call_does_not_block_the_loop(herald: Herald, sandbox: Any) -> None:
    sandbox.admin("POST", "/_sandbox/faults", {"count": 1, "delay_ms": 1500})

    async def main() -> int:
        ticks = 0
        stop = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not stop.is_set():
                ticks += 1
                await asyncio.sleep(0.01)

        task = asyncio.create_task(ticker())
        result = await herald.acall_tool("lorebase_get", {"ref": REFS[0]})
        stop.set()
        await task
        assert not result.is_error, result.text
        return ticks

    try:
        assert asyncio.run(main()) > 10
    finally:
        sandbox.admin("DELETE", "/_sandbox/faults")


def test_cancelling_an_async_call(herald: Herald, sandbox: Any) -> None:
    sandbox.admin("POST", "/_sandbox/faults", {"count": 1, "delay_ms": 5000})

    async def main() -> ToolResult:
        before = sandbox.stats()
        task = asyncio.create_task(herald.acall_tool("lorebase_get", {"ref": REFS[0]}))
        while sandbox.stats() == before:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return await herald.acall_tool("lorebase_get", {"ref": REFS[1]})

    try:
        after = asyncio.run(main())
        assert not after.is_error, after.text
    finally:
        sandbox.admin("DELETE", "/_sandbox/faults")


def test_async_exceptions_are_typed(herald: Herald) -> None:
    from lorebase_herald import BadArgumentsError, UnknownToolError

    async def main() -> None:
        with pytest.raises(UnknownToolError):
            await herald.acall_tool("lorebase_nothing")
        with pytest.raises(BadArgumentsError):
            await herald.acall_tool("lorebase_get", [1])  # type: ignore[arg-type]

    asyncio.run(main())


def _call_in_child(herald: Herald, queue: "multiprocessing.Queue[Any]") -> None:
    result = herald.call_tool("lorebase_get", {"ref": REFS[0]})
    queue.put((result.is_error, result.text))


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method")
def test_calls_work_in_a_forked_child(herald: Herald) -> None:
    assert not herald.call_tool("lorebase_get", {"ref": REFS[0]}).is_error  # runtime started
    context = multiprocessing.get_context("fork")
    queue: "multiprocessing.Queue[Any]" = context.Queue()
    child = context.Process(target=_call_in_child, args=(herald, queue))
    child.start()
    is_error, text = queue.get(timeout=60)
    child.join(timeout=30)
    assert child.exitcode == 0
    assert is_error is False, text


CHILD = """
import sys
from lorebase_herald import Herald
herald = Herald(url=sys.argv[1], api_key=sys.argv[2], domain="supply", keeper={"max_retries": 0, "timeout_s": 120})
print("calling", flush=True)
result = herald.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
print("returned", result.is_error, flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_interrupts_a_waiting_sync_call(sandbox: Any, reader_key: str) -> None:
    sandbox.admin("POST", "/_sandbox/faults", {"count": 1, "delay_ms": 90000})
    try:
        before = sandbox.stats()
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, sandbox.url, reader_key],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        _wait_for_requests(sandbox, before + 1)
        child.send_signal(signal.SIGINT)
        # Without the interruption the call would wait out the 90 s delay: this
        # bound only catches that hang.
        out, err = child.communicate(timeout=45)
        assert "calling" in out and "returned" not in out
        assert "KeyboardInterrupt" in err
        assert child.returncode != 0
    finally:
        sandbox.admin("DELETE", "/_sandbox/faults")

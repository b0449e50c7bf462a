"""An audit file that cannot be written loses no line silently.

`log.audit_file: /dev/full`: every append fails (ENOSPC). Each lost line is counted
(`herald_audit_lines_dropped_total` on /metrics), and one warning per burst of
failures says so on stderr; the calls themselves go on. Real stdio pipes, raw
JSON-RPC, the sandbox Keeper on loopback.
"""

from __future__ import annotations

import subprocess
import time

from conftest import StderrCollector, clean_env, stop
from test_metrics import scrape
from test_unread_stderr import JsonRpcPipe, free_port

CALLS = 20
LOST = "herald_audit_lines_dropped_total"


def test_an_audit_file_that_cannot_be_written_is_counted_and_warned_once(binaries, sandbox):
    port = free_port()
    proc = subprocess.Popen(
        [binaries["herald"]],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=clean_env({
            "LOREBASE_URL": sandbox.url,
            "LOREBASE_DOMAIN": "supply",
            "LOREBASE__HERALD__METRICS__PORT": str(port),
            "LOREBASE__HERALD__LOG__AUDIT_FILE": "/dev/full",
        }),
    )
    errors = StderrCollector(proc.stderr)
    try:
        rpc = JsonRpcPipe(proc)
        init = rpc.request("initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "audit-full", "version": "1"},
        })
        assert "result" in init, init
        rpc.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for _ in range(CALLS):
            answer = rpc.request("tools/call", {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001"}})
            assert answer["result"].get("isError") is not True, answer
        lost = scrape(f"http://127.0.0.1:{port}/metrics").get((LOST, ()))
        assert lost is not None and lost >= CALLS, f"{LOST} = {lost} after {CALLS} calls"
        deadline = time.monotonic() + 5
        while "audit" not in errors.text() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop(proc)
    errors.join()
    warnings = [line for line in errors.text().splitlines() if "cannot write the audit file" in line]
    assert len(warnings) == 1, errors.text()[-3000:]
    assert "/dev/full" in warnings[0] and "log.audit_file" in warnings[0], warnings

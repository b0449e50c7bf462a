"""`lorebase-herald demo`: the sandbox in-process, Herald on it, the host
configurations on stderr; over stdio (as a host starts it) and over HTTP."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from conftest import LineReader, StderrCollector, clean_env, http_session, stdio_session, stop, text_of

pytestmark = pytest.mark.anyio


async def test_demo_over_stdio_serves_the_sample_domains(binaries):
    # No Keeper URL: the demo brings its own.
    async with stdio_session(binaries, "http://127.0.0.1:9", args=["demo"]) as session:
        history = await session.call_tool("lorebase_history", {"ref": "Supplier/S-1001", "values": True})
        assert not history.is_error, text_of(history)
        assert "risk_score: 32 -> 90" in text_of(history)
        resolve = await session.call_tool(
            "lorebase_resolve", {"domain": "retail", "text": "red shoes per brand", "kinds": ["Product"]}
        )
        assert "Calzature" in text_of(resolve)


async def test_demo_over_http_prints_host_configs(binaries):
    proc = subprocess.Popen(
        [binaries["herald"], "demo", "--transport", "streamable_http", "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=clean_env(),
    )
    stderr = StderrCollector(proc.stderr)
    try:
        ready = json.loads(LineReader(proc.stdout).wait_for("LOREBASE_HERALD_READY"))
        async with http_session(ready["url"]) as session:
            got = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
            assert "Kavsen Alloys" in text_of(got)
        deadline = time.monotonic() + 30
        while "Serving MCP on" not in stderr.text() and time.monotonic() < deadline:
            time.sleep(0.05)
        # The curl calls it prints answer as printed.
        commands = re.findall(r"^  (curl -s .*\}')$", stderr.text().replace("\\\n    ", ""), re.M)
        assert len(commands) == 2, stderr.text()
        answers = (
            [subprocess.run(["bash", "-c", c], capture_output=True, text=True, timeout=30).stdout for c in commands]
            if shutil.which("curl")
            else []
        )
    finally:
        assert stop(proc) == 0
    stderr.join()
    if answers:
        assert json.loads(answers[0])["result"]["serverInfo"]["name"] == "lorebase-herald"
        call = json.loads(answers[1])["result"]
        assert not call["isError"] and "Kavsen Alloys" in call["content"][0]["text"]
    text = stderr.text()
    assert f"claude mcp add --transport http lorebase-demo {ready['url']}" in text
    assert '"mcpServers"' in text  # Cursor
    assert "code --add-mcp" in text  # VS Code
    # Not a terminal: no tour, but where it serves and what to try.
    assert "A short tour" not in text
    assert f"Serving MCP on {ready['url']}. Ctrl-C to stop." in text
    assert "What to try" in text
    assert f"curl -s {ready['url']} " in text


def test_demo_stdio_configs_name_the_program(binaries):
    proc = subprocess.Popen(
        [binaries["herald"], "demo"],
        stdin=subprocess.DEVNULL,  # a host that goes away at once
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=clean_env(),
    )
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert out == b""
    text = err.decode()
    assert (f"claude mcp add lorebase-demo -- "
            f"{binaries['herald']} demo") in text
    assert '"args": [\n' in text or '"args":' in text
    # Not a terminal (a host, a script): still where it serves and what to try.
    assert "Serving MCP over stdio now" in text
    assert "What to try" in text


@pytest.mark.skipif(sys.platform != "linux", reason="uses a pseudo-terminal")
def test_demo_tour_in_a_terminal(binaries):
    import pty
    import select
    import time

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [binaries["herald"], "demo"],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=clean_env(),
    )
    os.close(follower)
    collected = b""
    deadline = time.monotonic() + 60
    try:
        while b"Serving MCP over stdio now" not in collected and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stderr], [], [], 1)
            if ready:
                chunk = os.read(proc.stderr.fileno(), 65536)
                if not chunk:
                    break
                collected += chunk
    finally:
        stop(proc)
        os.close(leader)
    text = collected.decode(errors="replace")
    assert "A short tour" in text
    assert "risk_score: 32 -> 90" in text  # history of Supplier/S-1001
    assert "risk_score = 90" in text  # its lineage
    assert "Calzature" in text  # the red-shoes resolve

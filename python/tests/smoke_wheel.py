"""Smoke test of an installed `lorebase-herald` wheel, with the standard library only
(the release workflow runs it on every platform; `python smoke_wheel.py`).

Checks the console script, `python -m lorebase_herald`, the Python API, and one MCP
session over stdio against `lorebase-herald demo` (the sandbox Keeper in process)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

TOOLS = 14


def run(*args: str) -> str:
    done = subprocess.run(list(args), capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        sys.exit(f"{args} exited with {done.returncode}: {done.stderr}")
    return done.stdout


def send(process: "subprocess.Popen[str]", message: dict) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()


def answer(process: "subprocess.Popen[str]", request_id: int) -> dict:
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        if not line:
            sys.exit(f"the server closed stdout before answering request {request_id}")
        message = json.loads(line)
        if message.get("id") == request_id:
            return message


def main() -> None:
    script = shutil.which("lorebase-herald")
    if script is None:
        sys.exit("the lorebase-herald console script is not on PATH")
    print(run(script, "--version").strip())

    listed = json.loads(run(sys.executable, "-m", "lorebase_herald", "tools", "--format", "json"))
    assert len(listed) == TOOLS, listed

    import lorebase_herald

    herald = lorebase_herald.Herald(url="http://127.0.0.1:9", domain="supply")
    assert len(herald.list_tools()) == TOOLS

    process = subprocess.Popen(
        [script, "demo"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    send(process, {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "smoke", "version": "0"}},
    })
    assert "result" in answer(process, 1)
    send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001", "domain": "supply"}}})
    result = answer(process, 2)["result"]
    assert result.get("isError") is not True, result
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(timeout=60) == 0
    print(f"lorebase-herald {lorebase_herald.__version__}: ok on {sys.platform}, Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()

"""The console script (and ``python -m lorebase_herald``) behaves exactly like the
native ``lorebase-herald`` binary: same output, exit codes, stdout discipline and
signal handling."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from conftest import clean_env

SUPPLIER = "Supplier/S-1001"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "lorebase-herald-python-tests", "version": "0"},
    },
}


def _run(command: List[str], env: Dict[str, str], stdin: Optional[str] = None) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(command, env=env, input=stdin, capture_output=True, text=True, timeout=120)


@pytest.fixture()
def env(sandbox: Any, reader_key: str) -> Dict[str, str]:
    return clean_env(LOREBASE_URL=sandbox.url, LOREBASE_API_KEY=reader_key, LOREBASE_DOMAIN="supply")


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["--help"],
        ["tools"],
        ["tools", "--format", "json"],
        ["call", "lorebase_get", json.dumps({"ref": SUPPLIER})],
        ["call", "lorebase_get", json.dumps({"ref": "Supplier/NO-SUCH-KEY"})],
        ["call", "lorebase_nothing", "{}"],
        ["--no-such-flag"],
        ["call"],
    ],
    ids=lambda args: " ".join(args)[:40],
)
def test_same_output_and_exit_code_as_the_binary(
    args: List[str], env: Dict[str, str], herald_bin: Path, console_script: Path
) -> None:
    native = _run([str(herald_bin), *args], env)
    script = _run([str(console_script), *args], env)
    module = _run([sys.executable, "-m", "lorebase_herald", *args], env)
    # `python -m` names itself so in its usage ("python3 -m lorebase_herald [OPTIONS]").
    as_module = f"{Path(sys.executable).name} -m lorebase_herald"
    module = subprocess.CompletedProcess(
        module.args, module.returncode,
        module.stdout.replace(as_module, "lorebase-herald"), module.stderr.replace(as_module, "lorebase-herald"),
    )
    for other in (script, module):
        assert (other.returncode, other.stdout, other.stderr) == (native.returncode, native.stdout, native.stderr)


def test_exit_codes_follow_the_command(env: Dict[str, str], console_script: Path) -> None:
    assert _run([str(console_script), "call", "lorebase_get", json.dumps({"ref": SUPPLIER})], env).returncode == 0
    missing = _run([str(console_script), "call", "lorebase_get", json.dumps({"ref": "Supplier/NO-SUCH-KEY"})], env)
    assert missing.returncode == 1
    assert missing.stdout.startswith("[not-found]") or "[not-found]" in missing.stdout + missing.stderr
    assert _run([str(console_script), "--no-such-flag"], env).returncode == 2


def _stdio_session(command: List[str], env: Dict[str, str], stop: signal.Signals) -> Dict[str, Any]:
    """Starts the stdio server, initializes, lists tools, then sends `stop`."""
    process = subprocess.Popen(
        command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(INITIALIZE) + "\n")
    process.stdin.flush()
    initialized = json.loads(process.stdout.readline())
    process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) + "\n")
    process.stdin.flush()
    listed = json.loads(process.stdout.readline())
    process.send_signal(stop)
    code = process.wait(timeout=30)
    rest = process.stdout.read()
    process.stdin.close()
    return {"initialized": initialized, "listed": listed, "code": code, "rest": rest}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stdio_server_and_signals_like_the_binary(
    stop: signal.Signals, env: Dict[str, str], herald_bin: Path, console_script: Path
) -> None:
    native = _stdio_session([str(herald_bin)], env, stop)
    script = _stdio_session([str(console_script)], env, stop)
    for session in (native, script):
        assert session["initialized"]["id"] == 1 and "result" in session["initialized"]
        assert len(session["listed"]["result"]["tools"]) == 14
        for line in session["rest"].splitlines():  # protocol only on stdout
            assert json.loads(line)["jsonrpc"] == "2.0"
    assert script["code"] == native["code"]
    assert script["code"] in (0, 128 + stop, -stop)
    assert script["listed"] == native["listed"]


def test_stdin_closed_ends_the_stdio_server_like_the_binary(
    env: Dict[str, str], herald_bin: Path, console_script: Path
) -> None:
    native = _run([str(herald_bin)], env, stdin=json.dumps(INITIALIZE) + "\n")
    script = _run([str(console_script)], env, stdin=json.dumps(INITIALIZE) + "\n")
    assert script.returncode == native.returncode == 0
    assert json.loads(script.stdout.splitlines()[0])["result"]["serverInfo"] == json.loads(
        native.stdout.splitlines()[0]
    )["result"]["serverInfo"]


def test_the_command_line_starts_without_the_python_api() -> None:
    """Startup time: the console script loads neither asyncio nor typing (the Python
    API's imports), see docs/benchmarks.md."""
    code = "import sys, lorebase_herald.__main__\nprint(sorted({'asyncio', 'typing', 'json'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"

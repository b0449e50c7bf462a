"""Fixtures: the sandbox Keeper (a real process on a loopback port), the installed
package, the built wheel and the native binary to compare the console script with.

Paths come from the environment (scripts/test-python.sh sets them) or default to the
workspace's debug build: SANDBOX_BIN, HERALD_BIN, HERALD_WHEEL.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
READY = "LOREBASE_SANDBOX_READY "


def _binary(variable: str, name: str) -> Path:
    path = Path(os.environ.get(variable) or REPO / "target" / "debug" / name)
    if not path.is_file():
        pytest.fail(f"{path} is missing: build it (cargo build -p ...) or set {variable}")
    return path


@dataclass
class Sandbox:
    """A running sandbox Keeper."""

    url: str
    auth: str
    keys: List[Dict[str, object]]
    process: "subprocess.Popen[str]"

    def key(self, principal: str) -> str:
        """The minted key of a sample principal (``agt_reader``, ``agt_risk_bot``, ...)."""
        for entry in self.keys:
            if entry["principal"] == principal:
                return str(entry["key"])
        raise KeyError(principal)

    def admin(self, method: str, path: str, body: Optional[dict] = None) -> object:
        """Calls one of the sandbox's own ``/_sandbox/`` endpoints."""
        import urllib.request

        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"content-type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
        return json.loads(text) if text.strip() else None

    def stats(self) -> int:
        """API calls received so far."""
        answer = self.admin("GET", "/_sandbox/stats")
        assert isinstance(answer, dict)
        return int(answer["requests"])


def start_sandbox(auth: str) -> Sandbox:
    """Starts ``lorebase-sandbox --port 0`` and reads its READY line."""
    binary = _binary("SANDBOX_BIN", "lorebase-sandbox")
    process = subprocess.Popen(
        [str(binary), "--port", "0", "--auth", auth],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith(READY):
        process.kill()
        pytest.fail(f"the sandbox did not start: {line!r}")
    ready = json.loads(line[len(READY) :])
    return Sandbox(url=ready["url"], auth=ready["auth"], keys=ready.get("keys") or [], process=process)


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    """A sandbox Keeper with API keys (auth mode ``api_key``)."""
    running = start_sandbox("api_key")
    yield running
    running.process.terminate()
    running.process.wait(timeout=10)


@pytest.fixture(autouse=True)
def _no_stray_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests set their settings explicitly: none leak in from the caller's environment."""
    for name in list(os.environ):
        if name.startswith("LOREBASE_") or name.startswith("LOREBASE__"):
            monkeypatch.delenv(name)


@pytest.fixture()
def reader_key(sandbox: Sandbox) -> str:
    """The key of ``agt_reader`` (role agent-reader, no Operations)."""
    return sandbox.key("agt_reader")


@pytest.fixture()
def writer_key(sandbox: Sandbox) -> str:
    """The key of ``agt_risk_bot`` (reader and writer of a few Operations)."""
    return sandbox.key("agt_risk_bot")


@pytest.fixture()
def herald(sandbox: Sandbox, reader_key: str):  # type: ignore[no-untyped-def]
    """A :class:`lorebase_herald.Herald` on the sandbox's ``supply`` Domain, as agt_reader."""
    from lorebase_herald import Herald

    return Herald(url=sandbox.url, api_key=reader_key, domain="supply", keeper={"max_retries": 0})


@pytest.fixture()
def keyless_herald(sandbox: Sandbox):  # type: ignore[no-untyped-def]
    """A Herald on the sandbox's ``supply`` Domain with no key of its own (each call brings one)."""
    from lorebase_herald import Herald

    return Herald(url=sandbox.url, domain="supply", keeper={"max_retries": 0})


@pytest.fixture(scope="session")
def wheel() -> Path:
    """The built wheel (``HERALD_WHEEL`` or the one wheel in ``dist/``)."""
    named = os.environ.get("HERALD_WHEEL")
    if named:
        return Path(named)
    found = sorted((REPO / "dist").glob("lorebase_herald-*.whl"))
    if len(found) != 1:
        pytest.fail(f"expected one wheel in {REPO / 'dist'}, found {[p.name for p in found]}; set HERALD_WHEEL")
    return found[0]


@pytest.fixture(scope="session")
def herald_bin() -> Path:
    """The native ``lorebase-herald`` binary (``HERALD_BIN``)."""
    return _binary("HERALD_BIN", "lorebase-herald")


@pytest.fixture(scope="session")
def console_script() -> Path:
    """The ``lorebase-herald`` console script of the installed wheel."""
    script = Path(sys.executable).parent / ("lorebase-herald.exe" if os.name == "nt" else "lorebase-herald")
    if not script.is_file():
        pytest.fail(f"{script} is missing: install the wheel into this environment")
    return script


def clean_env(**extra: str) -> Dict[str, str]:
    """The environment for child processes, without LOREBASE settings of the caller."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOREBASE")}
    env.update(extra)
    return env


REMOTE_SERVER = REPO / "tests" / "e2e-python" / "remote_mcp_server.py"


@contextlib.contextmanager
def remote_mcp_server() -> Iterator[str]:
    """A remote MCP server written with the official SDK (``add``, ``shout``, ...)
    on a loopback port; yields its URL."""
    proc = subprocess.Popen(
        [sys.executable, str(REMOTE_SERVER), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("REMOTE_MCP_READY "):
                yield json.loads(line.split(" ", 1)[1])["url"]
                break
        else:
            pytest.fail("the remote MCP server did not start")
    finally:
        proc.kill()
        proc.wait()

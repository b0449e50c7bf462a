"""deploy/compose/docker-compose.yaml brought up as documented (profile
`mcp`, the variables of .env.example), then a real MCP client calls a tool
through the published port. Compose 1.29 (Debian) has no `up --wait`: this
waits on Herald's health check itself."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import uuid

import httpx2
import pytest

from conftest import HERALD_IMAGE, PREFIX, ROOT, SANDBOX_IMAGE, docker, e2e, wait_healthy

pytestmark = pytest.mark.anyio

COMPOSE = ROOT / "deploy" / "compose" / "docker-compose.yaml"
ENV_FILE = ROOT / "deploy" / "compose" / ".env.example"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def stack():
    project = f"{PREFIX}-{uuid.uuid4().hex[:6]}".replace("-", "")
    port = free_port()
    env = e2e.clean_env({
        "HERALD_IMAGE": HERALD_IMAGE,
        "KEEPER_IMAGE": SANDBOX_IMAGE,
        "HERALD_HOST_PORT": str(port),
        # The sandbox Keeper runs in auth mode none (the laptop case).
        "HERALD_ALLOW_ANONYMOUS": "true",
    })
    base = ["docker-compose", "-p", project, "--env-file", str(ENV_FILE), "-f", str(COMPOSE), "--profile", "mcp"]

    def compose(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*base, *args], env=env, capture_output=True, text=True, timeout=180)

    up = compose("up", "-d")
    try:
        assert up.returncode == 0, up.stderr
        herald = compose("ps", "-q", "herald").stdout.strip()
        assert herald, compose("ps").stdout
        started = time.monotonic()
        wait_healthy(herald)
        yield {"port": port, "herald": herald, "healthy_after_s": time.monotonic() - started}
    finally:
        down = compose("down", "--remove-orphans", "--timeout", "10")
        assert down.returncode == 0, down.stderr


async def test_an_mcp_client_calls_a_tool_through_the_published_port(stack):
    url = f"http://127.0.0.1:{stack['port']}/mcp"
    async with e2e.http_session(url) as session:
        got = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
        assert not got.is_error, e2e.text_of(got)
        assert "Kavsen Alloys" in e2e.text_of(got)
        # HERALD_DOMAIN (supply) is the default Domain: the call named none.
        schema = await session.call_tool("lorebase_schema", {})
        assert not schema.is_error and "supply" in e2e.text_of(schema)


def test_the_host_herald_is_accepted_on_any_port_and_others_are_not(stack):
    url = f"http://127.0.0.1:{stack['port']}/mcp"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    with httpx2.Client(timeout=10) as client:
        for host, status in [("herald:8090", 200), ("herald", 200), (f"herald:{stack['port']}", 200),
                             ("127.0.0.1:8091", 200), ("evil.example:8090", 403)]:
            r = client.post(url, json=body, headers={**headers, "Host": host})
            assert r.status_code == status, (host, r.status_code, r.text[:200])

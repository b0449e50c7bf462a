"""The image: FROM scratch, non-root, a health check without a shell, stdio
as an MCP host runs it (`docker run -i --rm -e ... IMAGE`), Streamable HTTP
on 8090, and Keeper over https with no CA bundle in the image."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import tarfile

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from conftest import HERALD_IMAGE, docker, e2e, unique, wait_healthy
from tls_proxy import TLS, TlsProxy

pytestmark = pytest.mark.anyio

# The debug binary, stripped (the tests' image); a release build is smaller
# (docs/benchmarks.md, "Container image", says what its size is made of:
# the o200k_base ranks behind `lorebase-herald tools --tokens`, the Unicode
# tables of remote::clean and the MCP Apps views, 1.7 MB of HTML, among
# them). The bound leaves a little room.
MAX_TEST_IMAGE_BYTES = 70_000_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_image_is_small_non_root_and_checks_itself_without_a_shell():
    info = json.loads(docker("image", "inspect", HERALD_IMAGE).stdout)[0]
    config = info["Config"]
    assert config["User"] == "65532:65532"
    assert "8090/tcp" in config["ExposedPorts"]
    assert config["Entrypoint"] == ["/usr/local/bin/lorebase-herald"]
    assert config["Healthcheck"]["Test"] == ["CMD", "/usr/local/bin/lorebase-herald", "health"]
    assert info["Size"] <= MAX_TEST_IMAGE_BYTES, info["Size"]
    # No shell, no CA bundle: only the binary and the libraries it links.
    name = unique("files")
    docker("create", "--name", name, HERALD_IMAGE)
    try:
        export = subprocess.run(["docker", "export", name], capture_output=True, check=True, timeout=120)
    finally:
        docker("rm", name, check=False)
    members = tarfile.open(fileobj=io.BytesIO(export.stdout)).getmembers()
    files = {m.name for m in members if m.isfile()}
    assert "usr/local/bin/lorebase-herald" in files
    assert not any(f.startswith(("bin/", "etc/ssl", "usr/bin/")) for f in files), sorted(files)


async def test_stdio_from_the_image_is_an_mcp_host_configuration(keeper, network):
    # What a host's configuration says: command docker, these args, this env.
    params = StdioServerParameters(
        command="docker",
        args=["run", "-i", "--rm", "--network", network,
              "-e", "LOREBASE_URL", "-e", "LOREBASE_API_KEY", "-e", "LOREBASE_DOMAIN", HERALD_IMAGE],
        env=e2e.clean_env({
            "LOREBASE_URL": keeper.url,
            "LOREBASE_API_KEY": keeper.keys["agt_reader"],
            "LOREBASE_DOMAIN": "supply",
        }),
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "lorebase-herald"
            tools = await session.list_tools()
            assert len(tools.tools) == 14
            got = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
            assert not got.is_error, e2e.text_of(got)
            assert "Kavsen Alloys" in e2e.text_of(got)
            # The key is the reader's: a write is refused by Keeper, as a tool error.
            denied = await session.call_tool(
                "lorebase_execute",
                {"operation": "flag_supplier_risk", "parameters": {"supplier_code": "S-1001", "reason": "x"}, "dry_run": False},
            )
            assert denied.is_error
            assert e2e.text_of(denied).startswith("[")


async def test_streamable_http_from_the_image_forwards_each_caller_s_key(keeper, network):
    port = free_port()
    name = unique("herald-http")
    # The image's own check, run every second instead of every 10 s.
    docker("run", "-d", "--name", name, "--network", network, "-p", f"127.0.0.1:{port}:8090", "--health-interval", "1s",
           "-e", "LOREBASE__HERALD__TRANSPORT=streamable_http", "-e", f"LOREBASE_URL={keeper.url}",
           "-e", "LOREBASE_DOMAIN=supply", HERALD_IMAGE)
    try:
        wait_healthy(name)
        url = f"http://127.0.0.1:{port}/mcp"
        headers = {"Authorization": f"Bearer {keeper.keys['agt_reader']}"}
        async with e2e.http_session(url, headers=headers) as session:
            got = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
            assert not got.is_error, e2e.text_of(got)
        async with e2e.http_session(url) as session:
            anonymous = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
            assert anonymous.is_error
            assert e2e.text_of(anonymous).startswith("[unauthorized]")
        # SIGTERM ends it cleanly (Herald is PID 1 and handles it).
        stopped = docker("stop", "-t", "10", name)
        assert stopped.returncode == 0
        assert docker("inspect", "-f", "{{.State.ExitCode}}", name).stdout.strip() == "0"
    finally:
        docker("rm", "-f", name, check=False)


def test_https_keeper_from_the_image_with_a_private_ca(sandbox):
    """No CA bundle in the image: the private CA file is enough."""
    proxy = TlsProxy(int(sandbox.url.rsplit(":", 1)[1]))
    try:
        base = ["run", "--rm", "--network", "host",
                "-v", f"{TLS / 'ca.pem'}:/etc/lorebase/keeper-ca.pem:ro",
                "-e", f"LOREBASE_URL=https://localhost:{proxy.port}", "-e", "LOREBASE_DOMAIN=supply"]
        call = [HERALD_IMAGE, "call", "lorebase_schema", '{"domain":"supply"}']
        ok = docker(*base, "-e", "LOREBASE__HERALD__KEEPER__CA_FILE=/etc/lorebase/keeper-ca.pem", *call, check=False)
        assert ok.returncode == 0, ok.stdout + ok.stderr
        assert "4 Kinds" in ok.stdout
        # Without it, the bundled Mozilla roots do not trust the test CA.
        refused = docker(*base, *call, check=False)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert refused.stdout.startswith("[keeper-unavailable] ")
    finally:
        proxy.close()

"""Keeper's TLS roots: a plain-HTTP Keeper needs none, an https:// Keeper is
checked against the system's roots, or the bundled Mozilla roots when the
system has none (a `FROM scratch` image), plus `keeper.ca_file`.

"No system roots" is made with SSL_CERT_FILE=/dev/null SSL_CERT_DIR=<missing>:
rustls then loads nothing from the system, as in an image without
/etc/ssl/certs. The https Keeper is the sandbox behind a TLS proxy (stdlib
asyncio + ssl) whose certificate is signed by a test-only CA (tls/, see
tls/README.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import clean_env

TLS = Path(__file__).resolve().parent / "tls"
NO_SYSTEM_ROOTS = {"SSL_CERT_FILE": "/dev/null", "SSL_CERT_DIR": "/nonexistent-herald-test"}
SCHEMA = ["call", "lorebase_schema", json.dumps({"domain": "supply"})]


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


class TlsProxy:
    """TLS on a loopback port, forwarded to a plain-HTTP upstream port."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ctx.load_cert_chain(TLS / "keeper.pem", TLS / "keeper.key")
        self.loop = asyncio.new_event_loop()
        # Handshakes the client refuses are expected here: keep them quiet.
        self.loop.set_exception_handler(lambda _loop, _ctx: None)
        self.port = 0
        started = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(started,), daemon=True)
        self.thread.start()
        assert started.wait(10), "the TLS proxy did not start"

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(
            asyncio.start_server(self._handle, "127.0.0.1", 0, ssl=self.ctx)
        )
        self.port = server.sockets[0].getsockname()[1]
        started.set()
        self.loop.run_forever()
        server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def tls_keeper(sandbox) -> Iterator[TlsProxy]:
    proxy = TlsProxy(int(sandbox.url.rsplit(":", 1)[1]))
    yield proxy
    proxy.close()


def herald(binaries, args, keeper_url: str, env: dict[str, str] | None = None):
    return subprocess.run(
        [binaries["herald"], *args],
        capture_output=True,
        env=clean_env({"LOREBASE_URL": keeper_url, **(env or {})}),
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


def test_plain_http_keeper_needs_no_roots(binaries, sandbox):
    out = herald(binaries, SCHEMA, sandbox.url, NO_SYSTEM_ROOTS)
    assert out.returncode == 0, out.stdout.decode() + out.stderr.decode()
    assert "4 Kinds" in out.stdout.decode()


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_https_keeper_signed_by_a_private_ca_without_system_roots(binaries, tls_keeper, host):
    env = {**NO_SYSTEM_ROOTS, "LOREBASE__HERALD__KEEPER__CA_FILE": str(TLS / "ca.pem")}
    out = herald(binaries, SCHEMA, f"https://{host}:{tls_keeper.port}", env)
    assert out.returncode == 0, out.stdout.decode() + out.stderr.decode()
    assert "4 Kinds" in out.stdout.decode()


def test_https_keeper_with_system_roots_and_the_private_ca(binaries, tls_keeper):
    env = {"LOREBASE__HERALD__KEEPER__CA_FILE": str(TLS / "ca.pem")}
    out = herald(binaries, SCHEMA, f"https://localhost:{tls_keeper.port}", env)
    assert out.returncode == 0, out.stdout.decode() + out.stderr.decode()


@pytest.mark.parametrize("env", [{}, NO_SYSTEM_ROOTS], ids=["system-roots", "bundled-roots"])
def test_an_untrusted_certificate_is_a_tool_error(binaries, tls_keeper, env):
    out = herald(binaries, SCHEMA, f"https://localhost:{tls_keeper.port}", env)
    text = out.stdout.decode()
    assert out.returncode == 1, text + out.stderr.decode()
    assert text.startswith("[keeper-unavailable] "), text
    assert "builder error" not in text
    assert "\nnext: " in text


def test_a_ca_file_that_is_not_there_stops_herald_at_startup(binaries, sandbox, tmp_path):
    env = {"LOREBASE__HERALD__KEEPER__CA_FILE": str(tmp_path / "missing.pem")}
    out = herald(binaries, SCHEMA, sandbox.url, env)
    err = out.stderr.decode()
    assert out.returncode != 0
    assert "herald.keeper.ca_file: cannot read" in err, err
    assert out.stdout == b""

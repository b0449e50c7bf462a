"""Keeper's TLS roots: a plain-HTTP Keeper needs none, an https:// Keeper is
checked against the system's roots, or the bundled Mozilla roots when the
system has none (a `FROM scratch` image), plus `keeper.ca_file`.

"No system roots" is made with SSL_CERT_FILE=/dev/null SSL_CERT_DIR=<missing>:
rustls then loads nothing from the system, as in an image without
/etc/ssl/certs. The https Keeper is the sandbox behind a TLS proxy (stdlib
asyncio + ssl, tls_proxy.py) whose certificate is signed by a test-only CA
(tls/, see tls/README.md).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from conftest import clean_env
from tls_proxy import TLS, TlsProxy

NO_SYSTEM_ROOTS = {"SSL_CERT_FILE": "/dev/null", "SSL_CERT_DIR": "/nonexistent-herald-test"}
SCHEMA = ["call", "lorebase_schema", json.dumps({"domain": "supply"})]


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

"""`lorebase-herald health [URL]`: the container health check (exit 0 when
the endpoint answers 2xx, 1 otherwise; healthy at once with stdio)."""

from __future__ import annotations

import socket
import subprocess

from conftest import clean_env


def health(binaries, args, env=None):
    return subprocess.run(
        [binaries["herald"], "health", *args],
        capture_output=True,
        env=clean_env(env),
        stdin=subprocess.DEVNULL,
        timeout=30,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_running_herald_is_healthy(binaries, sandbox, http_herald_factory):
    h = http_herald_factory(sandbox.url)
    port = h.base.rsplit(":", 1)[1]
    out = health(binaries, [f"{h.base}/healthz"])
    assert out.returncode == 0, out.stderr.decode()
    assert out.stdout.decode().startswith(f"healthy: {h.base}/healthz answered 200")
    # Without a URL: this Herald's own listener, from the settings (as in a container).
    env = {"LOREBASE__HERALD__TRANSPORT": "streamable_http", "LOREBASE__HERALD__HTTP__PORT": port}
    out = health(binaries, [], env)
    assert out.returncode == 0, out.stderr.decode()
    # Flags count too.
    out = health(binaries, ["--transport", "streamable_http", "--port", port])
    assert out.returncode == 0, out.stderr.decode()


def test_nothing_listening_or_a_non_2xx_answer_is_unhealthy(binaries, sandbox):
    out = health(binaries, [f"http://127.0.0.1:{free_port()}/healthz"])
    assert out.returncode == 1
    assert "unhealthy:" in out.stderr.decode() and "Connection refused" in out.stderr.decode()
    out = health(binaries, [f"{sandbox.url}/no-such-page"])
    assert out.returncode == 1
    assert "answered 404" in out.stderr.decode()
    env = {"LOREBASE__HERALD__TRANSPORT": "streamable_http", "LOREBASE__HERALD__HTTP__PORT": str(free_port())}
    assert health(binaries, [], env).returncode == 1


def test_stdio_is_healthy_at_once_and_bad_input_is_a_usage_error(binaries):
    out = health(binaries, [])
    assert out.returncode == 0
    assert "stdio" in out.stdout.decode()
    out = health(binaries, ["ftp://example/healthz"])
    assert out.returncode == 2
    assert "not an http:// or https:// URL" in out.stderr.decode()

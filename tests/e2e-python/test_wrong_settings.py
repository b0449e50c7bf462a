"""Wrong settings never get a server that says it is ready and then dies:
every setting is checked and every listener bound before the
LOREBASE_HERALD_READY line; a bad settings file, or a file a setting names, is refused
at once with exit 2 and one line naming the key, however it is made (a FIFO,
/dev/zero, nesting 100,000 deep, a key given twice). Real processes, real pipes and
sockets, the sandbox Keeper on loopback.
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import time
from pathlib import Path

import pytest

from conftest import clean_env

# No start-up may take this long (nesting 100,000 deep took 51 s in a release build).
STARTUP_BOUND_S = 20
# What a refused start may use at most: /dev/zero read whole used all memory.
ADDRESS_SPACE_BYTES = 1 << 30


def limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_BYTES, ADDRESS_SPACE_BYTES))


def start(binaries, sandbox, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """Herald over Streamable HTTP on a free port; it must end by itself."""
    return subprocess.run(
        [binaries["herald"], "--transport", "streamable_http", "--port", "0", *args],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=STARTUP_BOUND_S,
        env=clean_env({"LOREBASE_URL": sandbox.url, "LOREBASE_DOMAIN": "supply", **env}),
        preexec_fn=limited,
    )


def assert_refused(out: subprocess.CompletedProcess, code: int, *words: str) -> None:
    """Exit `code`, never READY nor "serving MCP", and the failure on one stderr line with `words`."""
    assert out.returncode == code, (out.returncode, out.stdout, out.stderr[-2000:])
    assert "LOREBASE_HERALD_READY" not in out.stdout, out.stdout
    assert "serving MCP" not in out.stderr, out.stderr
    lines = [line for line in out.stderr.splitlines() if all(w in line for w in words)]
    assert len(lines) == 1, (words, out.stderr[-2000:])


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"LOREBASE__HERALD__HTTP__ALLOWED_HOSTS": '["a/b"]'}, ["http.allowed_hosts", "a/b"]),
        ({"LOREBASE__HERALD__HTTP__ALLOWED_ORIGINS": '["app.example.com"]'}, ["http.allowed_origins"]),
        ({"LOREBASE__HERALD__HTTP__PATH": "/healthz"}, ["http.path", "reserved"]),
        ({"LOREBASE__HERALD__HTTP__PATH": "/metrics"}, ["http.path", "reserved"]),
        ({"LOREBASE__HERALD__HTTP__PATH": "/.well-known/oauth-protected-resource"}, ["http.path", "reserved"]),
    ],
)
def test_a_setting_the_listener_refuses_is_never_ready(binaries, sandbox, env, words):
    assert_refused(start(binaries, sandbox, [], env), 2, *words)


def test_a_metrics_port_in_use_is_never_ready(binaries, sandbox):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        out = start(binaries, sandbox, [], {"LOREBASE__HERALD__METRICS__PORT": str(port)})
    finally:
        taken.close()
    assert_refused(out, 1, "cannot listen", str(port))


def config(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "lorebase.yaml"
    path.write_text(text)
    return {"LOREBASE_CONFIG": str(path)}


def test_a_fifo_or_a_device_as_the_settings_file_is_refused_at_once(binaries, sandbox, tmp_path):
    fifo = tmp_path / "settings.fifo"
    os.mkfifo(fifo)
    out = start(binaries, sandbox, [], {"LOREBASE_CONFIG": str(fifo)})
    assert_refused(out, 2, "LOREBASE_CONFIG", "a FIFO, not a regular file")
    out = start(binaries, sandbox, [], {"LOREBASE_CONFIG": "/dev/zero"})
    assert_refused(out, 2, "LOREBASE_CONFIG", "a character device, not a regular file")


def test_deep_nesting_in_the_settings_file_is_refused_in_linear_time(binaries, sandbox, tmp_path):
    started = time.monotonic()
    out = start(binaries, sandbox, [], config(tmp_path, "herald:\n  domain: " + "[" * 100_000 + "\n"))
    assert_refused(out, 2, "LOREBASE_CONFIG", "nests collections more than 32 deep (line 2)")
    print(f"refused in {time.monotonic() - started:.2f} s")


def test_a_key_given_twice_is_refused(binaries, sandbox, tmp_path):
    text = "herald:\n  http:\n    port: 8090\n    host: 127.0.0.1\n    port: 9000\n"
    out = start(binaries, sandbox, [], config(tmp_path, text))
    assert_refused(out, 2, "LOREBASE_CONFIG", 'the key "port" is given twice')


@pytest.mark.parametrize(
    ("setting", "value", "words"),
    [
        ("KEEPER__CA_FILE", "/dev/zero", ["herald.keeper.ca_file", "a character device, not a regular file"]),
        ("KEEPER__CA_FILE", "{tmp}/fifo", ["herald.keeper.ca_file", "a FIFO, not a regular file"]),
        ("KEEPER__CA_FILE", "{tmp}/not.pem", ["herald.keeper.ca_file", "PEM"]),
        ("KB__DIR", "{tmp}/no-such-kb", ["herald.kb.dir", "no-such-kb"]),
        ("LOG__AUDIT_FILE", "{tmp}/no-such-folder/audit.jsonl", ["log.audit_file", "no-such-folder"]),
    ],
)
def test_a_file_a_setting_names_is_checked_before_anything_is_served(binaries, sandbox, tmp_path, setting, value, words):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "not.pem").write_text("not a certificate\n")
    out = start(binaries, sandbox, [], {f"LOREBASE__HERALD__{setting}": value.format(tmp=tmp_path)})
    assert_refused(out, 2, *words)

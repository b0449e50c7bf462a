"""Herald as an OAuth resource server (MCP authorization 2025-06-18 on): a real authorization server on loopback (oauth_server.py) mints RS256
JWTs, serves its JWKS, does PKCE, registration, token exchange and
introspection; the sandbox Keeper runs in auth mode jwt, so it accepts only
tokens whose audience is Keeper's URL and a test fails if Herald passes the
client's token through."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from urllib.parse import parse_qs, urlsplit

import httpx2
import jwt
import pytest
from conftest import LineReader, Sandbox, StderrCollector, clean_env, stop, text_of
from oauth_client import OAuthSignIn
from oauth_server import HERALD_CLIENT, AuthorizationServer, new_key

LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
CALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001"}},
}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


class Herald:
    """A Herald process over Streamable HTTP on a port chosen beforehand
    (its resource URL names it)."""

    def __init__(self, binaries, keeper_url: str, env: dict[str, str], port: int) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.base = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen(
            [binaries["herald"], "--transport", "streamable_http", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=clean_env({"LOREBASE_URL": keeper_url, "LOREBASE_DOMAIN": "supply", **env}),
        )
        self.stderr = StderrCollector(self.proc.stderr)
        try:
            LineReader(self.proc.stdout).wait_for("LOREBASE_HERALD_READY")
        except Exception:
            stop(self.proc)
            raise RuntimeError(f"herald did not start:\n{self.stderr.text()}") from None

    def post(self, body: dict, token: str | None = None, **headers) -> httpx2.Response:
        auth = {"authorization": f"Bearer {token}"} if token else {}
        return httpx2.post(self.url, json=body, headers={**MCP_HEADERS, **auth, **headers}, timeout=20)


@pytest.fixture(scope="module")
def authorization_server():
    server = AuthorizationServer()
    yield server
    server.close()


@pytest.fixture(scope="module")
def jwt_keeper(binaries, authorization_server):
    proc = subprocess.Popen(
        [binaries["sandbox"], "--port", "0", "--auth", "jwt", "--oauth-issuer", authorization_server.url,
         "--oauth-jwks", str(authorization_server.jwks_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=clean_env(),
    )
    ready = json.loads(LineReader(proc.stdout).wait_for("LOREBASE_SANDBOX_READY"))
    assert ready["auth"] == "jwt"
    yield Sandbox(url=ready["url"], auth="jwt", keys={}, proc=proc)
    stop(proc)


@pytest.fixture
def herald_factory(binaries, authorization_server, jwt_keeper):
    """Starts Heralds that are resource servers of `authorization_server`,
    before the jwt Keeper: keyword arguments are `http.*` settings
    (`resource_url` defaults to the Herald's own URL), `env` any other
    variables; stops them after the test."""
    started: list[Herald] = []

    def factory(env: dict[str, str] | None = None, **http: str) -> Herald:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        full = {
            "LOREBASE__HERALD__HTTP__AUTHORIZATION_SERVERS": authorization_server.url,
            "LOREBASE__HERALD__HTTP__OAUTH_CLIENT_ID": HERALD_CLIENT[0],
            "LOREBASE__HERALD__HTTP__OAUTH_CLIENT_SECRET": "secret://env/HERALD_AS_SECRET",
            "HERALD_AS_SECRET": HERALD_CLIENT[1],
            "LOREBASE__HERALD__HTTP__RESOURCE_URL": f"http://127.0.0.1:{port}/mcp",
            **{f"LOREBASE__HERALD__HTTP__{k.upper()}": v for k, v in http.items()},
            **(env or {}),
        }
        herald = Herald(binaries, jwt_keeper.url, full, port)
        started.append(herald)
        return herald

    yield factory
    for h in started:
        stop(h.proc)


def challenge_of(answer: httpx2.Response) -> str:
    return answer.headers.get("www-authenticate", "")


@pytest.mark.anyio
async def test_the_sdk_client_authorizes_with_pkce_and_keeper_sees_an_exchanged_token(
    authorization_server, jwt_keeper, herald_factory
):
    herald = herald_factory()
    sign_in = OAuthSignIn(herald.url, client_name="herald-test")
    async with sign_in.session() as session:
        result = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
        assert not result.is_error, text_of(result)
        assert "Supplier/S-1001" in text_of(result)
    client_token = sign_in.provider.context.current_tokens.access_token
    assert jwt.decode(client_token, options={"verify_signature": False})["aud"] == herald.url
    prm = sign_in.provider.context.protected_resource_metadata
    assert prm is not None and str(prm.resource) == herald.url
    (authorize,) = sign_in.redirects
    assert parse_qs(urlsplit(authorize).query)["resource"] == [herald.url]
    # Keeper accepted the call, and Keeper accepts only tokens for its own
    # audience: Herald exchanged the client's token, once (then cached).
    exchanges = [e for e in authorization_server.exchanges if e["subject_token"] == client_token]
    assert len(exchanges) == 1, exchanges
    assert exchanges[0]["audience"] == jwt_keeper.url
    logs = herald.stderr.text()
    assert client_token not in logs and HERALD_CLIENT[1] not in logs


def test_refused_tokens_get_401_invalid_token(authorization_server, herald_factory):
    herald = herald_factory()
    metadata = f"{herald.base}/.well-known/oauth-protected-resource/mcp"
    good = authorization_server.mint(herald.url)
    assert herald.post(CALL, good).status_code == 200
    cases = {
        "another audience": authorization_server.mint("http://127.0.0.1:1/other-mcp"),
        "expired": authorization_server.mint(herald.url, lifetime=-120),
        "not yet valid": authorization_server.mint(herald.url, nbf=int(time.time()) + 600),
        "a forged key id": authorization_server.mint(herald.url, kid="key-forged", key=new_key()),
        "a known kid, another key": authorization_server.mint(herald.url, key=new_key()),
        "HS256 with the public JWK": jwt.encode(
            {"iss": authorization_server.url, "aud": herald.url, "exp": int(time.time()) + 600},
            "a-shared-secret-of-thirty-two-bytes!",
            algorithm="HS256",
            headers={"kid": "key-1"},
        ),
        "another issuer": jwt.encode(
            {"iss": "http://127.0.0.1:1", "aud": herald.url, "exp": int(time.time()) + 600},
            new_key(),
            algorithm="RS256",
            headers={"kid": "key-1"},
        ),
        "opaque, without introspection": "opq_not-a-jwt",
    }
    for case, token in cases.items():
        answer = herald.post(CALL, token)
        assert answer.status_code == 401, (case, answer.status_code, answer.text)
        challenge = challenge_of(answer)
        assert challenge.startswith('Bearer error="invalid_token", error_description="'), (case, challenge)
        assert challenge.endswith(f'resource_metadata="{metadata}"'), (case, challenge)
        assert answer.json()["error"]["code"] == -32001
    assert "expired" in challenge_of(herald.post(CALL, cases["expired"]))
    assert "audience" in challenge_of(herald.post(CALL, cases["another audience"]))
    # No token: the discovery challenge, without an error code (RFC 6750, 3.1).
    assert challenge_of(herald.post(LIST)) == f'Bearer resource_metadata="{metadata}"'


def test_a_rotated_key_is_fetched_and_forged_kids_do_not_hammer_the_jwks(authorization_server, herald_factory):
    herald = herald_factory()
    assert herald.post(LIST, authorization_server.mint(herald.url)).status_code == 200
    before = len(authorization_server.times("GET /jwks"))
    for _ in range(20):
        forged = authorization_server.mint(herald.url, kid="key-forged", key=new_key(), jti=os.urandom(4).hex())
        assert herald.post(LIST, forged).status_code == 401
    # However long the forged calls took (a busy machine): at most one
    # fetch per floor window (5 s), counted from this Herald's first fetch.
    fetches = authorization_server.times("GET /jwks")
    gaps = [b - a for a, b in zip(fetches, fetches[1:], strict=False)]
    assert all(gap >= 4.5 for gap in gaps[before - 1:]), gaps
    time.sleep(5.2)  # past the floor (REFETCH_FLOOR, 5 s) since the last fetch
    kid = authorization_server.rotate()
    rotated = authorization_server.mint(herald.url)
    assert jwt.get_unverified_header(rotated)["kid"] == kid
    answer = herald.post(CALL, rotated)
    assert answer.status_code == 200, answer.text
    assert not answer.json()["result"].get("isError"), answer.text


def test_a_missing_scope_gets_403_insufficient_scope(authorization_server, herald_factory):
    herald = herald_factory(required_scopes="lorebase:read,lorebase:write")
    without = herald.post(LIST, authorization_server.mint(herald.url, scope="lorebase:read"))
    assert without.status_code == 403
    assert challenge_of(without).startswith('Bearer error="insufficient_scope", scope="lorebase:read lorebase:write"')
    document = httpx2.get(f"{herald.base}/.well-known/oauth-protected-resource/mcp", timeout=10).json()
    assert document["scopes_supported"] == ["lorebase:read", "lorebase:write"]
    with_both = herald.post(LIST, authorization_server.mint(herald.url, scope="lorebase:write lorebase:read"))
    assert with_both.status_code == 200


def test_keepers_401_reaches_the_client_as_http_401(authorization_server, herald_factory):
    # forward: the operator says Keeper takes Herald's tokens, but this Keeper
    # accepts only its own audience: it refuses, and the client learns it.
    herald = herald_factory(keeper_token="forward")
    token = authorization_server.mint(herald.url)
    assert herald.post(LIST, token).status_code == 200
    refused = herald.post(CALL, token)
    assert refused.status_code == 401, refused.text
    assert challenge_of(refused).startswith('Bearer error="invalid_token"')
    assert "Keeper refused" in challenge_of(refused)
    read = {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "lorebase://supply/schema"}}
    refused_read = herald.post(read, token)
    assert refused_read.status_code == 401, refused_read.text
    assert challenge_of(refused_read).startswith('Bearer error="invalid_token"')


def test_the_metadata_names_the_configured_resource_under_the_host_rules(herald_factory):
    herald = herald_factory(resource_url="https://herald.example.com/mcp")
    url = f"{herald.base}/.well-known/oauth-protected-resource/mcp"
    for host in (f"127.0.0.1:{herald.port}", f"localhost:{herald.port}"):
        document = httpx2.get(url, headers={"host": host}, timeout=10).json()
        assert document["resource"] == "https://herald.example.com/mcp"
    assert httpx2.get(url, headers={"host": "evil.example.com"}, timeout=10).status_code == 403
    for other in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/other"):
        assert httpx2.get(herald.base + other, timeout=10).status_code == 404, other
    challenge = challenge_of(herald.post(LIST))
    assert challenge == 'Bearer resource_metadata="https://herald.example.com/.well-known/oauth-protected-resource/mcp"'
    # A foreign Host is refused before the token is even looked at.
    assert herald.post(LIST, host="evil.example.com").status_code == 403


def test_opaque_tokens_are_introspected(authorization_server, herald_factory):
    herald = herald_factory(introspection_endpoint=authorization_server.url + "/introspect")
    token = authorization_server.opaque(herald.url)
    answer = herald.post(CALL, token)
    assert answer.status_code == 200, answer.text
    assert not answer.json()["result"].get("isError"), answer.text
    assert herald.post(CALL, authorization_server.opaque(herald.url, active=False)).status_code == 401
    assert herald.post(CALL, authorization_server.opaque("http://127.0.0.1:1/other")).status_code == 401


def test_a_request_without_a_token_is_answered_before_its_body(herald_factory):
    herald = herald_factory()
    with socket.create_connection(("127.0.0.1", herald.port), timeout=5) as s:
        s.sendall(
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{herald.port}\r\ncontent-type: application/json\r\n"
            f"accept: application/json, text/event-stream\r\ncontent-length: 1048576\r\n\r\n".encode()
        )
        s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"x":[')
        head = s.recv(4096).decode(errors="replace")
    assert head.startswith("HTTP/1.1 401"), head
    assert "resource_metadata=" in head


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({}, ["resource_url"]),
        (
            {"LOREBASE__HERALD__HTTP__RESOURCE_URL": "http://127.0.0.1:8090/mcp"},
            ["oauth_client_id", "forward"],
        ),
    ],
)
def test_oauth_settings_that_cannot_work_stop_herald_at_start(binaries, settings, words):
    done = subprocess.run(
        [binaries["herald"], "--transport", "streamable_http", "--port", "0"],
        env=clean_env({"LOREBASE__HERALD__HTTP__AUTHORIZATION_SERVERS": "https://auth.example.com", **settings}),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2, done.stderr
    for word in words:
        assert word in done.stderr


def test_64_unauthenticated_1_mib_bodies_cost_no_memory(binaries):
    """benches/unauthenticated_bodies.py, bounded: 64 connections each sending a
    1 MiB tools/call without a token are all answered 401, and Herald's peak
    RSS grows by at most 64 MB (the guard used to parse each body first:
    +240 MB; docs/benchmarks.md)."""
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parents[2] / "benches" / "unauthenticated_bodies.py"
    done = subprocess.run(
        [sys.executable, str(bench), "--connections", "64", "--max-growth-mb", "64", "--assert"],
        env={**os.environ, "HERALD_BIN": binaries["herald"]},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["answered_401"] == 64


def test_an_unreachable_authorization_server_is_503_not_a_refused_token(authorization_server, herald_factory):
    herald = herald_factory(authorization_servers="http://127.0.0.1:9")
    token = authorization_server.mint(herald.url, iss="http://127.0.0.1:9")
    for _ in range(2):  # the failed fetch, then within the refetch floor
        answer = herald.post(LIST, token)
        assert answer.status_code == 503, answer.text
        assert answer.headers["retry-after"] == "5"
        assert "www-authenticate" not in answer.headers

"""Where one user of a shared OAuth Herald meets another, or Herald's own
credentials: remote tools and whose credential they carry, a slow
JWKS, introspection floods, lifetimes the authorization server chooses,
token sizes, /metrics and /readyz. A real authorization server on loopback
(oauth_server.py), the sandbox Keeper in auth mode jwt, remote MCP servers
written with the Python SDK (remote_mcp_server.py), and the SDK's clients.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import socket
import subprocess
import sys
import threading
import time
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import pytest
from conftest import LineReader, clean_env, stop, text_of
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from oauth_client import OAuthSignIn
from oauth_server import new_key
# The authorization server and the Keeper in auth mode jwt (one of each per
# module), and the Heralds before them, are the resource-server suite's fixtures.
from test_oauth_resource_server import (  # noqa: F401 (fixtures)
    CALL,
    LIST,
    authorization_server,
    herald_factory,
    jwt_keeper,
)

HERE = Path(__file__).resolve().parent
HERALD_REMOTE_TOKEN = "heralds-own-remote-token-8c1f"
METRICS_TOKEN = "scrape-token-51d0e7"
METRICS_BEARER = {"LOREBASE__HERALD__METRICS__BEARER_TOKEN": "secret://env/HERALD_METRICS_TOKEN",
                  "HERALD_METRICS_TOKEN": METRICS_TOKEN}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_remote(*args: str, env: dict[str, str] | None = None) -> tuple[str, subprocess.Popen]:
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "remote_mcp_server.py"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=clean_env(env or {}),
    )
    ready = json.loads(LineReader(proc.stdout).wait_for("REMOTE_MCP_READY", timeout=30))
    return ready["url"], proc


@asynccontextmanager
async def bearer_session(url: str, token: str):
    """The SDK's Streamable HTTP client, sending `token`."""
    async with create_mcp_http_client(headers={"authorization": f"Bearer {token}"}) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


# -- 1. remote tools and whose credential they carry -------------------------


@pytest.mark.anyio
async def test_remote_tools_never_lend_heralds_token_and_identity_servers_get_the_callers(
    authorization_server, herald_factory
):
    own_url, own = start_remote("--token-env", "OWN", env={"OWN": HERALD_REMOTE_TOKEN})
    ids_port = free_port()
    ids_url = f"http://127.0.0.1:{ids_port}/mcp"
    ids_url, ids = start_remote(
        "--port", str(ids_port), "--token-env", "OWN", "--jwks-file", str(authorization_server.jwks_file),
        "--jwt-audience", ids_url, env={"OWN": HERALD_REMOTE_TOKEN},
    )
    try:
        servers = [
            {"name": "own", "url": own_url, "token_env": "OWN_TOKEN", "tools": ["add", "whoami"]},
            {"name": "ids", "url": ids_url, "token_env": "OWN_TOKEN", "credential": "exchange",
             "tools": ["whoami"]},
        ]
        herald = herald_factory(env={"LOREBASE__HERALD__MCP__SERVERS": json.dumps(servers),
                                     "OWN_TOKEN": HERALD_REMOTE_TOKEN})
        # A token without the server's scope: Herald's own token is lent to no one.
        plain = authorization_server.mint(herald.url)
        async with bearer_session(herald.url, plain) as session:
            names = {t.name for t in (await session.list_tools()).tools}
            assert "own__add" not in names and "own__whoami" not in names, names
            assert "ids__whoami" in names, names
            refused = await session.call_tool("own__add", {"a": 1, "b": 2})
            assert refused.is_error
            text = text_of(refused)
            assert text.startswith("[forbidden]") and "herald:remote:own" in text, text
            assert "\nnext: " in text, text
            # The identity server gets the caller's token, exchanged for its audience.
            who = await session.call_tool("ids__whoami", {})
            assert not who.is_error, text_of(who)
            assert f"caller sub={authorization_server.subject} aud={ids_url}" in text_of(who), text_of(who)
        exchanged = [e for e in authorization_server.exchanges if e["subject_token"] == plain]
        assert {e["audience"] for e in exchanged} >= {ids_url}, exchanged
        # Granted by the operator (the scope on the token), through the SDK's OAuth client.
        authorization_server.scope = "lorebase:read herald:remote:own"
        try:
            async with OAuthSignIn(herald.url, client_name="herald-trust-test").session() as session:
                names = {t.name for t in (await session.list_tools()).tools}
                assert {"own__add", "own__whoami", "ids__whoami"} <= names, names
                added = await session.call_tool("own__add", {"a": 1, "b": 2})
                assert not added.is_error and "3" in text_of(added), text_of(added)
                who = await session.call_tool("own__whoami", {})
                assert "herald's own token" in text_of(who)
        finally:
            authorization_server.scope = "lorebase:read"
        assert HERALD_REMOTE_TOKEN not in herald.stderr.text()
    finally:
        stop(own)
        stop(ids)


# -- 2. a slow JWKS ---------------------------------------------------------------


def test_a_slow_jwks_stalls_only_the_tokens_that_need_it(authorization_server, herald_factory):
    herald = herald_factory()
    assert herald.post(LIST, authorization_server.mint(herald.url)).status_code == 200
    time.sleep(5.2)  # past the refetch floor: the forged kids start a fetch
    # The JWKS answers 4.5 s late (below Herald's 5 s fetch timeout, so the
    # old code's lock was held until it answered).
    authorization_server.jwks_hold = threading.Event()
    release = threading.Timer(4.5, authorization_server.jwks_hold.set)
    forged_answers: list[int] = []

    def forged() -> None:
        token = authorization_server.mint(herald.url, kid="key-forged", key=new_key(), jti=os.urandom(4).hex())
        forged_answers.append(herald.post(LIST, token).status_code)

    stalled = [threading.Thread(target=forged) for _ in range(4)]
    try:
        for t in stalled:
            t.start()
        deadline = time.monotonic() + 10
        while authorization_server.jwks_pending == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert authorization_server.jwks_pending == 1, "the forged kids started one fetch"
        release.start()
        # New, legitimate tokens (their key is cached) are answered while
        # the fetch is still held by the authorization server (was: each
        # waited behind the issuer's lock until the JWKS answered).
        for _ in range(3):
            answer = herald.post(CALL, authorization_server.mint(herald.url))
            assert answer.status_code == 200, answer.text
            assert not answer.json()["result"].get("isError"), answer.text
            assert authorization_server.jwks_pending == 1, "a call whose key is cached waited for the JWKS"
    finally:
        release.cancel()
        authorization_server.jwks_hold.set()
        authorization_server.jwks_hold = None
        for t in stalled:
            t.join(timeout=20)
    assert forged_answers == [401] * 4


# -- 3. introspection amplification --------------------------------------------


def test_random_opaque_tokens_cost_a_bounded_number_of_introspections(authorization_server, herald_factory):
    herald = herald_factory(introspection_endpoint=authorization_server.url + "/introspect")
    before = authorization_server.paths().count("POST /introspect")
    statuses: dict[int, int] = {}
    started = time.monotonic()
    with httpx2.Client(timeout=20) as client:

        def one(_: int) -> int:
            token = "opq_" + os.urandom(18).hex()
            headers = {"accept": "application/json, text/event-stream", "content-type": "application/json",
                       "authorization": f"Bearer {token}"}
            return client.post(herald.url, json=LIST, headers=headers).status_code

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            for status in pool.map(one, range(2000)):
                statuses[status] = statuses.get(status, 0) + 1
    elapsed = time.monotonic() - started
    asked = authorization_server.paths().count("POST /introspect") - before
    print(json.dumps({"tokens": 2000, "introspections": asked, "elapsed_s": round(elapsed, 2), "statuses": statuses}))
    assert set(statuses) <= {401, 503}, statuses
    # The bound: a burst of 20, then 10 a second (whatever the machine's speed).
    assert asked <= 20 + 10 * elapsed + 8, (asked, elapsed, statuses)
    if elapsed < 28:
        assert asked <= 300, (asked, elapsed)
    # Past the bound the answer is 503 with Retry-After, and a legitimate
    # token gets through once the bucket refills; a refused token sent again
    # costs no call (the short negative cache).
    time.sleep(2.5)
    good = authorization_server.opaque(herald.url)
    answer = herald.post(CALL, good)
    assert answer.status_code == 200, answer.text
    bad = authorization_server.opaque(herald.url, active=False)
    counted = authorization_server.paths().count("POST /introspect")
    for _ in range(10):
        assert herald.post(LIST, bad).status_code == 401
    assert authorization_server.paths().count("POST /introspect") == counted + 1


# -- 4. values the authorization server controls; a panicking request ---------


def test_lifetimes_from_the_authorization_server_saturate(authorization_server, herald_factory):
    herald = herald_factory()
    far = authorization_server.mint(herald.url, exp=10**19)
    answer = herald.post(CALL, far)
    assert answer.status_code == 200, answer.text
    authorization_server.exchange_expires_in = 2**63
    try:
        token = authorization_server.mint(herald.url)
        for _ in range(2):
            answer = herald.post(CALL, token)
            assert answer.status_code == 200, answer.text
            assert not answer.json()["result"].get("isError"), answer.text
    finally:
        authorization_server.exchange_expires_in = 300
    assert "panicked" not in herald.stderr.text()


def test_a_request_that_panics_is_answered_500_and_gives_its_slot_back(herald_factory):
    herald = herald_factory(env={"HERALD_TEST_PANIC_HOOK": "1", **METRICS_BEARER})
    for _ in range(15):
        answer = httpx2.post(herald.url, json=LIST, headers={"x-herald-test-panic": "1"}, timeout=10)
        assert answer.status_code == 500, answer.text
        assert answer.json()["error"]["code"] == -32603
    deadline = time.monotonic() + 10
    while True:  # the clients have closed: every slot comes back (the scrape's own aside)
        scrape = httpx2.get(f"{herald.base}/metrics", headers={"authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10)
        line = next(x for x in scrape.text.splitlines() if x.startswith("herald_http_connections_open "))
        if float(line.split()[1]) <= 1 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert float(line.split()[1]) <= 1, line
    assert herald.post(LIST).status_code == 401  # and Herald goes on serving


# -- 5. token sizes ------------------------------------------------------------


def test_long_tokens_are_cached_and_oversized_ones_refused_before_any_call(authorization_server, herald_factory):
    herald = herald_factory(introspection_endpoint=authorization_server.url + "/introspect")
    long = authorization_server.mint(herald.url, padding="p" * 5000)
    assert 4096 < len(long) < 8192
    for _ in range(5):
        answer = herald.post(CALL, long)
        assert answer.status_code == 200, answer.text
    assert len([e for e in authorization_server.exchanges if e["subject_token"] == long]) == 1
    asked = len(authorization_server.paths())
    oversized = "opq_" + "x" * 70_000
    answer = herald.post(LIST, oversized)
    assert answer.status_code == 401, answer.status_code
    assert "8 KiB" in answer.headers["www-authenticate"]
    assert len(authorization_server.paths()) == asked, "nothing was asked about it"


# -- 7. /metrics, the 401 text and /readyz in OAuth mode -----------------------


def test_metrics_and_readiness_keep_to_oauth_modes_rules(authorization_server, herald_factory):
    herald = herald_factory()
    refused = httpx2.get(f"{herald.base}/metrics", timeout=10)
    assert refused.status_code == 403, refused.text
    assert "metrics.bearer_token" in refused.text and "metrics.port" in refused.text
    # The 401 names the authorization server, not a Lorebase API key.
    unauthorized = herald.post(LIST)
    message = unauthorized.json()["error"]["message"]
    assert authorization_server.url in message and "API key" not in message, message
    # /readyz keeps to the Host rules.
    assert httpx2.get(f"{herald.base}/readyz", timeout=10).status_code == 200
    assert httpx2.get(f"{herald.base}/readyz", headers={"host": "evil.example.com"}, timeout=10).status_code == 403
    scraped = herald_factory(env={**METRICS_BEARER})
    url = f"{scraped.base}/metrics"
    assert httpx2.get(url, timeout=10).status_code == 401
    ok = httpx2.get(url, headers={"authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10)
    assert ok.status_code == 200 and "herald_build_info" in ok.text
    # On a port of its own (Kubernetes: Prometheus scrapes the pod's
    # address and cannot set Host), an IP address is an accepted Host; a
    # name must still be allowed.
    from test_metrics import metrics_url_in

    own = herald_factory(env={"LOREBASE__HERALD__METRICS__PORT": "0", **METRICS_BEARER})
    url = metrics_url_in(own.stderr.text)
    bearer = {"authorization": f"Bearer {METRICS_TOKEN}"}
    assert httpx2.get(url, headers={**bearer, "host": "10.1.2.3:9090"}, timeout=10).status_code == 200
    assert httpx2.get(url, headers={**bearer, "host": "evil.example:9090"}, timeout=10).status_code == 403
    assert httpx2.get(url, headers={"host": "10.1.2.3:9090"}, timeout=10).status_code == 401

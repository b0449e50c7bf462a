"""What the authorization server answers, and what Herald makes of it:
token exchanges it refuses or cannot answer, a JWKS it cannot serve, keys
that share a `kid`. A real authorization server on loopback
(oauth_server.py: RS256 keys, JWKS, token exchange counted per subject
token), the sandbox Keeper in auth mode jwt, Heralds over real HTTP.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import threading
import time

import httpx2
import pytest
from oauth_server import new_key

# The authorization server and the Keeper in auth mode jwt (one of each per
# module), and the Heralds before them, are the resource-server suite's fixtures.
from test_oauth_resource_server import (  # noqa: F401 (fixtures)
    CALL,
    LIST,
    MCP_HEADERS,
    authorization_server,
    herald_factory,
    jwt_keeper,
)


@pytest.fixture
def as_knobs(authorization_server):
    """Puts the authorization server's knobs back after the test."""
    yield authorization_server
    authorization_server.exchange_answer = None
    authorization_server.exchange_hold = None
    authorization_server.jwks_status = None


def logged(herald, line: str) -> str:
    """Herald's stderr once it holds `line` (read by a thread of its own)."""
    deadline = time.monotonic() + 5
    while line not in herald.stderr.text() and time.monotonic() < deadline:
        time.sleep(0.02)
    logs = herald.stderr.text()
    assert line in logs, logs
    return logs


# -- what the authorization server says stays out of answers and logs -------


@pytest.mark.parametrize(
    "status,body",
    [
        (200, b'{"access_token": "x", "expires_in": "%s"}'),
        (500, b'{"error": "server_error", "error_description": "%s"}'),
        (200, b"<html>%s</html>"),
    ],
)
def test_an_exchange_that_fails_quotes_nothing_the_authorization_server_said(as_knobs, herald_factory, status, body):
    server = as_knobs
    herald = herald_factory()
    secret = server.mint("https://elsewhere.example", sub="someone-else")
    server.exchange_answer = (status, body.replace(b"%s", secret.encode()))
    answer = herald.post(CALL, server.mint(herald.url, jti=os.urandom(4).hex()))
    assert answer.status_code == 503, answer.text
    assert answer.headers.get("retry-after"), answer.headers
    assert secret not in answer.text and secret[:40] not in answer.text
    logs = logged(herald, "token exchange failed")
    assert secret[:40] not in logs, logs


# -- a JWKS that cannot be fetched ------------------------------------------


def test_keys_that_cannot_be_fetched_answer_503_with_retry_after_even_with_older_keys_cached(
    as_knobs, herald_factory
):
    server = as_knobs
    herald = herald_factory()
    assert herald.post(LIST, server.mint(herald.url)).status_code == 200
    server.jwks_status = 500
    time.sleep(5.2)  # past the refetch floor: a kid not cached starts a fetch
    unknown = server.mint(herald.url, kid="key-next", key=new_key())
    answer = herald.post(LIST, unknown)
    assert answer.status_code == 503, (answer.status_code, answer.headers, answer.text)
    assert answer.headers.get("retry-after"), answer.headers
    assert "www-authenticate" not in answer.headers
    # A token whose key is cached is still served meanwhile.
    assert herald.post(LIST, server.mint(herald.url)).status_code == 200
    # Once the keys can be fetched, an unknown kid is a plain 401 again.
    server.jwks_status = None
    time.sleep(5.2)
    answer = herald.post(LIST, server.mint(herald.url, kid="key-next", key=new_key()))
    assert answer.status_code == 401, answer.text
    assert 'error="invalid_token"' in answer.headers.get("www-authenticate", "")


# -- two keys under one kid ---------------------------------------------------


def test_every_key_listed_under_a_kid_is_tried(authorization_server, herald_factory):
    server = authorization_server
    kept = list(server.keys)
    # The JWKS lists an older key and the signing one under the same kid
    # (the sandbox Keeper's own key file is left as it was).
    first, second = new_key(), new_key()
    server.keys = [*kept, ("shared-kid", first), ("shared-kid", second)]
    try:
        herald = herald_factory()
        signed_by_second = server.mint(herald.url, kid="shared-kid", key=second)
        answer = herald.post(LIST, signed_by_second)
        assert answer.status_code == 200, answer.text
        forged = server.mint(herald.url, kid="shared-kid", key=new_key())
        answer = herald.post(LIST, forged)
        assert answer.status_code == 401, answer.text
    finally:
        server.keys = kept


# -- token exchange: lazily, once per token, remembered, bounded -------------


def exchanges_of(server, token: str) -> int:
    with server.lock:
        return sum(1 for e in server.exchanges if e.get("subject_token") == token)


def test_a_refused_exchange_is_asked_once_and_a_request_that_needs_no_keeper_asks_none(
    as_knobs, herald_factory
):
    """Exchanges counted (the figure of docs/benchmarks.md, "OAuth token
    exchange"): 300 `tools/list` and pings with a valid token the
    authorization server will not exchange ask for none; 300 calls of a
    Lorebase tool with it ask once (the refusal is remembered 10 s)."""
    server = as_knobs
    herald = herald_factory()
    server.exchange_answer = (400, b'{"error": "invalid_grant"}')
    token = server.mint(herald.url, jti=os.urandom(4).hex())
    ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
    headers = {**MCP_HEADERS, "authorization": f"Bearer {token}"}
    answers: dict[int, int] = {}
    with httpx2.Client(timeout=20, headers=headers) as client:
        for _ in range(300):
            assert client.post(herald.url, json=LIST).status_code == 200
        assert client.post(herald.url, json=ping).status_code == 200
        listed = exchanges_of(server, token)
        started = time.monotonic()
        for _ in range(300):
            status = client.post(herald.url, json=CALL).status_code
            answers[status] = answers.get(status, 0) + 1
        elapsed = time.monotonic() - started
    called = exchanges_of(server, token)
    print(json.dumps({"lists": 300, "exchanges_for_lists": listed, "calls": 300,
                      "exchanges_for_calls": called, "answers": answers, "calls_s": round(elapsed, 2)}))
    assert listed == 0, listed
    assert answers == {401: 300}, answers
    # One, and one more each time the remembered refusal (10 s) runs out
    # on a slow machine.
    assert called <= 1 + int(elapsed / 10), (called, elapsed)
    if elapsed < 10:
        assert called <= 2, called
    last = herald.post(CALL, token)
    assert 'error="invalid_token"' in last.headers.get("www-authenticate", ""), last.headers


def test_concurrent_first_calls_of_one_token_share_one_exchange(as_knobs, herald_factory):
    server = as_knobs
    herald = herald_factory()
    token = server.mint(herald.url, jti=os.urandom(4).hex())
    server.exchange_hold = threading.Event()
    with concurrent.futures.ThreadPoolExecutor(50) as pool:
        answers = [pool.submit(herald.post, CALL, token) for _ in range(50)]
        deadline = time.monotonic() + 10
        while exchanges_of(server, token) == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.5)  # the other 49 are in by now, waiting on the one
        server.exchange_hold.set()
        statuses = [a.result().status_code for a in answers]
    assert statuses == [200] * 50, statuses
    assert exchanges_of(server, token) == 1, exchanges_of(server, token)


def test_exchanges_past_the_bound_are_answered_503_without_a_call(as_knobs, herald_factory):
    server = as_knobs
    herald = herald_factory(exchange_max_in_flight="1", exchange_per_second="1", exchange_burst="1")
    tokens = [server.mint(herald.url, jti=os.urandom(4).hex()) for _ in range(5)]
    server.exchange_hold = threading.Event()
    with concurrent.futures.ThreadPoolExecutor(5) as pool:
        first = pool.submit(herald.post, CALL, tokens[0])
        deadline = time.monotonic() + 10
        while exchanges_of(server, tokens[0]) == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        others = [pool.submit(herald.post, CALL, t) for t in tokens[1:]]
        refused = [o.result() for o in others]
        server.exchange_hold.set()
        assert first.result().status_code == 200
    assert [r.status_code for r in refused] == [503] * 4, [r.text for r in refused]
    assert all(r.headers.get("retry-after") == "1" for r in refused)
    assert sum(exchanges_of(server, t) for t in tokens[1:]) == 0

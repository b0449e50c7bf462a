"""What the authorization server answers, and what Herald makes of it:
token exchanges it refuses or cannot answer, a JWKS it cannot serve, keys
that share a `kid`. A real authorization server on loopback
(oauth_server.py: RS256 keys, JWKS, token exchange counted per subject
token), the sandbox Keeper in auth mode jwt, Heralds over real HTTP.
"""

from __future__ import annotations

import os
import time

import pytest
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

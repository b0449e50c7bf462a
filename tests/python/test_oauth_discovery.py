"""Authorization discovery over HTTP (issue 20, MCP authorization, RFC 9728):
with http.authorization_servers set, the official Python SDK's OAuth client
finds Herald's protected resource metadata from the 401, then the
authorization server's metadata, registers, gets a token and calls a tool
with it. Without the setting, a missing credential stays a tool error."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from conftest import http_session, text_of
from fake_services import FakeAuthorizationServer
from mcp import ClientSession
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


@pytest.fixture
def authorization_server(secured_sandbox):
    server = FakeAuthorizationServer(token=secured_sandbox.keys["agt_reader"])
    yield server
    server.close()


def test_a_call_without_a_credential_gets_401_and_the_metadata(authorization_server, sandbox, http_herald_factory):
    herald = http_herald_factory(
        sandbox.url, env={"LOREBASE__HERALD__HTTP__AUTHORIZATION_SERVERS": authorization_server.url}
    )
    answer = httpx2.post(herald.url, json=LIST, headers=MCP_HEADERS, timeout=10)
    assert answer.status_code == 401
    metadata_url = f"{herald.base}/.well-known/oauth-protected-resource/mcp"
    assert answer.headers["www-authenticate"] == f'Bearer resource_metadata="{metadata_url}"'
    assert answer.json()["error"]["code"] == -32001
    document = httpx2.get(metadata_url, timeout=10).json()
    assert document == {
        "resource": herald.url,
        "authorization_servers": [authorization_server.url],
        "bearer_methods_supported": ["header"],
        "resource_name": "Lorebase Herald",
    }
    assert httpx2.get(f"{herald.base}/.well-known/oauth-protected-resource", timeout=10).json() == document
    malformed = httpx2.post(herald.url, json=LIST, headers={**MCP_HEADERS, "authorization": "Basic eDp5"}, timeout=10)
    assert malformed.status_code == 401
    assert 'error="invalid_request"' in malformed.headers["www-authenticate"]
    with_key = httpx2.post(herald.url, json=LIST, headers={**MCP_HEADERS, "authorization": "Bearer k"}, timeout=10)
    assert with_key.status_code == 200 and with_key.json()["result"]["tools"]
    # A public name behind a proxy: the configured resource URL.
    behind = http_herald_factory(
        sandbox.url,
        env={
            "LOREBASE__HERALD__HTTP__AUTHORIZATION_SERVERS": authorization_server.url,
            "LOREBASE__HERALD__HTTP__RESOURCE_URL": "https://herald.example.com/mcp",
        },
    )
    challenge = httpx2.post(behind.url, json=LIST, headers=MCP_HEADERS, timeout=10).headers["www-authenticate"]
    assert challenge == 'Bearer resource_metadata="https://herald.example.com/.well-known/oauth-protected-resource/mcp"'


@pytest.mark.anyio
async def test_the_sdk_oauth_client_discovers_authorizes_and_calls(
    authorization_server, secured_sandbox, http_herald_factory
):
    herald = http_herald_factory(
        secured_sandbox.url,
        env={"LOREBASE__HERALD__HTTP__AUTHORIZATION_SERVERS": authorization_server.url},
    )
    redirects: list[str] = []

    async def redirect_handler(url: str) -> None:
        redirects.append(url)

    async def callback_handler() -> AuthorizationCodeResult:
        state = parse_qs(urlsplit(redirects[-1]).query)["state"][0]
        return AuthorizationCodeResult(code="the-code", state=state)

    provider = OAuthClientProvider(
        server_url=herald.url,
        client_metadata=OAuthClientMetadata(
            redirect_uris=["http://127.0.0.1:1/callback"],
            client_name="herald-test",
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=MemoryStorage(),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    async with create_mcp_http_client(auth=provider) as client:
        async with streamable_http_client(herald.url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
                assert not result.is_error, text_of(result)
                assert "Supplier/S-1001" in text_of(result)

    prm = provider.context.protected_resource_metadata
    assert prm is not None and str(prm.resource) == herald.url
    assert [str(s).rstrip("/") for s in prm.authorization_servers] == [authorization_server.url]
    assert provider.context.oauth_metadata is not None
    assert authorization_server.paths()[:3] == [
        "GET /.well-known/oauth-authorization-server",
        "POST /register",
        "POST /token",
    ]
    (authorize,) = redirects
    assert authorize.startswith(authorization_server.url + "/authorize?")
    assert parse_qs(urlsplit(authorize).query)["resource"] == [herald.url]


@pytest.mark.anyio
async def test_without_authorization_servers_a_missing_credential_is_a_tool_error(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url)
    async with http_session(herald.url) as s:
        assert (await s.list_tools()).tools
        result = await s.call_tool("lorebase_schema", {})
        assert result.is_error and text_of(result).startswith("[unauthorized]")
    assert httpx2.get(f"{herald.base}/.well-known/oauth-protected-resource/mcp", timeout=10).status_code == 404


def test_anonymous_calls_and_authorization_servers_do_not_mix(binaries, sandbox):
    import subprocess

    from conftest import clean_env

    done = subprocess.run(
        [binaries["herald"], "--transport", "streamable_http", "--port", "0"],
        env=clean_env(
            {
                "LOREBASE_URL": sandbox.url,
                "LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true",
                "LOREBASE__HERALD__HTTP__AUTHORIZATION_SERVERS": "https://auth.example.com",
            }
        ),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "allow_anonymous" in done.stderr and "authorization_servers" in done.stderr

"""The MCP Python SDK's OAuth client as the tests drive it against
oauth_server.py: dynamic registration, PKCE, and a user agent that follows
the authorization server's redirect to the code, then a Streamable HTTP
session with the token it got."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp import ClientSession
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken


class MemoryStorage:
    """The SDK client's token and registration storage, in memory."""

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


class OAuthSignIn:
    """One public client (`client_name`) signing in to the MCP server at
    `url`: `provider` is the SDK's, `redirects` the authorization URLs it
    sent the user agent to."""

    def __init__(self, url: str, client_name: str) -> None:
        self.url = url
        self.redirects: list[str] = []
        self.provider = OAuthClientProvider(
            server_url=url,
            client_metadata=OAuthClientMetadata(
                redirect_uris=["http://127.0.0.1:1/callback"],
                client_name=client_name,
                grant_types=["authorization_code"],
                response_types=["code"],
                token_endpoint_auth_method="none",
            ),
            storage=MemoryStorage(),
            redirect_handler=self._redirect,
            callback_handler=self._callback,
        )

    async def _redirect(self, url: str) -> None:
        self.redirects.append(url)

    async def _callback(self) -> AuthorizationCodeResult:
        # The user agent: the authorization server answers 302 to the redirect URI.
        answer = httpx2.get(self.redirects[-1], follow_redirects=False, timeout=10)
        assert answer.status_code == 302, answer.text
        q = parse_qs(urlsplit(answer.headers["location"]).query)
        return AuthorizationCodeResult(code=q["code"][0], state=q["state"][0])

    @asynccontextmanager
    async def session(self) -> AsyncIterator[ClientSession]:
        """An initialized session, signed in on its first request."""
        async with create_mcp_http_client(auth=self.provider) as client:
            async with streamable_http_client(self.url, http_client=client) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    yield session

"""Without http.authorization_servers (Lorebase API-key mode), a
missing credential stays a tool error and no metadata is served; and
the settings that cannot go together stop Herald. The OAuth resource server
itself is tested in test_oauth_resource_server.py, with the SDK's OAuth
client of oauth_client.py."""

from __future__ import annotations

import httpx2
import pytest
from conftest import http_session, text_of


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

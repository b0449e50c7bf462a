"""Security over real HTTP: DNS-rebinding protection, the body limit,
per-caller credentials (forwarded unchanged, never the configured key),
anonymous mode against open and secured Keepers, and two callers with
different grants on one Herald."""

from __future__ import annotations

import json

import anyio
import httpx2
import pytest

from conftest import http_session, stop, text_of

pytestmark = pytest.mark.anyio

ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def get_call(ref: str = "Supplier/S-1001", fmt: str = "text") -> dict:
    return {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "lorebase_get", "arguments": {"ref": ref, "format": fmt}},
    }


def post(url: str, body: dict | bytes, headers: dict[str, str] | None = None) -> httpx2.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    with httpx2.Client(timeout=30) as c:
        return c.post(url, content=content, headers={**ACCEPT, **(headers or {})})


def assert_refusal(resp: httpx2.Response, status: int, needle: str) -> None:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith("application/json")
    body = resp.json()
    assert body["jsonrpc"] == "2.0"
    assert body["id"] is None
    assert isinstance(body["error"]["code"], int)
    assert needle in body["error"]["message"]


def test_foreign_host_is_refused_and_never_forwarded(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"})
    before = sandbox.requests()
    assert_refusal(post(herald.url, get_call(), {"host": "attacker.example"}), 403, "Host")
    assert_refusal(post(herald.url, get_call(), {"host": "attacker.example:8090"}), 403, "Host")
    assert sandbox.requests() == before
    # The same call with a local Host reaches Keeper (the count can move).
    ok = post(herald.url, get_call(), {"host": "localhost"})
    assert ok.status_code == 200, ok.text
    assert ok.json()["result"]["isError"] is False
    assert sandbox.requests() > before


def test_foreign_origin_is_refused_and_never_forwarded(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"})
    before = sandbox.requests()
    for origin in ["http://attacker.example", "https://localhost", "null"]:
        assert_refusal(post(herald.url, get_call(), {"origin": origin}), 403, "Origin")
    assert sandbox.requests() == before
    ok = post(herald.url, get_call(), {"origin": "http://localhost:6274"})
    assert ok.status_code == 200, ok.text


def test_configured_hosts_and_origins(sandbox, http_herald_factory):
    herald = http_herald_factory(
        sandbox.url,
        env={
            "LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true",
            "LOREBASE__HERALD__HTTP__ALLOWED_HOSTS": '["herald"]',
            "LOREBASE__HERALD__HTTP__ALLOWED_ORIGINS": '["https://agents.example.com"]',
        },
    )
    ok = post(herald.url, get_call(), {"host": "herald:8090", "origin": "https://agents.example.com"})
    assert ok.status_code == 200, ok.text
    assert_refusal(post(herald.url, get_call(), {"host": "herald2"}), 403, "Host")


def test_oversized_bodies_get_413(sandbox, http_herald_factory):
    herald = http_herald_factory(
        sandbox.url,
        env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true", "LOREBASE__HERALD__HTTP__MAX_BODY_BYTES": "2048"},
    )
    big = get_call()
    big["params"]["arguments"]["padding"] = "x" * 4096
    assert_refusal(post(herald.url, big), 413, "2048")
    small = post(herald.url, get_call())
    assert small.status_code == 200


def test_healthz(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url)
    with httpx2.Client(timeout=10) as c:
        r = c.get(f"{herald.base}/healthz")
    assert r.status_code == 200
    assert r.json()["status"] == "ok"


async def test_missing_bearer_is_unauthorized_and_not_forwarded(secured_sandbox, http_herald_factory):
    # The configured key is an admin's: it must never be used over HTTP.
    herald = http_herald_factory(
        secured_sandbox.url, env={"LOREBASE_API_KEY": secured_sandbox.keys["usr_admin"]}
    )
    before = secured_sandbox.requests()
    async with http_session(herald.url) as session:
        result = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
    assert result.is_error
    assert text_of(result).startswith("[unauthorized]")
    assert secured_sandbox.requests() == before


async def test_malformed_authorization_is_unauthorized(secured_sandbox, http_herald_factory):
    herald = http_herald_factory(secured_sandbox.url)
    key = secured_sandbox.keys["usr_steward"]
    async with http_session(herald.url, headers={"Authorization": f"Basic {key}"}) as session:
        result = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
    assert result.is_error
    assert text_of(result).startswith("[unauthorized]")


async def test_anonymous_mode_works_with_an_open_keeper(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"})
    async with http_session(herald.url) as session:
        result = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
    assert not result.is_error, text_of(result)
    assert "Kavsen Alloys" in text_of(result)


async def test_anonymous_mode_is_refused_by_a_secured_keeper(secured_sandbox, http_herald_factory):
    herald = http_herald_factory(
        secured_sandbox.url, env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"}
    )
    before = secured_sandbox.requests()
    async with http_session(herald.url) as session:
        result = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
    assert result.is_error
    assert text_of(result).startswith("[unauthorized]")
    # Herald forwarded it and Keeper said no (Herald does not decide on its own).
    assert secured_sandbox.requests() > before


async def test_two_callers_see_only_their_own_grants(secured_sandbox, http_herald_factory):
    herald = http_herald_factory(secured_sandbox.url)
    reader = {"Authorization": f"Bearer {secured_sandbox.keys['agt_reader']}"}
    steward = {"Authorization": f"Bearer {secured_sandbox.keys['usr_steward']}"}
    flag = {
        "operation": "flag_supplier_risk",
        "parameters": {"supplier_code": "S-1003", "reason": "two callers"},
        "dry_run": True,
    }
    results: dict[str, dict] = {}

    async def as_caller(name: str, headers: dict[str, str]) -> None:
        async with http_session(herald.url, headers=headers) as session:
            got = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1002", "format": "json"})
            assert not got.is_error, text_of(got)
            execute = await session.call_tool("lorebase_execute", flag)
            results[name] = {"get": got, "execute": execute}

    async with anyio.create_task_group() as tg:
        tg.start_soon(as_caller, "reader", reader)
        tg.start_soon(as_caller, "steward", steward)

    reader_view = json.dumps(results["reader"]["get"].structured_content)
    steward_view = json.dumps(results["steward"]["get"].structured_content)
    iban = "PL61 1090 1014 0000 0712 1981 2874"
    assert iban in steward_view
    assert iban not in reader_view
    assert "***" in reader_view
    assert results["reader"]["execute"].is_error
    assert text_of(results["reader"]["execute"]).startswith("[forbidden]")
    assert not results["steward"]["execute"].is_error, text_of(results["steward"]["execute"])


async def test_keys_never_reach_the_logs(secured_sandbox, http_herald_factory):
    herald = http_herald_factory(secured_sandbox.url, args=["--log-level", "trace"])
    key = secured_sandbox.keys["agt_reader"]
    async with http_session(herald.url, headers={"Authorization": f"Bearer {key}"}) as session:
        await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
        await session.call_tool("lorebase_get", {"ref": "Supplier/S-9999"})
    stop(herald.proc)
    herald.stderr.join()
    logs = herald.stderr.text()
    assert "DEBUG" in logs or "TRACE" in logs, "expected trace logs on stderr"
    assert key not in logs
    secret_part = key.rsplit("_", 1)[-1]
    assert secret_part not in logs

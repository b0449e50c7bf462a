"""GET /metrics: real calls through the official MCP SDK client,
then a scrape; every counter must have moved by exactly the calls made.
Parsed with the Prometheus client library's own text parser."""

from __future__ import annotations

import re
import tempfile
import time

import httpx2
import pytest
from conftest import clean_env, http_session, text_of
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from prometheus_client.parser import text_string_to_metric_families

GET = "GET /kinds/{kind}/records/{key}"


def scrape(url: str) -> dict[tuple[str, tuple], float]:
    """Every sample of a /metrics answer, by name and sorted labels."""
    answer = httpx2.get(url, timeout=10)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for family in text_string_to_metric_families(answer.text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def delta(before: dict, after: dict, name: str, **labels: str) -> float:
    key = (name, tuple(sorted(labels.items())))
    return after.get(key, 0.0) - before.get(key, 0.0)


@pytest.mark.anyio
async def test_counters_move_by_exactly_the_calls_made(secured_sandbox, http_herald_factory):
    herald = http_herald_factory(secured_sandbox.url, env={"LOREBASE__HERALD__KEEPER__RETRY_MAX_WAIT_S": "0"})
    metrics_url = herald.ready["metrics"]
    assert metrics_url == herald.base + "/metrics"
    key = secured_sandbox.keys["agt_reader"]
    before = scrape(metrics_url)
    async with http_session(herald.url, headers={"Authorization": f"Bearer {key}"}) as s:
        await s.list_tools()
        for _ in range(3):
            assert not (await s.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})).is_error
        missing = await s.call_tool("lorebase_get", {"ref": "Supplier/S-9999"})
        assert missing.is_error and text_of(missing).startswith("[not-found]")
        secured_sandbox.admin("POST", "faults", {"count": 1, "status": 429, "retry_after": 0})
        assert not (await s.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})).is_error
    async with http_session(herald.url) as anonymous:
        refused = await anonymous.call_tool("lorebase_schema", {})
        assert refused.is_error and text_of(refused).startswith("[unauthorized]")
    after = scrape(metrics_url)

    calls = "herald_tool_calls_total"
    assert delta(before, after, calls, tool="lorebase_get", outcome="ok") == 4
    assert delta(before, after, calls, tool="lorebase_get", outcome="not-found") == 1
    assert delta(before, after, calls, tool="lorebase_schema", outcome="unauthorized") == 1
    # Refused calls are counted, not timed: 5 timed calls.
    count = "herald_tool_call_duration_seconds_count"
    assert delta(before, after, count, tool="lorebase_get") == 5
    assert delta(before, after, count, tool="lorebase_schema") == 0
    assert after[("herald_tool_calls_in_flight", ())] == 0
    # Keeper: every attempt by endpoint template and status, the resend apart.
    requests = "herald_keeper_requests_total"
    assert delta(before, after, requests, endpoint=GET, status="200") == 4
    assert delta(before, after, requests, endpoint=GET, status="404") == 1
    assert delta(before, after, requests, endpoint=GET, status="429") == 1
    assert delta(before, after, "herald_keeper_resends_total", endpoint=GET, status="429") == 1
    moved = {k for k in after if after[k] != before.get(k, 0.0)}
    assert {name for name, _ in moved} <= {
        calls,
        requests,
        "herald_keeper_resends_total",
        count,
        "herald_tool_call_duration_seconds_sum",
        "herald_tool_call_duration_seconds_bucket",
        "herald_http_connections_open",
    }, moved
    # Labels are templates and codes, never ids or keys.
    labels = " ".join(v for (_, ls) in after for (_, v) in ls)
    assert "S-1001" not in labels and key not in labels
    assert after[("herald_build_info", (("version", "0.1.0"),))] == 1
    assert after[("herald_http_connections_open", ())] >= 1


@pytest.mark.anyio
async def test_metrics_on_a_port_of_their_own(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env={"LOREBASE__HERALD__METRICS__PORT": "0"})
    assert "metrics" not in herald.ready
    assert httpx2.get(herald.base + "/metrics", timeout=10).status_code == 404
    url = metrics_url_in(herald.stderr.text)
    before = scrape(url)
    async with http_session(herald.url, headers={"Authorization": "Bearer any"}) as s:
        assert not (await s.call_tool("lorebase_schema", {})).is_error
    assert delta(before, scrape(url), "herald_tool_calls_total", tool="lorebase_schema", outcome="ok") == 1


@pytest.mark.anyio
async def test_metrics_can_be_turned_off(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env={"LOREBASE__HERALD__METRICS__ENABLED": "false"})
    assert "metrics" not in herald.ready
    assert httpx2.get(herald.base + "/metrics", timeout=10).status_code == 404


def metrics_url_in(text_source, timeout: float = 20) -> str:
    """The `metrics on http://...` line Herald logs at start."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(r"metrics on (http://[^\s\"]+/metrics)", text_source())
        if found:
            return found.group(1)
        time.sleep(0.05)
    raise AssertionError(f"no metrics line in:\n{text_source()}")


@pytest.mark.anyio
async def test_stdio_serves_metrics_only_on_its_own_port(binaries, sandbox):
    with tempfile.TemporaryFile("w+") as errlog:
        params = StdioServerParameters(
            command=binaries["herald"],
            env=clean_env(
                {
                    "LOREBASE_URL": sandbox.url,
                    "LOREBASE_DOMAIN": "supply",
                    "LOREBASE__HERALD__METRICS__PORT": "0",
                }
            ),
        )

        def logged() -> str:
            errlog.seek(0)
            return errlog.read()

        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                url = metrics_url_in(logged)
                before = scrape(url)
                for _ in range(2):
                    assert not (await s.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})).is_error
                after = scrape(url)
        assert delta(before, after, "herald_tool_calls_total", tool="lorebase_get", outcome="ok") == 2
        assert delta(before, after, "herald_keeper_requests_total", endpoint=GET, status="200") == 2
        # No HTTP listener over stdio: no connection gauge.
        assert ("herald_http_connections_open", ()) not in after
    # Without metrics.port, stdio serves no metrics at all.
    with tempfile.TemporaryFile("w+") as errlog:
        params = StdioServerParameters(
            command=binaries["herald"],
            env=clean_env({"LOREBASE_URL": sandbox.url, "LOREBASE_DOMAIN": "supply"}),
        )
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                await s.call_tool("lorebase_schema", {})
        errlog.seek(0)
        assert "metrics on" not in errlog.read()


@pytest.mark.anyio
async def test_kb_entries_and_reloads(sandbox, http_herald_factory, tmp_path):
    root = tmp_path / "kb"
    (root / "notes").mkdir(parents=True)
    for n in range(3):
        (root / "notes" / f"n{n}.md").write_text(f"---\ntitle: Note {n}\n---\nharbor {n}\n")
    herald = http_herald_factory(sandbox.url, args=["--kb", str(root)])
    # The catalog is indexed in the background from startup (the handshake
    # never waits for it): under load the first scrape may come before it.
    deadline = time.monotonic() + 20
    while (first := scrape(herald.ready["metrics"]))[("herald_kb_entries", ())] != 3:
        assert first[("herald_kb_entries", ())] == 0, first
        assert time.monotonic() < deadline, "the catalog was never indexed"
        time.sleep(0.05)
    assert first[("herald_kb_reload_failures_total", ())] == 0
    loaded = first[("herald_kb_last_reload_timestamp_seconds", ())]
    assert abs(loaded - time.time()) < 120
    (root / "notes" / "n3.md").write_text("---\ntitle: Note 3\n---\nharbor 3\n")
    deadline = time.monotonic() + 20
    while (now := scrape(herald.ready["metrics"]))[("herald_kb_entries", ())] != 4:
        assert time.monotonic() < deadline, "the new entry was never indexed"
        time.sleep(0.1)
    assert now[("herald_kb_last_reload_timestamp_seconds", ())] > loaded

"""The audit trail and trace context: real calls through the MCP
SDK client, Keeper behind a proxy that records what it received, Herald's
stderr read as JSON lines; spans exported to an OTLP receiver the test
starts."""

from __future__ import annotations

import hashlib
import json
import re
import tempfile

import pytest
from conftest import clean_env, http_session, stop, text_of
from fake_services import OtlpReceiver, RecordingProxy
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c"
CALLER_SPAN = "b7ad6b7169203331"
TRACEPARENT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$")


def json_lines(text: str) -> list[dict]:
    """Every stderr line, each of which must be one JSON object."""
    lines = [line for line in text.splitlines() if line.strip()]
    parsed = [json.loads(line) for line in lines]
    assert all(isinstance(p, dict) for p in parsed)
    return parsed


def audit_lines(text: str) -> list[dict]:
    return [line for line in json_lines(text) if line.get("target") == "herald::audit"]


@pytest.fixture
def recorded_keeper(secured_sandbox):
    proxy = RecordingProxy(secured_sandbox.url)
    yield proxy
    proxy.close()


@pytest.mark.anyio
async def test_audit_lines_name_each_call_and_its_keeper_requests(
    secured_sandbox, recorded_keeper, http_herald_factory
):
    herald = http_herald_factory(recorded_keeper.url, args=["--log-format", "json"])
    key = secured_sandbox.keys["agt_reader"]
    caller = {"Authorization": f"Bearer {key}"}
    async with http_session(herald.url, headers=caller) as s:
        assert not (await s.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})).is_error
        missing = await s.call_tool("lorebase_get", {"ref": "Supplier/S-9999", "branch": "main"})
        assert missing.is_error
    traced = {**caller, "traceparent": f"00-{CALLER_TRACE}-{CALLER_SPAN}-01", "X-Request-Id": "req-audit-1"}
    async with http_session(herald.url, headers=traced) as s:
        assert not (await s.call_tool("lorebase_history", {"ref": "Supplier/S-1001", "limit": 1})).is_error
    async with http_session(herald.url) as anonymous:
        assert (await anonymous.call_tool("lorebase_schema", {})).is_error
    stop(herald.proc)
    herald.stderr.join()
    logs = herald.stderr.text()

    audit = audit_lines(logs)
    assert [(a["tool"], a["outcome"]) for a in audit] == [
        ("lorebase_get", "ok"),
        ("lorebase_get", "not-found"),
        ("lorebase_history", "ok"),
        ("lorebase_schema", "unauthorized"),
    ]
    fingerprint = "key:" + hashlib.sha256(key.encode()).hexdigest()[:12]
    for line in audit:
        assert set(line) >= {
            "timestamp", "level", "message", "request_id", "trace_id", "span_id", "tool",
            "domain", "branch", "outcome", "duration_ms", "keeper_requests", "caller",
        }, line
        assert line["level"] == "INFO"
        assert "arguments" not in line
    assert [a["caller"] for a in audit] == [fingerprint] * 3 + ["anonymous"]
    assert [(a["domain"], a["branch"]) for a in audit] == [
        ("supply", ""), ("supply", "main"), ("supply", ""), ("supply", ""),
    ]
    assert audit[3]["keeper_requests"] == 0 and audit[3]["duration_ms"] == 0

    # Each call's Keeper requests carry its trace and request id, and the
    # audit line names the same ids and counts the same requests.
    requests = recorded_keeper.api_requests()
    assert len(requests) == sum(a["keeper_requests"] for a in audit) == 3
    for line in audit[:3]:
        own = [r for r in requests if r["headers"]["x-request-id"] == line["request_id"]]
        assert len(own) == line["keeper_requests"] == 1, (line, requests)
        parent = TRACEPARENT.match(own[0]["headers"]["traceparent"])
        assert parent, own[0]["headers"]
        assert parent.group(1) == line["trace_id"]
        # Keeper's request is a span of its own under the call's span.
        assert parent.group(2) not in (line["span_id"], CALLER_SPAN)
    assert audit[2]["trace_id"] == CALLER_TRACE
    assert audit[2]["request_id"] == "req-audit-1"
    assert audit[0]["trace_id"] != audit[1]["trace_id"] != CALLER_TRACE
    assert "tracestate" not in requests[0]["headers"]

    # No key anywhere in the logs, and no argument value in an audit line.
    for secret in secured_sandbox.keys.values():
        assert secret not in logs
    assert "S-1001" not in json.dumps(audit) and "S-9999" not in json.dumps(audit)


@pytest.mark.anyio
async def test_argument_names_are_logged_only_when_asked(sandbox, http_herald_factory):
    herald = http_herald_factory(
        sandbox.url,
        args=["--log-format", "json"],
        env={"LOREBASE__HERALD__LOG__AUDIT_ARGUMENTS": "true"},
    )
    async with http_session(herald.url, headers={"Authorization": "Bearer any-key"}) as s:
        await s.call_tool("lorebase_get", {"ref": "Supplier/S-1001", "links": True})
    stop(herald.proc)
    herald.stderr.join()
    (line,) = audit_lines(herald.stderr.text())
    assert line["arguments"] == "ref,links"
    assert "S-1001" not in json.dumps(line) and "any-key" not in herald.stderr.text()


@pytest.mark.anyio
async def test_log_format_from_the_settings_and_text_by_default(sandbox, http_herald_factory):
    as_json = http_herald_factory(sandbox.url, env={"LOREBASE__HERALD__LOG__FORMAT": "json"})
    as_text = http_herald_factory(sandbox.url)
    for h in (as_json, as_text):
        async with http_session(h.url, headers={"Authorization": "Bearer k"}) as s:
            await s.call_tool("lorebase_schema", {})
        stop(h.proc)
        h.stderr.join()
    assert audit_lines(as_json.stderr.text())[0]["tool"] == "lorebase_schema"
    text = as_text.stderr.text()
    assert re.search(r"INFO herald::audit: tool call request_id=\w+ trace_id=[0-9a-f]{32} ", text), text
    assert "tool=lorebase_schema" in text and "outcome=ok" in text


@pytest.mark.anyio
async def test_stdio_continues_the_trace_of_meta(binaries, secured_sandbox, recorded_keeper):
    key = secured_sandbox.keys["agt_reader"]
    params = StdioServerParameters(
        command=binaries["herald"],
        args=["--log-format", "json"],
        env=clean_env({"LOREBASE_URL": recorded_keeper.url, "LOREBASE_DOMAIN": "supply", "LOREBASE_API_KEY": key}),
    )
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                meta = {"traceparent": f"00-{CALLER_TRACE}-{CALLER_SPAN}-01", "tracestate": "vendor=abc"}
                result = await s.call_tool("lorebase_get", {"ref": "Supplier/S-1001"}, meta=meta)
                assert not result.is_error, text_of(result)
        errlog.seek(0)
        logs = errlog.read()
    # The call's own Keeper request (over stdio Herald also reads the schema for the
    # tools' search hints when the tools are listed: mcp/domain_hints.rs).
    (request,) = [r for r in recorded_keeper.api_requests() if "/records/" in r["path"]]
    assert request["headers"]["traceparent"].startswith(f"00-{CALLER_TRACE}-")
    assert request["headers"]["tracestate"] == "vendor=abc"
    (line,) = audit_lines(logs)
    assert line["trace_id"] == CALLER_TRACE
    assert line["request_id"] == request["headers"]["x-request-id"]
    assert line["caller"] == "key:" + hashlib.sha256(key.encode()).hexdigest()[:12]
    assert key not in logs


@pytest.mark.anyio
async def test_spans_go_to_the_otlp_receiver(secured_sandbox, recorded_keeper, http_herald_factory):
    receiver = OtlpReceiver()
    try:
        herald = http_herald_factory(
            recorded_keeper.url,
            env={
                "LOREBASE__HERALD__TRACES__OTLP_ENDPOINT": receiver.url,
                "LOREBASE__HERALD__TRACES__SERVICE_NAME": "herald-under-test",
            },
        )
        key = secured_sandbox.keys["agt_reader"]
        headers = {"Authorization": f"Bearer {key}", "traceparent": f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"}
        async with http_session(herald.url, headers=headers) as s:
            assert not (await s.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})).is_error
        # A caller that does not sample: nothing exported for its call.
        unsampled = {**headers, "traceparent": f"00-{'1' * 32}-{CALLER_SPAN}-00"}
        async with http_session(herald.url, headers=unsampled) as s:
            assert not (await s.call_tool("lorebase_schema", {})).is_error
        # A call without a trace context starts a sampled one.
        async with http_session(herald.url, headers={"Authorization": f"Bearer {key}"}) as s:
            assert not (await s.call_tool("lorebase_branches", {})).is_error

        def complete(spans: list[dict]) -> bool:
            names = [s["name"] for s in spans]
            return "tools/call lorebase_get" in names and "tools/call lorebase_branches" in names and len(spans) >= 4

        spans = receiver.wait_for(complete)
        assert all(ct.startswith("application/json") for ct in receiver.content_types)
        assert not [s for s in spans if s["traceId"] == "1" * 32]
        call = next(s for s in spans if s["name"] == "tools/call lorebase_get")
        assert call["traceId"] == CALLER_TRACE and call["parentSpanId"] == CALLER_SPAN
        assert call["kind"] == 2 and call["status"] == {"code": 0}
        attributes = {a["key"]: a["value"] for a in call["attributes"]}
        assert attributes["gen_ai.tool.name"] == {"stringValue": "lorebase_get"}
        assert attributes["lorebase.outcome"] == {"stringValue": "ok"}
        assert call["_resource"]["service.name"] == {"stringValue": "herald-under-test"}
        (keeper_span,) = [s for s in spans if s.get("parentSpanId") == call["spanId"]]
        assert keeper_span["name"] == "GET /kinds/{kind}/records/{key}" and keeper_span["kind"] == 3
        keeper_attributes = {a["key"]: a["value"] for a in keeper_span["attributes"]}
        assert keeper_attributes["http.response.status_code"] == {"intValue": "200"}
        assert int(keeper_span["startTimeUnixNano"]) <= int(keeper_span["endTimeUnixNano"])
        # The span Keeper was told about is the exported one.
        sent = [r for r in recorded_keeper.api_requests() if r["path"].endswith("/records/S-1001")]
        assert sent[0]["headers"]["traceparent"] == f"00-{CALLER_TRACE}-{keeper_span['spanId']}-01"
        started = next(s for s in spans if s["name"] == "tools/call lorebase_branches")
        assert "parentSpanId" not in started and started["traceId"] != CALLER_TRACE
    finally:
        receiver.close()


@pytest.mark.anyio
async def test_a_resource_read_is_audited_as_a_resource_read(sandbox, http_herald_factory):
    import urllib.request

    herald = http_herald_factory(sandbox.url, args=["--log-format", "json"])
    async with http_session(herald.url, headers={"Authorization": "Bearer k"}) as s:
        record = await s.read_resource("lorebase://supply/Supplier/S-1001")
        assert "Supplier/S-1001" in record.contents[0].text
        await s.read_resource("lorebase://supply/schema")
        with pytest.raises(Exception):
            await s.read_resource("lorebase://supply/Supplier/S-9999")
        assert not (await s.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})).is_error
    with urllib.request.urlopen(herald.ready["metrics"], timeout=10) as r:
        metrics = r.read().decode()
    # Only the real tool call is counted as one.
    counted = [line for line in metrics.split("\n") if line.startswith("herald_tool_calls_total{")]
    assert counted == ['herald_tool_calls_total{tool="lorebase_get",outcome="ok"} 1'], counted
    stop(herald.proc)
    herald.stderr.join()
    audit = audit_lines(herald.stderr.text())
    reads = [a for a in audit if a["message"] == "resource read"]
    calls = [a for a in audit if a["message"] == "tool call"]
    assert [(r["resource"], r["domain"], r["outcome"]) for r in reads] == [
        ("lorebase://{domain}/{kind}/{key}", "supply", "ok"),
        ("lorebase://{domain}/schema", "supply", "ok"),
        ("lorebase://{domain}/{kind}/{key}", "supply", "not-found"),
    ], reads
    assert all(r["keeper_requests"] >= 1 and "tool" not in r for r in reads), reads
    # Only the real tool call is a tool call; no Record key is logged.
    assert [(c["tool"], c["outcome"]) for c in calls] == [("lorebase_get", "ok")], calls
    assert "S-1001" not in json.dumps(reads) and "S-9999" not in json.dumps(reads)

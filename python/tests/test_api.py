"""The Python API of the installed wheel against the sandbox: every tool, the
result shapes, per-call keys and the typed exceptions."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path
from typing import Any, Dict

import pytest

import lorebase_herald
from lorebase_herald import (
    BadArgumentsError,
    Herald,
    HeraldError,
    SettingsError,
    ToolResult,
    UnknownToolError,
)

SUPPLIER = "Supplier/S-1001"

#: One working call per tool (the sandbox's `supply` Domain, read as agt_reader).
CALLS: Dict[str, Dict[str, Any]] = {
    "lorebase_context": {"records": [SUPPLIER], "depth": 1, "token_budget": 2000},
    "lorebase_schema": {"kinds": ["Supplier"]},
    "lorebase_get": {"ref": SUPPLIER},
    "lorebase_resolve": {"text": "supplier risk"},
    "lorebase_query": {"query": {"kind": "Supplier", "limit": 5}},
    "lorebase_search": {"query": "Kavsen Alloys", "limit": 5},
    "lorebase_neighborhood": {"seeds": [SUPPLIER], "depth": 1},
    "lorebase_explain": {"ref": SUPPLIER},
    "lorebase_history": {"ref": SUPPLIER, "limit": 5},
    "lorebase_lineage": {"ref": SUPPLIER},
    "lorebase_changes": {"limit": 5},
    "lorebase_diff": {},  # revisions filled in from lorebase_changes
    "lorebase_execute": {},  # see test_execute_dry_run_with_a_writer_key
    "lorebase_branches": {},
}


def test_the_installed_wheel_is_under_test() -> None:
    installed = Path(lorebase_herald.__file__).resolve()
    assert Path(sysconfig.get_paths()["purelib"]).resolve() in installed.parents
    assert lorebase_herald.__version__


def test_list_tools_gives_plain_definitions(herald: Herald) -> None:
    tools = herald.list_tools()
    names = [tool["name"] for tool in tools]
    assert names == list(CALLS), "the table order of the 14 tools"
    for tool in tools:
        assert isinstance(tool["description"], str) and tool["description"]
        assert tool["inputSchema"]["type"] == "object"
        assert set(tool["annotations"]) >= {"readOnlyHint", "destructiveHint"}
        json.dumps(tool)  # plain data
    read_only = {tool["name"] for tool in tools if tool["annotations"]["readOnlyHint"]}
    assert read_only == set(CALLS) - {"lorebase_execute"}
    tools[0]["name"] = "changed"
    assert herald.list_tools()[0]["name"] == "lorebase_context", "a fresh copy each time"


def _revisions(herald: Herald) -> Dict[str, str]:
    changes = herald.call_tool("lorebase_changes", {"limit": 2, "format": "json"})
    assert not changes.is_error, changes.text
    assert changes.structured is not None
    revisions = changes.structured["entries"]
    assert len(revisions) >= 2, changes.text
    return {"from_revision": revisions[1]["revision"], "to_revision": revisions[0]["revision"]}


@pytest.mark.parametrize("name", [n for n in CALLS if n != "lorebase_execute"])
def test_every_read_tool_answers_in_text_and_json(herald: Herald, name: str) -> None:
    arguments = dict(CALLS[name])
    if name == "lorebase_diff":
        arguments.update(_revisions(herald))
    text = herald.call_tool(name, arguments)
    assert isinstance(text, ToolResult)
    assert text.is_error is False, text.text
    assert text.text.strip()
    assert str(text) == text.text
    # docs/tools.md, "Results": text is text alone; json is also sent as structured content.
    assert text.structured is None, "a text answer is its text alone"

    as_json = herald.call_tool(name, {**arguments, "format": "json"})
    assert as_json.is_error is False, as_json.text
    assert as_json.structured == json.loads(as_json.text)


def test_execute_dry_run_with_a_writer_key(herald: Herald, writer_key: str, reader_key: str) -> None:
    arguments = {"operation": "update_supplier", "parameters": {"supplier_code": "S-1001", "risk_score": 42}}
    as_writer = herald.call_tool("lorebase_execute", arguments, api_key=writer_key)
    assert as_writer.is_error is False, as_writer.text
    assert "dry_run" in as_writer.text and "risk_score: 90 -> 42" in as_writer.text
    as_reader = herald.call_tool("lorebase_execute", arguments, api_key=reader_key)
    assert as_reader.is_error is True
    assert as_reader.text.startswith("[forbidden]"), as_reader.text


def test_tool_failures_are_results_not_exceptions(herald: Herald) -> None:
    missing = herald.call_tool("lorebase_get", {"ref": "Supplier/NO-SUCH-KEY"})
    assert missing.is_error is True
    assert missing.text.startswith("[not-found]"), missing.text
    assert "next:" in missing.text
    assert missing.structured is None


def test_per_call_key_replaces_the_configured_one(herald: Herald) -> None:
    refused = herald.call_tool("lorebase_get", {"ref": SUPPLIER}, api_key="lbk_not_a_real_key_0000")
    assert refused.is_error is True
    assert refused.text.startswith("[unauthorized]"), refused.text
    assert "lbk_not_a_real_key_0000" not in refused.text


def test_settings_come_from_keywords_and_environment(
    sandbox: Any, reader_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOREBASE_URL", sandbox.url)
    monkeypatch.setenv("LOREBASE_API_KEY", reader_key)
    monkeypatch.setenv("LOREBASE_DOMAIN", "supply")
    from_env = Herald()
    assert from_env.base_url == sandbox.url and from_env.domain == "supply"
    assert not from_env.call_tool("lorebase_get", {"ref": SUPPLIER}).is_error

    capped = Herald(output={"max_chars": 500}, tools={"read_only": True})
    assert "lorebase_execute" not in [tool["name"] for tool in capped.list_tools()]
    answer = capped.call_tool("lorebase_schema", {"detail": "full"})
    assert len(answer.text) <= 500, "output capped (the truncation marker counts)"
    assert "truncated" in answer.text or "more" in answer.text


def test_repr_never_shows_the_key(herald: Herald, reader_key: str) -> None:
    assert reader_key not in repr(herald)
    assert reader_key not in repr(herald._native)
    assert "supply" in repr(herald)


def test_exception_shapes(herald: Herald) -> None:
    with pytest.raises(UnknownToolError) as unknown:
        herald.call_tool("lorebase_nothing", {})
    assert unknown.value.code == "unknown-tool"
    assert isinstance(unknown.value, HeraldError) and isinstance(unknown.value, LookupError)
    assert str(unknown.value).startswith("[unknown-tool] ")

    for bad in ([1, 2], "text", 3):
        with pytest.raises(BadArgumentsError) as not_object:
            herald.call_tool("lorebase_get", bad)  # type: ignore[arg-type]
        assert not_object.value.code == "bad-arguments"
        assert isinstance(not_object.value, TypeError)
    with pytest.raises(BadArgumentsError):
        herald.call_tool("lorebase_get", {"ref": object()})
    with pytest.raises(BadArgumentsError):
        herald.call_tool("lorebase_get", {"ref": float("nan")})


def test_settings_errors_name_the_key(sandbox: Any) -> None:
    with pytest.raises(SettingsError) as unknown:
        Herald(url=sandbox.url, outptu={"max_chars": 10})
    assert unknown.value.code == "invalid-settings"
    assert "outptu" in str(unknown.value) and "options" in str(unknown.value)
    assert isinstance(unknown.value, ValueError)

    with pytest.raises(SettingsError) as wrong_type:
        Herald(url=sandbox.url, output={"max_chars": "many"})
    assert "output.max_chars" in str(wrong_type.value)

    with pytest.raises(SettingsError) as secret:
        Herald(url=sandbox.url, api_key="secret://env/LOREBASE_TEST_NO_SUCH_VARIABLE")
    assert "LOREBASE_TEST_NO_SUCH_VARIABLE" in str(secret.value)

    with pytest.raises(SettingsError):
        Herald(url="http://a", keeper={"base_url": "http://b"})


def test_keywords_come_from_the_settings_table() -> None:
    """The shortcuts are the Rust settings table's (``config::aliases``), handed over by the binding."""
    from lorebase_herald import _native

    keywords = _native.setting_keywords()
    assert dict(keywords) == {"url": "keeper.base_url", "base_url": "keeper.base_url", "api_key": "keeper.api_key"}
    for keyword, key in keywords:
        if key == "keeper.base_url":
            assert Herald(**{keyword: "http://127.0.0.1:9"}).base_url == "http://127.0.0.1:9"
        else:
            with pytest.raises(SettingsError) as refused:
                Herald(**{keyword: "secret://env/LOREBASE_TEST_NO_SUCH_VARIABLE"})
            assert key in str(refused.value)


def test_kb_tools_join_with_a_catalog(tmp_path: Path) -> None:
    (tmp_path / "runbooks").mkdir()
    (tmp_path / "runbooks" / "harbor.md").write_text(
        "---\ntitle: Harbor registry full\ntype: runbook\ntags: [harbor, disk]\n---\n"
        "When the harbor registry disk fills up, run garbage collection.\n"
    )
    herald = Herald(url="http://127.0.0.1:9", kb={"dir": tmp_path})
    names = [tool["name"] for tool in herald.list_tools()]
    assert names[-2:] == ["kb_search", "kb_get"]
    found = herald.call_tool("kb_search", {"query": "harbor garbage collection", "format": "json"})
    assert not found.is_error, found.text
    assert "runbooks/harbor.md" in found.text
    entry = herald.call_tool("kb_get", {"path": "runbooks/harbor.md"})
    assert not entry.is_error and "garbage collection" in entry.text
    escape = herald.call_tool("kb_get", {"path": "../../etc/passwd"})
    assert escape.is_error

    with pytest.raises(SettingsError):
        Herald(url="http://127.0.0.1:9", kb={"dir": tmp_path / "missing"})

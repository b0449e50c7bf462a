"""What the model reads in the most used coding hosts. Claude Code, Codex and
opencode hand the model a result's structuredContent when it has one, and its
text otherwise (anthropics/claude-code#79944, anomalyco/opencode#32074). This
test plays such a host over stdio: with the default settings it reads the
compact text format for every tool (the 14 Lorebase tools, kb_search and
kb_get), and JSON only where the call asked for `format: "json"`; against
the sandbox Keeper and against it as a newer Keeper (`--newer-keeper`), whose
new values the model then reads as they are, in the text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calls import TOOL_NAMES, tool_calls
from conftest import newer_keeper, start_sandbox, stdio_session, stop, text_of

pytestmark = pytest.mark.anyio

KB_CALLS = [
    {"tool": "kb_search", "arguments": {"query": "harbor-core"}, "expect": "runbooks/harbor.md"},
    {"tool": "kb_get", "arguments": {"path": "runbooks/harbor.md"}, "expect": "Raise the memory limit"},
]


def model_view(result) -> str:
    """What such a host hands the model: structuredContent when present, else the text."""
    if result.structured_content is not None:
        return json.dumps(result.structured_content)
    return text_of(result)


@pytest.fixture(scope="module", params=["as configured", "newer"])
def keeper(request, binaries, secured_sandbox):
    """The session's secured sandbox (a newer Keeper under
    HERALD_TEST_NEWER_KEEPER=1), then one started as a newer Keeper."""
    if request.param == "as configured":
        yield secured_sandbox
        return
    if newer_keeper():
        pytest.skip("this pass's sandbox is already a newer Keeper")
    s = start_sandbox(binaries, "api_key", newer=True)
    yield s
    stop(s.proc)


@pytest.fixture
def calls(keeper):
    key = keeper.keys["usr_steward"]
    return tool_calls(keeper.url, {"Authorization": f"Bearer {key}"})


@pytest.fixture
def kb_dir(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    (root / "runbooks").mkdir(parents=True)
    (root / "runbooks" / "harbor.md").write_text(
        "---\ntitle: harbor-core OOMKilled\ntags: [harbor]\n---\n## Fix\nRaise the memory limit.\n"
    )
    return root


def session_env(sandbox, kb_dir: Path, **extra: str) -> dict[str, str]:
    return {"LOREBASE_API_KEY": sandbox.keys["usr_steward"], "LOREBASE__HERALD__KB__DIR": str(kb_dir), **extra}


async def test_with_the_defaults_the_model_reads_the_compact_text_of_every_tool(binaries, keeper, calls, kb_dir):
    async with stdio_session(binaries, keeper.url, env=session_env(keeper, kb_dir)) as session:
        names = [t.name for t in (await session.list_tools()).tools]
        assert names == [*TOOL_NAMES, "kb_search", "kb_get"]
        seen, views = [], []
        for call in [*calls, *KB_CALLS]:
            result = await session.call_tool(call["tool"], call["arguments"])
            view = model_view(result)
            assert not result.is_error, f"{call['tool']}: {view}"
            assert view == text_of(result), f"{call['tool']}: the host shows structuredContent"
            assert not view.lstrip().startswith("{"), f"{call['tool']} reads JSON: {view[:200]}"
            assert call["expect"] in view, f"{call['tool']}: {view}"
            seen.append(call["tool"])
            views.append(view)

            # Asked for JSON, the model reads the JSON (as structuredContent).
            as_json = await session.call_tool(call["tool"], {**call["arguments"], "format": "json"})
            assert json.loads(model_view(as_json)) == json.loads(text_of(as_json)), call["tool"]
        assert sorted(seen) == sorted(names), "every tool was read"
    if keeper.newer is not None:
        # A newer Keeper's values reach the model as they are, in the text.
        shown = "\n".join(views)
        assert keeper.newer["added_signal"]["message"] in shown, shown
        assert any(r["to"] in shown for r in keeper.newer["renamed"]), shown


async def test_with_output_schemas_on_such_a_host_reads_json(binaries, secured_sandbox, kb_dir):
    """The opt-in's trade-off, as docs/tools.md says: MCP then requires
    structuredContent on every success, and these hosts show it."""
    env = session_env(secured_sandbox, kb_dir, LOREBASE__HERALD__OUTPUT__SCHEMAS="true")
    async with stdio_session(binaries, secured_sandbox.url, env=env) as session:
        await session.list_tools()
        result = await session.call_tool("lorebase_get", {"ref": "Supplier/S-1001"})
        assert text_of(result).startswith("Supplier/S-1001 ")
        assert json.loads(model_view(result))["ref"] == "Supplier/S-1001"

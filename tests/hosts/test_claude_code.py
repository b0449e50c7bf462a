"""Claude Code (the pinned release, tests/hosts/package.json) against Herald over stdio and
Streamable HTTP, and against probe_server.py: what the model is shown and sent back.

Claude Code 2.1.332 defers MCP tools behind its ToolSearch: the first request lists Herald's
tools by name only (in the system prompt, "The following deferred tools are now available via
ToolSearch"); the model's `ToolSearch {"query": "select:A,B"}` comes back as `tool_reference`s
and the next request carries those tools' definitions (with `defer_loading: true`).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from conftest import HERALD_TOOLS, assert_s1001, runs_of, tee_instructions

DEFERRED_HEADER = "The following deferred tools are now available via ToolSearch"
TRUNCATED = "\u2026 [truncated]"


def system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, str):
        return system
    return "\n".join(b.get("text", "") for b in system or [])


def prompt_texts(body: dict[str, Any]) -> list[str]:
    """The texts of the system prompt and of every message (2.1.332 puts the deferred tools and the
    server instructions in a `system` message of `messages`, not in `system`)."""
    texts = [system_text(body)]
    for m in body.get("messages") or []:
        content = m.get("content")
        texts += [content] if isinstance(content, str) else [b.get("text", "") for b in content if isinstance(b, dict)]
    return texts


def instructions_section(body: dict[str, Any], server: str) -> str:
    """What follows `## SERVER` under "# MCP Server Instructions"."""
    for text in prompt_texts(body):
        if "# MCP Server Instructions" in text and f"\n## {server}\n" in text:
            return text.split(f"\n## {server}\n", 1)[1]
    raise AssertionError(f"no instructions of {server} in the request")


def deferred_names(body: dict[str, Any]) -> list[str]:
    """The names listed as deferred in a request."""
    for text in prompt_texts(body):
        i = text.find(DEFERRED_HEADER)
        if i >= 0:
            block = text[i:].split("\n\n", 1)[0]
            return [line.strip() for line in block.splitlines()[1:] if line.strip()]
    return []


def tool_exchanges(body: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each tool_use of the conversation with the tool_result the host sent back for it."""
    uses, results = {}, {}
    for m in body.get("messages") or []:
        for b in m.get("content") if isinstance(m.get("content"), list) else []:
            if b.get("type") == "tool_use":
                uses[b["id"]] = b
            elif b.get("type") == "tool_result":
                results[b["tool_use_id"]] = b
    return [(u, results[i]) for i, u in uses.items() if i in results]


def result_text(result: dict[str, Any]) -> str:
    content = result.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if b.get("type") == "text")


def references(result: dict[str, Any]) -> list[str]:
    """The tools a ToolSearch result hands back (`tool_reference` blocks), in its order."""
    return [b.get("tool_name") for b in result.get("content") or [] if isinstance(b, dict) and b.get("type") == "tool_reference"]


def exchange(run, name: str, args: dict[str, Any]) -> dict[str, Any]:
    last = run.main_requests()[-1]
    for use, result in tool_exchanges(last):
        if use["name"] == name and use["input"] == args:
            return result
    raise AssertionError(f"no tool_result for {name} {args} in the last request\n{run.describe()}")


claude = runs_of("claude")


def test_herald_connects_and_lists_every_tool(claude):
    run, _ = claude
    init = next(e for e in run.events() if e.get("type") == "system" and e.get("subtype") == "init")
    assert init["mcp_servers"] == [{"name": "lorebase", "status": "connected", "source": "dynamic"}] or \
        [s["status"] for s in init["mcp_servers"]] == ["connected"], init["mcp_servers"]
    assert set(f"mcp__lorebase__{t}" for t in HERALD_TOOLS) <= set(init["tools"])


def test_every_tool_reaches_the_model_deferred_then_loaded(claude, herald_tools):
    """The first request names all 14 tools (deferred, or listed directly); once the model loads
    them with ToolSearch, each definition reaches it whole: description and schema unchanged."""
    run, _ = claude
    first, last = run.main_requests()[0], run.main_requests()[-1]
    direct = {t["name"] for t in first["tools"]}
    named = set(deferred_names(first)) | direct
    missing = [t for t in HERALD_TOOLS if f"mcp__lorebase__{t}" not in named]
    assert not missing, f"not shown to the model: {missing}"
    loaded = {t["name"]: t for t in last["tools"]}
    for name in HERALD_TOOLS:
        sent = loaded.get(f"mcp__lorebase__{name}")
        assert sent is not None, f"{name} not loaded after ToolSearch select"
        assert sent["description"] == herald_tools[name]["description"], name
        assert sent["input_schema"] == herald_tools[name]["inputSchema"], name


def test_always_load_hint_lists_context_directly(claude):
    """With `_meta["anthropic/alwaysLoad"]: true` on lorebase_context, Claude Code sends
    it in the first request's `tools`, not deferred; the other 13 stay deferred."""
    run, _ = claude
    first = run.main_requests()[0]
    direct = {t["name"]: t for t in first["tools"]}
    context = direct.get("mcp__lorebase__lorebase_context")
    assert context is not None and not context.get("defer_loading"), \
        f"lorebase_context is deferred: {sorted(n for n in direct if n.startswith('mcp__'))}"
    others = [f"mcp__lorebase__{t}" for t in HERALD_TOOLS if t != "lorebase_context"]
    assert not [n for n in others if n in direct and not direct[n].get("defer_loading")]
    assert set(others) <= set(deferred_names(first))
    assert "mcp__lorebase__lorebase_context" not in deferred_names(first)


def test_server_instructions_reach_the_model_in_full(claude):
    run, log = claude
    section = instructions_section(run.main_requests()[0], "lorebase")
    assert section.startswith("Lorebase Herald"), section[:200]
    assert TRUNCATED not in section.split("\n\n", 1)[0]
    if log is not None:
        assert section.startswith(tee_instructions(log))


def test_a_call_reaches_herald_and_its_compact_text_reaches_the_model(claude):
    run, log = claude
    result = exchange(run, "mcp__lorebase__lorebase_get", {"ref": "Supplier/S-1001"})
    assert_s1001(result_text(result), log)
    assert not result.get("is_error")


def test_a_tool_error_reaches_the_model_code_first(claude):
    run, _ = claude
    result = exchange(run, "mcp__lorebase__lorebase_get", {"ref": "Nope/1"})
    text = result_text(result)
    assert text.startswith("[not-found] "), text
    assert result.get("is_error") is True, result


def test_an_unknown_argument_is_refused_by_herald_code_first(claude):
    """Claude Code does not check arguments against the schema; Herald refuses `limit` on lorebase_get."""
    run, log = claude
    result = exchange(run, "mcp__lorebase__lorebase_get", {"ref": "Supplier/S-1001", "limit": 3})
    text = result_text(result)
    assert text.startswith("[validation-failed] "), text
    assert "limit" in text
    assert result.get("is_error") is True, result


# What an agent would search for, and the Herald tool Claude Code's ToolSearch (keywords over
# names, descriptions and `anthropic/searchHint`; 5 results by default, Claude Code's own tools
# among them) must hand back first of Herald's. "update a record" needs the search hints: the
# descriptions alone do not return lorebase_execute for it.
SEARCHES = {
    "update a record": "lorebase_execute",
    "read the values of supplier S-1001": "lorebase_get",
    "who changed this record": "lorebase_history",
    "count records": "lorebase_query",
}


@pytest.mark.parametrize("query", SEARCHES)
def test_tool_search_by_words_finds_the_right_tool(claude, query):
    run, _ = claude
    refs = references(exchange(run, "ToolSearch", {"query": query}))
    herald = [r for r in refs if r.startswith("mcp__lorebase__")]
    assert herald[:1] == [f"mcp__lorebase__{SEARCHES[query]}"], f"ToolSearch {query!r} -> {refs}"


# --- probe_server.py: what Claude Code does with hints, long texts and schema keywords --------------
@pytest.fixture
def probe(runs):
    return runs.get("claude-probe")[0]


def test_probe_always_load_meta_is_honoured(probe):
    first = probe.main_requests()[0]
    direct = {t["name"]: t for t in first["tools"]}
    assert "mcp__probe__probe_always" in direct and "defer_loading" not in direct["mcp__probe__probe_always"]
    assert "mcp__probe__probe_plain" not in direct
    deferred = deferred_names(first)
    assert "mcp__probe__probe_plain" in deferred and "mcp__probe__probe_always" not in deferred


def test_probe_instructions_are_cut_at_4096_characters(probe):
    section = instructions_section(probe.main_requests()[0], "probe")
    kept = section.split(TRUNCATED, 1)[0]
    assert TRUNCATED in section
    assert len(kept) == 4096 and re.fullmatch(r"(<\d{4}>)*<\d{0,4}", kept), kept[-40:]


def test_probe_loaded_description_is_cut_at_16384_and_schema_kept(probe):
    last = {t["name"]: t for t in probe.main_requests()[-1]["tools"]}
    desc = last["mcp__probe__probe_long"]["description"]
    assert desc.endswith(TRUNCATED)
    assert len(desc) == 16384 + len(TRUNCATED), len(desc)
    import probe_server

    bounds = next(t for t in probe_server.TOOLS if t["name"] == "probe_bounds")
    assert last["mcp__probe__probe_bounds"]["input_schema"] == bounds["inputSchema"]


def test_probe_always_loaded_description_is_cut_at_4096(probe):
    first = {t["name"]: t for t in probe.main_requests()[0]["tools"]}
    desc = first["mcp__probe__probe_always_long"]["description"]
    assert desc.endswith(TRUNCATED)
    assert len(desc) == 4096 + len(TRUNCATED), len(desc)


def test_probe_search_hint_is_matched_by_tool_search(probe):
    """`_meta["anthropic/searchHint"]` words find a tool whose name and description lack them."""
    result = exchange(probe, "ToolSearch", {"query": "zebra"})
    assert references(result) == ["mcp__probe__probe_hinted"], result

"""Herald's tools are found by the hosts' own tool search (docs/hosts.md): one session of
real Claude Code, and one of real Codex CLI with a catalog model, each play every intent of
intents.py as a word search, and the answers come back in the host's own rank order.

- Claude Code 2.1.332 ranks its own deferred tools (CronList, ListMcpResourcesTool, WebSearch,
  Monitor...) with the MCP ones, on name parts, `_meta["anthropic/searchHint"]` and descriptions:
  each intent's tool must be in the top 3 of the `tool_reference`s (lorebase_context, always
  loaded, is never returned and counts as found), and first for at least 80% of them.
- Codex 0.171 with a catalog model defers the MCP tools behind a client-side `tool_search` (BM25
  over the deferred tools' names and descriptions; it reads no `_meta`): each intent's tool in the
  top 3 of the `tool_search_output` for at least 70% of them, first for 40%; the namespace it
  returns opens with the instructions' first line (the workflow's core).

HOSTS_DUMP=DIR also writes each intent's answer to DIR/tool-search-ranks.json.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from intents import DOMAIN_ONLY, INTENTS
from test_claude_code import exchange, references

ALWAYS_LOADED = "lorebase_context"


def claude_ranks(run) -> dict[str, list[str]]:
    """Each intent's ToolSearch answer, Herald's names without the `mcp__lorebase__` prefix."""
    return {q: [r.removeprefix("mcp__lorebase__") for r in references(exchange(run, "ToolSearch", {"query": q}))]
            for q, _ in INTENTS}


def codex_ranks(run) -> dict[str, list[str]]:
    """Each intent's tool_search answer: the tools of the namespaces returned, in order."""
    items = run.main_requests()[-1]["input"]
    calls = {i["call_id"]: i["arguments"]["query"] for i in items if i.get("type") == "tool_search_call"}
    ranks: dict[str, list[str]] = {}
    for i in items:
        if i.get("type") == "tool_search_output" and i.get("call_id") in calls:
            ranks[calls[i["call_id"]]] = [t["name"] for ns in i.get("tools") or [] for t in
                                          (ns.get("tools") or [] if ns.get("type") == "namespace" else [ns])]
    missing = [q for q, _ in INTENTS if q not in ranks]
    assert not missing, f"no tool_search_output for {missing}\n{run.describe()}"
    return ranks


def tally(ranks: dict[str, list[str]], loaded: set[str]) -> tuple[list[str], list[str]]:
    """The intents whose tool is not first, and those whose tool is not in the top 3."""
    not_first, not_top3 = [], []
    for query, tool in INTENTS:
        if tool in loaded:
            continue
        got = ranks[query]
        if got[:1] != [tool]:
            not_first.append(f"{query!r} -> {tool}: {got[:5]}")
        if tool not in got[:3]:
            not_top3.append(f"{query!r} -> {tool}: {got[:5]}")
    return not_first, not_top3


def dump(host: str, ranks: dict[str, list[str]]) -> None:
    out = os.environ.get("HOSTS_DUMP")
    if out:
        path = Path(out) / "tool-search-ranks.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        data = json.loads(path.read_text()) if path.exists() else {}
        data[host] = {q: {"want": t, "got": ranks[q]} for q, t in INTENTS}
        path.write_text(json.dumps(data, indent=1))


@pytest.fixture(scope="module")
def claude_search(runs):
    return runs.get("claude-search")[0]


@pytest.fixture(scope="module")
def codex_search(runs):
    return runs.get("codex-search")[0]


def test_the_intent_set_is_large_and_names_every_deferred_tool():
    tools = {t for _, t in INTENTS}
    assert len(INTENTS) >= 40
    assert len(tools) == 16, tools


def test_claude_code_tool_search_puts_herald_tools_first(claude_search):
    ranks = claude_ranks(claude_search)
    dump("claude", ranks)
    not_first, not_top3 = tally(ranks, {ALWAYS_LOADED})
    first = len(INTENTS) - len(not_first)
    assert not not_top3, "not in Claude Code's top 3:\n" + "\n".join(not_top3)
    assert first >= 0.8 * len(INTENTS), f"first for {first}/{len(INTENTS)}; not first:\n" + "\n".join(not_first)


def test_claude_code_search_hints_carry_the_domains_words(claude_search):
    """The hints carry the Domain's words, read from Keeper's schema with the configured key: a
    search of a Kind's plural alone finds lorebase_query, a Relation's words lorebase_neighborhood
    (in the top 3, before every other Herald tool)."""
    for query, tool in DOMAIN_ONLY:
        refs = [r.removeprefix("mcp__lorebase__") for r in references(exchange(claude_search, "ToolSearch", {"query": query}))]
        herald = [r for r in refs if not r[:1].isupper()]
        assert tool in refs[:3] and herald[:1] == [tool], (query, refs)


def test_codex_tool_search_finds_herald_tools(codex_search):
    """Codex's BM25 reads only names and descriptions (no `_meta`), so its ranks move only with the
    descriptions, which the tool list's token budget holds: a floor at what they reach (docs/hosts.md)."""
    ranks = codex_ranks(codex_search)
    dump("codex", ranks)
    not_first, not_top3 = tally(ranks, set())
    first, top3 = len(INTENTS) - len(not_first), len(INTENTS) - len(not_top3)
    assert top3 >= 0.7 * len(INTENTS), f"top 3 for {top3}/{len(INTENTS)}; not:\n" + "\n".join(not_top3)
    assert first >= 0.4 * len(INTENTS), f"first for {first}/{len(INTENTS)}; not first:\n" + "\n".join(not_first)


def test_codex_tool_search_answer_opens_with_the_workflow(codex_search):
    """What a found namespace brings the model opens with the instructions' first line: the start
    and the one write, with its dry run and expected_head."""
    items = codex_search.main_requests()[-1]["input"]
    output = next(i for i in items if i.get("type") == "tool_search_output" and i.get("tools"))
    ns = next(t for t in output["tools"] if t.get("type") == "namespace" and t.get("name") == "mcp__lorebase")
    first = ns["description"].split("\n", 1)[0]
    for needed in ("Start every task with lorebase_context", "lorebase_execute is the only write",
                   "dry run first", "expected_head"):
        assert needed in first, (needed, first)


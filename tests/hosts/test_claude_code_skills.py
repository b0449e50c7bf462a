"""Herald's skills (the MCP Skills extension) and Claude Code 2.1.332, over stdio through tee.py:
what reaches Herald, and what the scripted model is shown and sent back.

What holds today: Claude Code speaks 2026-07-28 to Herald, whose `server/discover` answer
declares `io.modelcontextprotocol/skills`; and a reference file of the `lorebase` skill, asked
for by the model by its address (Claude Code's ReadMcpResourceTool), reaches the model as Herald
served it.

What does not: Claude Code 2.1.332 sends no `skills/list` to Herald, so its model is shown no
Herald skill and the Skill tool answers "Unknown skill: lorebase:lorebase". In its bundled code,
MCP skill discovery runs only under a feature flag fetched from Anthropic (off by default, and
not settable from the environment in the public build), and even then a policy check keeps the
skills of directly connected MCP servers from sessions that hold neither a Pro or Max
subscription nor their organization's policy, as a session on an API key and a model endpoint
of its own does. The three tests of that part are strict expected failures: when a Claude Code
release lists Herald's skills here, they pass, and the suite says so (docs/hosts.md). The other
hosts' stdio runs are checked too: offered the extension, they ask for no skill.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import SKILL_REFERENCE
from test_claude_code import prompt_texts, result_text, tool_exchanges

SKILLS = "io.modelcontextprotocol/skills"
NOT_LISTED = ("Claude Code 2.1.332 sends no skills/list: its MCP skill discovery is behind a feature flag "
              "and a policy check that an API-key session passes only with api.anthropic.com as its "
              "model endpoint")


@pytest.fixture
def skills_run(runs):
    return runs.get("claude-skills")


def tee_entries(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def herald_requests(log: Path, method: str) -> list[dict[str, Any]]:
    return [e["msg"] for e in tee_entries(log)
            if e["dir"] == "in" and isinstance(e["msg"], dict) and e["msg"].get("method") == method]


def herald_answer(log: Path, request_id: Any) -> dict[str, Any]:
    return next(e["msg"] for e in tee_entries(log)
                if e["dir"] == "out" and isinstance(e["msg"], dict) and e["msg"].get("id") == request_id)


def test_herald_declares_its_skills_to_claude_code_over_2026_07_28(skills_run):
    _, log = skills_run
    (discover,) = herald_requests(log, "server/discover")
    meta = discover["params"]["_meta"]
    assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28", meta
    capabilities = herald_answer(log, discover["id"])["result"]["capabilities"]
    assert SKILLS in capabilities.get("extensions", {}), capabilities
    assert "resources" in capabilities


def test_a_reference_file_is_loaded_on_the_models_request(skills_run):
    """The model asks for a reference file by its address; Herald's resources/read answer
    reaches the model whole."""
    run, log = skills_run
    (read,) = [r for r in herald_requests(log, "resources/read") if r["params"]["uri"] == SKILL_REFERENCE]
    (served,) = herald_answer(log, read["id"])["result"]["contents"]
    assert served["text"].startswith("# The query DSL"), served["text"][:200]
    last = run.main_requests()[-1]
    (result,) = [r for u, r in tool_exchanges(last) if u["name"] == "ReadMcpResourceTool"]
    shown = json.loads(result_text(result))
    assert shown["contents"][0]["text"] == served["text"]


@pytest.mark.xfail(strict=True, reason=NOT_LISTED)
def test_claude_code_lists_heralds_skills(skills_run):
    _, log = skills_run
    assert herald_requests(log, "skills/list"), "no skills/list reached Herald"


@pytest.mark.xfail(strict=True, reason=NOT_LISTED)
def test_the_models_first_request_shows_the_skill_and_its_description(skills_run):
    run, _ = skills_run
    first = "\n".join(prompt_texts(run.main_requests()[0]))
    assert "lorebase:lorebase" in first and "Load it before the first lorebase_* call" in first


@pytest.mark.xfail(strict=True, reason=NOT_LISTED)
def test_invoking_the_skill_sends_the_model_its_body(skills_run):
    run, _ = skills_run
    after = run.main_requests()[1]
    (result,) = [r for u, r in tool_exchanges(after) if u["name"] == "Skill"]
    texts = "\n".join(prompt_texts(after)) + result_text(result)
    assert not result.get("is_error"), result
    assert "# Lorebase through Herald" in texts and "Ground the words, then read" in texts


@pytest.mark.parametrize("scenario", ["gemini-stdio", "codex-stdio", "copilot-stdio"])
def test_the_other_hosts_do_not_ask_for_skills(runs, scenario):
    """Gemini CLI, Codex CLI and Copilot CLI are offered the extension too (in `initialize` or
    `server/discover`) and ask for no skill: they see the tools as before (docs/hosts.md)."""
    _, log = runs.get(scenario)
    (opening,) = herald_requests(log, "initialize") + herald_requests(log, "server/discover")
    capabilities = herald_answer(log, opening["id"])["result"]["capabilities"]
    assert SKILLS in capabilities.get("extensions", {}), capabilities
    assert not herald_requests(log, "skills/list") and not herald_requests(log, "skills/get")

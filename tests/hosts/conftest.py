"""Fixtures of the real-host tests: the sandbox Keeper, Herald (stdio and Streamable HTTP), and
every host run of the suite, started side by side once per session.

Binaries: HERALD_BIN and SANDBOX_BIN (scripts/test.sh sets them to target/debug/...); the hosts:
tests/hosts/node_modules (scripts/setup.sh hosts). Anything missing fails the suite: nothing is
skipped.

Each scenario below is one host run: a host, an MCP server (Herald over stdio through tee.py, so
the test also reads what reached Herald; Herald over HTTP; or probe_server.py) and the script its
scripted model plays. `runs` starts them all at once on a few threads (each is a subprocess with
a timeout, hostrun.RUN_TIMEOUT_S) and hands each test the runs it names, so the suite takes
about as long as its slowest host run. HOSTS_DUMP=DIR writes each run (every request the
model endpoint got, the host's output, the JSON-RPC lines Herald saw) to DIR/SCENARIO.json.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

import hostrun

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "replicas"))
from replicas import ready_line  # noqa: E402  (the READY-line reader of the replica tests)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
READY_TIMEOUT_S = 30
SCENARIO_TIMEOUT_S = hostrun.RUN_TIMEOUT_S + 30

# Herald's 14 Lorebase tools (the KB tools are off: no --kb).
HERALD_TOOLS = [
    "lorebase_context", "lorebase_schema", "lorebase_get", "lorebase_resolve", "lorebase_query",
    "lorebase_search", "lorebase_neighborhood", "lorebase_explain", "lorebase_history",
    "lorebase_lineage", "lorebase_changes", "lorebase_diff", "lorebase_execute", "lorebase_branches",
]


def binary(var: str, default: str) -> str:
    path = os.environ.get(var) or str(ROOT / "target" / "debug" / default)
    if not Path(path).is_file():
        pytest.fail(f"no {default} at {path} (set {var} or build it)", pytrace=False)
    return path


def clean_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.upper().startswith(("LOREBASE", "RUST_LOG", "HTTP_PROXY", "HTTPS_PROXY"))}
    env.update(extra)
    return env


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class Herald:
    herald_bin: str
    keeper_url: str
    http_url: str
    key: str
    logs: Path

    def env(self) -> dict[str, str]:
        return {"LOREBASE_URL": self.keeper_url, "LOREBASE_DOMAIN": "supply", "LOREBASE_API_KEY": self.key}

    def stdio(self, log_name: str) -> tuple[dict[str, Any], Path]:
        """A stdio server entry for a host, through tee.py; and the tee's log."""
        log = self.logs / f"{log_name}.jsonl"
        return {"command": [sys.executable, str(HERE / "tee.py"), str(log), self.herald_bin], "env": self.env()}, log

    def http(self) -> dict[str, Any]:
        return {"url": self.http_url, "headers": {"Authorization": f"Bearer {self.key}"}}


@pytest.fixture(scope="session")
def herald(tmp_path_factory) -> Herald:
    """The sandbox Keeper (API keys: the steward's for every call, sent by the host over HTTP and
    set in Herald's environment over stdio) and one Herald over Streamable HTTP on it, both on
    loopback ports."""
    herald_bin = binary("HERALD_BIN", "lorebase-herald")
    sandbox_bin = binary("SANDBOX_BIN", "lorebase-sandbox")
    sandbox = subprocess.Popen([sandbox_bin, "--port", "0", "--auth", "api_key", "--seed", "7"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=clean_env({}))
    http = None
    try:
        ready = ready_line(sandbox, "LOREBASE_SANDBOX_READY", READY_TIMEOUT_S)
        keeper_url = ready["url"]
        key = next(k["key"] for k in ready["keys"] if k["principal"] == "usr_steward")
        http = subprocess.Popen([herald_bin, "--transport", "streamable_http", "--port", "0"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                env=clean_env({"LOREBASE_URL": keeper_url, "LOREBASE_DOMAIN": "supply"}))
        http_url = ready_line(http, "LOREBASE_HERALD_READY", READY_TIMEOUT_S)["url"]
        yield Herald(herald_bin, keeper_url, http_url, key, tmp_path_factory.mktemp("tee"))
    finally:
        for p in (http, sandbox):
            if p is not None:
                stop(p)


# --- the scenarios ---------------------------------------------------------------------------
ALL_SELECT = "select:" + ",".join(f"mcp__lorebase__{t}" for t in HERALD_TOOLS)

# Claude Code 2.1.332 defers MCP tools: the model loads them with ToolSearch first (every Herald
# tool, so the next request carries all 14 definitions as the model sees them), then calls.
CLAUDE_STEPS = [
    {"tool": "ToolSearch", "args": {"query": ALL_SELECT}},
    *({"tool": "ToolSearch", "args": {"query": q}} for q in [
        "update a record", "read the values of supplier S-1001", "who changed this record", "count records"]),
    {"tool": "lorebase_get", "args": {"ref": "Supplier/S-1001"}},
    {"tool": "lorebase_get", "args": {"ref": "Nope/1"}},
    {"tool": "lorebase_get", "args": {"ref": "Supplier/S-1001", "limit": 3}},
    {"text": "Done."},
]
GEMINI_STEPS = [
    {"tool": "lorebase_get", "args": {"ref": "Supplier/S-1001"}},
    {"tool": "lorebase_get", "args": {"ref": "Nope/1"}},
    {"tool": "lorebase_get", "args": {"ref": "Supplier/S-1002", "wait_for_previous": True}},
    {"text": "Done."},
]
COPILOT_STEPS = GEMINI_STEPS
CODEX_STEPS = [
    {"tool": "lorebase_get", "args": {"ref": "Supplier/S-1001"}},
    {"tool": "lorebase_get", "args": {"ref": "Nope/1"}},
    {"text": "Done."},
]
PROBE_CLAUDE_STEPS = [
    {"tool": "ToolSearch", "args": {"query": "select:mcp__probe__probe_long,mcp__probe__probe_bounds,mcp__probe__probe_plain"}},
    {"tool": "ToolSearch", "args": {"query": "zebra"}},
    {"text": "Done."},
]
PROMPT = "Read supplier S-1001."
# Herald's skills (test_claude_code_skills.py): the model invokes the `lorebase` skill with
# Claude Code's Skill tool, then reads one of its reference files by address.
SKILL_REFERENCE = "skill://lorebase/references/query-dsl.md"
CLAUDE_SKILL_STEPS = [
    {"tool": "Skill", "args": {"skill": "lorebase:lorebase"}},
    {"tool": "ReadMcpResourceTool", "args": {"server": "lorebase", "uri": SKILL_REFERENCE}},
    {"text": "Done."},
]


@dataclass
class Scenario:
    name: str
    start: Callable[[Herald], Any]
    timeout: int = SCENARIO_TIMEOUT_S


def _probe_server() -> dict[str, Any]:
    return {"command": [sys.executable, str(HERE / "probe_server.py")]}


def _claude_stdio(h: Herald):
    server, log = h.stdio("claude-stdio")
    return hostrun.run_claude(server, CLAUDE_STEPS, PROMPT), log


def _claude_skills(h: Herald):
    server, log = h.stdio("claude-skills")
    return hostrun.run_claude(server, CLAUDE_SKILL_STEPS, "Count red shoes per brand."), log


def _codex_stdio(h: Herald):
    server, log = h.stdio("codex-stdio")
    return hostrun.run_codex(server, CODEX_STEPS, PROMPT), log


def _copilot_stdio(h: Herald):
    server, log = h.stdio("copilot-stdio")
    return hostrun.run_copilot(server, COPILOT_STEPS, PROMPT), log


def _gemini_stdio(h: Herald):
    server, log = h.stdio("gemini-stdio")
    return hostrun.run_gemini(server, GEMINI_STEPS, PROMPT), log


# The tool-search runs (test_tool_search.py): one host session plays every intent of
# intents.py as a word search, against Herald over stdio with a knowledge base (so kb_search and
# kb_get are deferred too) and the configured key (so the hints carry the Domain's words).
SEARCH_TIMEOUT_S = 180


def search_server(h: Herald) -> dict[str, Any]:
    kb = h.logs / "kb"
    (kb / "runbooks").mkdir(parents=True, exist_ok=True)
    (kb / "runbooks" / "keeper-outage.md").write_text(
        "---\ntitle: Keeper outage\ntype: runbook\n---\nWhen Keeper answers 503, wait and retry.\n")
    return {"command": [h.herald_bin], "env": {**h.env(), "LOREBASE__HERALD__KB__DIR": str(kb)}}


def _claude_search(h: Herald):
    from intents import DOMAIN_ONLY, INTENTS

    steps = [{"tool": "ToolSearch", "args": {"query": q}} for q, _ in INTENTS + DOMAIN_ONLY] + [{"text": "Done."}]
    return hostrun.run_claude(search_server(h), steps, PROMPT, timeout=SEARCH_TIMEOUT_S), None


def _codex_search(h: Herald):
    from intents import INTENTS

    steps = [{"tool_search": {"query": q, "limit": 8}} for q, _ in INTENTS] + [{"text": "Done."}]
    return hostrun.run_codex(search_server(h), steps, PROMPT, model=hostrun.CODEX_CATALOG_MODEL,
                             timeout=SEARCH_TIMEOUT_S), None


SCENARIOS = [
    # The two longest runs first: the pool starts them at once.
    Scenario("claude-search", _claude_search, SEARCH_TIMEOUT_S + SCENARIO_TIMEOUT_S),
    Scenario("codex-search", _codex_search, SEARCH_TIMEOUT_S + SCENARIO_TIMEOUT_S),
    Scenario("claude-stdio", _claude_stdio),
    Scenario("claude-skills", _claude_skills),
    Scenario("claude-http", lambda h: (hostrun.run_claude(h.http(), CLAUDE_STEPS, PROMPT), None)),
    Scenario("claude-probe", lambda h: (hostrun.run_claude(_probe_server(), PROBE_CLAUDE_STEPS, "probe", name="probe"), None)),
    Scenario("gemini-stdio", _gemini_stdio),
    Scenario("gemini-http", lambda h: (hostrun.run_gemini(h.http(), GEMINI_STEPS, PROMPT), None)),
    Scenario("gemini-probe", lambda h: (hostrun.run_gemini(_probe_server(), [{"text": "Done."}], "probe", name="probe"), None)),
    Scenario("codex-stdio", _codex_stdio),
    Scenario("codex-http", lambda h: (hostrun.run_codex(h.http(), CODEX_STEPS, PROMPT), None)),
    Scenario("codex-probe", lambda h: (hostrun.run_codex(_probe_server(), [{"text": "Done."}], "probe", name="probe"), None)),
    Scenario("copilot-stdio", _copilot_stdio),
    Scenario("copilot-http", lambda h: (hostrun.run_copilot(h.http(), COPILOT_STEPS, PROMPT), None)),
    Scenario("copilot-probe", lambda h: (hostrun.run_copilot(_probe_server(), [{"text": "Done."}], "probe", name="probe"), None)),
    Scenario("codex-default-probe", lambda h: (hostrun.run_codex(_probe_server(), [{"text": "Done."}], "probe", name="probe", model=None), None)),
]


class Runs:
    """The scenarios' results, started all at once; get(name) waits for one."""

    def __init__(self, herald: Herald) -> None:
        # Three at a time: the hosts are mostly waiting (on the model, on Herald), and the machine
        # has 2 cores.
        self.pool = ThreadPoolExecutor(max_workers=3)
        self.futures: dict[str, Future] = {s.name: self.pool.submit(s.start, herald) for s in SCENARIOS}
        self.timeouts = {s.name: s.timeout for s in SCENARIOS}

    def get(self, name: str) -> tuple[hostrun.Run, Path | None]:
        run, log = self.futures[name].result(timeout=self.timeouts[name])
        dump = os.environ.get("HOSTS_DUMP")
        if dump:
            # What the host sent the model, its output, and what reached Herald, to read by hand.
            Path(dump).mkdir(parents=True, exist_ok=True)
            (Path(dump) / f"{name}.json").write_text(json.dumps(
                {"requests": run.requests, "stdout": run.stdout, "stderr": run.stderr,
                 "herald": [json.loads(line) for line in log.read_text().splitlines()] if log else None}, indent=1))
        return run, log

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="session")
def runs(herald) -> Runs:
    r = Runs(herald)
    yield r
    r.close()


def runs_of(host: str):
    """A fixture named HOST: the run of HOST over stdio, then over HTTP (with tee.py's log or None)."""

    def fixture(request, runs):
        return runs.get(f"{host}-{request.param}")

    return pytest.fixture(params=["stdio", "http"], name=host)(fixture)


def tee_calls(log: Path) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """The tools/call requests a host sent to Herald (tee.py's log), each with Herald's answer."""
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    answers = {e["msg"].get("id"): e["msg"] for e in entries if e["dir"] == "out" and isinstance(e["msg"], dict)}
    return [(e["msg"], answers.get(e["msg"].get("id"))) for e in entries
            if e["dir"] == "in" and isinstance(e["msg"], dict) and e["msg"].get("method") == "tools/call"]


def assert_s1001(text: str, log: Path | None) -> None:
    """TEXT is Herald's compact answer for Supplier/S-1001 (the sample data's values) and, when
    tee.py logged the session, exactly what Herald answered to the one call with that ref."""
    assert text.startswith("Supplier/S-1001 ") and "Kavsen Alloys" in text and "risk_score: 90" in text, text
    if log is not None:
        answers = [a for c, a in tee_calls(log) if c["params"]["arguments"] == {"ref": "Supplier/S-1001"}]
        assert len(answers) == 1, tee_calls(log)
        assert text == answers[0]["result"]["content"][0]["text"]


def tee_instructions(log: Path) -> str:
    """The server instructions Herald answered with (initialize or server/discover)."""
    for line in log.read_text().splitlines():
        e = json.loads(line)
        result = e["msg"].get("result") if e["dir"] == "out" and isinstance(e["msg"], dict) else None
        if isinstance(result, dict) and isinstance(result.get("instructions"), str):
            return result["instructions"]
    raise AssertionError(f"no instructions in Herald's answers ({log})")


@pytest.fixture(scope="session")
def herald_tools(herald) -> dict[str, dict[str, Any]]:
    """Herald's tool definitions as it serves them (`lorebase-herald tools --format json`)."""
    out = subprocess.run([herald.herald_bin, "tools", "--format", "json"], capture_output=True, text=True,
                         timeout=30, check=True, env=clean_env(herald.env()), stdin=subprocess.DEVNULL)
    return {t["name"]: t for t in json.loads(out.stdout)}

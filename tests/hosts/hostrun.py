"""Runs one real MCP host (Claude Code, Gemini CLI, Codex CLI or Copilot CLI, from
tests/hosts/node_modules) for one prompt.

Each run gets its own scratch HOME (settings, caches, sessions: nothing of the machine's), its
own scripted model endpoint (model.py) on a loopback port, the host's telemetry, update checks
and error reports turned off, and a timeout. The MCP server is given as a host-neutral dict:
  {"command": [...], "env": {...}}   a stdio server the host starts
  {"url": "http://127.0.0.1:P/mcp", "headers": {...}}   a Streamable HTTP server already running
A Run holds what the model was sent (model.requests), the host's stdout and stderr, and its
exit status, and every internet address it connected or sent to (the run is traced by strace:
the tests check that nothing leaves loopback); run() raises HostFailed (with the host's output)
when the host fails or times out, and kills the host's whole process group either way.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from model import ScriptedModel

HERE = Path(__file__).resolve().parent
MODULES = HERE / "node_modules"
# The native binary of Claude Code's platform package (the wrapper's postinstall, skipped by
# `npm ci --ignore-scripts`, would only copy it over bin/claude.exe).
CLAUDE = MODULES / "@anthropic-ai" / "claude-code-linux-x64" / "claude"
GEMINI = MODULES / "@google" / "gemini-cli" / "bundle" / "gemini.js"
CODEX = MODULES / "@openai" / "codex" / "bin" / "codex.js"
COPILOT = MODULES / "@github" / "copilot-linux-x64" / "copilot"
# A model name outside Codex's catalog: Codex then lists the MCP tools directly (a catalog model
# defers them behind a client-side tool_search; its default model runs in "code mode").
CODEX_MODEL = "scripted-model"
# A model of Codex's catalog that is not in code mode: Codex defers the MCP tools behind its
# client-side `tool_search` (BM25 over the tools' names and descriptions).
CODEX_CATALOG_MODEL = "gpt-5.5"
RUN_TIMEOUT_S = 60
STRACE = shutil.which("strace")

# What every host run may read of the machine's environment: the rest (keys, proxies, the
# developer's own settings) stays out.
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "TZ", "TMPDIR")


class HostFailed(AssertionError):
    pass


@dataclass
class Run:
    host: str
    requests: list[dict[str, Any]]
    stdout: str
    stderr: str
    returncode: int
    # Every internet address the host (or a child) connected or sent to (strace).
    destinations: list[str] = field(default_factory=list)

    def main_requests(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if isinstance(r["body"], dict) and r["body"].get("tools")]

    def events(self) -> list[dict[str, Any]]:
        """The host's stream-json output, one object per line."""
        out = []
        for line in self.stdout.splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
        return out

    def describe(self) -> str:
        return (f"{self.host} exited {self.returncode}\n--- stdout (tail)\n{self.stdout[-3000:]}\n"
                f"--- stderr (tail)\n{self.stderr[-3000:]}\n--- model requests: {[r['path'] for r in self.requests]}")


def base_env(home: Path) -> dict[str, str]:
    env = {k: os.environ[k] for k in KEPT_ENV if k in os.environ}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
                "XDG_DATA_HOME": str(home / ".local/share"), "NO_PROXY": "127.0.0.1,localhost", "CI": "1"})
    return env


def _execute(host: str, argv: list[str], env: dict[str, str], cwd: Path, model: ScriptedModel,
             timeout: int = RUN_TIMEOUT_S) -> Run:
    """Runs ARGV under strace (its network system calls only, in cwd/../network.trace), in a
    process group of its own, killed whole at the timeout."""
    if STRACE is None:
        raise HostFailed("strace is missing (scripts/setup.sh strace): it checks that nothing leaves loopback")
    trace = cwd.parent / "network.trace"
    traced = [STRACE, "-f", "--seccomp-bpf", "-qq", "-e", "trace=connect,sendto,sendmsg,sendmmsg", "-o", str(trace), *argv]
    proc = subprocess.Popen(traced, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        run = Run(host, list(model.requests), stdout, stderr, -1)
        raise HostFailed(f"{host} did not finish within {timeout}s\n{run.describe()}") from None
    finally:
        # Whatever the host left behind (an MCP server it started, a helper) ends with it.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    run = Run(host, list(model.requests), stdout, stderr, proc.returncode, destinations(trace))
    if proc.returncode != 0:
        raise HostFailed(run.describe())
    return run


def destinations(trace: Path) -> list[str]:
    """The internet addresses (IPv4 and IPv6) the host and its children connected or sent to."""
    text = trace.read_text() if trace.exists() else ""
    found = re.findall(r'inet_addr\("([^"]+)"\)', text) + re.findall(r'inet_pton\(AF_INET6, "([^"]+)"', text)
    return sorted(set(found))


def is_loopback(address: str) -> bool:
    return ipaddress.ip_address(address.removeprefix("::ffff:")).is_loopback


def run_claude(server: dict[str, Any], steps: list[dict[str, Any]], prompt: str, name: str = "lorebase",
               timeout: int = RUN_TIMEOUT_S) -> Run:
    """`claude -p PROMPT` with one MCP server NAME (only it: --strict-mcp-config)."""
    return _run("claude", CLAUDE, server, steps, prompt, name, timeout=timeout)


def run_gemini(server: dict[str, Any], steps: list[dict[str, Any]], prompt: str, name: str = "lorebase") -> Run:
    """`gemini -p PROMPT --approval-mode yolo` with one MCP server NAME."""
    return _run("gemini", GEMINI, server, steps, prompt, name)


def run_codex(server: dict[str, Any], steps: list[dict[str, Any]], prompt: str, name: str = "lorebase",
              model: str | None = CODEX_MODEL, timeout: int = RUN_TIMEOUT_S) -> Run:
    """`codex exec --ephemeral --json -m MODEL PROMPT` with one MCP server NAME (model None: Codex's default)."""
    return _run("codex", CODEX, server, steps, prompt, name, [] if model is None else ["-m", model], timeout=timeout)


def run_copilot(server: dict[str, Any], steps: list[dict[str, Any]], prompt: str, name: str = "lorebase") -> Run:
    """`copilot -p PROMPT` offline, on the scripted endpoint as an OpenAI provider, with one MCP server NAME."""
    return _run("copilot", COPILOT, server, steps, prompt, name)


def _run(host: str, program: Path, server: dict[str, Any], steps: list[dict[str, Any]], prompt: str, name: str,
         options: list[str] | None = None, timeout: int = RUN_TIMEOUT_S) -> Run:
    if not program.is_file():
        raise HostFailed(f"{host} is not installed at {program}: scripts/setup.sh hosts")
    with tempfile.TemporaryDirectory(prefix=f"herald-{host}-") as tmp, ScriptedModel(steps) as model:
        home = Path(tmp)
        # A working folder of its own, not HOME (Gemini CLI warns about running in HOME).
        work = home / "work"
        work.mkdir()
        env = base_env(home)
        setup = {"claude": _claude, "gemini": _gemini, "codex": _codex, "copilot": _copilot}[host]
        argv = setup(home, env, model.url, server, name, prompt)
        argv[-1:-1] = options or []  # before the prompt
        return _execute(host, argv, env, work, model, timeout)


def _claude(home: Path, env: dict[str, str], model_url: str, server: dict[str, Any], name: str, prompt: str) -> list[str]:
    if "url" in server:
        entry = {"type": "http", "url": server["url"], "headers": server.get("headers", {})}
    else:
        entry = {"type": "stdio", "command": server["command"][0], "args": server["command"][1:], "env": server.get("env", {})}
    config = home / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {name: entry}}))
    env.update({
        "ANTHROPIC_BASE_URL": model_url, "ANTHROPIC_API_KEY": "sk-scripted",
        "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1", "DISABLE_BUG_COMMAND": "1",
    })
    return [str(CLAUDE), "-p", prompt, "--mcp-config", str(config), "--strict-mcp-config",
            "--allowedTools", f"mcp__{name}__*", "--output-format", "stream-json", "--verbose"]


def _gemini(home: Path, env: dict[str, str], model_url: str, server: dict[str, Any], name: str, prompt: str) -> list[str]:
    if "url" in server:
        entry = {"httpUrl": server["url"], "headers": server.get("headers", {})}
    else:
        entry = {"command": server["command"][0], "args": server["command"][1:], "env": server.get("env", {})}
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps({
        "mcpServers": {name: entry},
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    }))
    env.update({"GOOGLE_GEMINI_BASE_URL": model_url, "GEMINI_API_KEY": "scripted",
                "GEMINI_TELEMETRY_ENABLED": "false", "NO_BROWSER": "1"})
    return ["node", str(GEMINI), "-p", prompt, "--approval-mode", "yolo", "--output-format", "stream-json"]


def _codex(home: Path, env: dict[str, str], model_url: str, server: dict[str, Any], name: str, prompt: str) -> list[str]:
    def toml(value: Any) -> str:
        return json.dumps(value)  # a JSON string or list of strings is a TOML one

    lines = [
        'model_provider = "scripted"', 'approval_policy = "never"', 'sandbox_mode = "read-only"',
        "check_for_update_on_startup = false",
        "[analytics]", "enabled = false", "[feedback]", "enabled = false",
        # What Codex would fetch from github.com and chatgpt.com at startup (plugins, apps, the
        # model catalog, updates): nothing leaves loopback.
        "[features]", "plugins = false", "remote_plugin = false", "plugin_sharing = false", "apps = false",
        "api_key_model_discovery = false", "in_app_updates = false",
        "[model_providers.scripted]", 'name = "scripted"', f"base_url = {toml(model_url + '/v1')}",
        'wire_api = "responses"', 'env_key = "SCRIPTED_API_KEY"',
        f"[mcp_servers.{name}]",
    ]
    if "url" in server:
        lines += [f"url = {toml(server['url'])}", f"[mcp_servers.{name}.http_headers]"]
        lines += [f"{toml(k)} = {toml(v)}" for k, v in server.get("headers", {}).items()]
    else:
        lines += [f"command = {toml(server['command'][0])}", f"args = {toml(server['command'][1:])}",
                  f"[mcp_servers.{name}.env]"]
        lines += [f"{k} = {toml(v)}" for k, v in server.get("env", {}).items()]
    (home / "codex").mkdir()
    (home / "codex" / "config.toml").write_text("\n".join(lines) + "\n")
    env.update({"CODEX_HOME": str(home / "codex"), "SCRIPTED_API_KEY": "scripted"})
    return ["node", str(CODEX), "exec", "--ephemeral", "--json", "--skip-git-repo-check", prompt]


def _copilot(home: Path, env: dict[str, str], model_url: str, server: dict[str, Any], name: str, prompt: str) -> list[str]:
    if "url" in server:
        entry = {"type": "http", "url": server["url"], "headers": server.get("headers", {}), "tools": ["*"]}
    else:
        entry = {"type": "local", "command": server["command"][0], "args": server["command"][1:],
                 "env": server.get("env", {}), "tools": ["*"]}
    config = home / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {name: entry}}))
    env.update({"COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": model_url + "/v1", "COPILOT_PROVIDER_TYPE": "openai",
                "COPILOT_PROVIDER_API_KEY": "scripted", "COPILOT_MODEL": "scripted-model"})
    return [str(COPILOT), "--allow-all-tools", "--no-auto-update", "--disable-builtin-mcps", "--output-format", "json",
            "--additional-mcp-config", f"@{config}", "-p", prompt]

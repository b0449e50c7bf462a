"""python/examples/agent.py, run as a user runs it (its own process, the settings in the
environment) against the sandbox."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import Sandbox, clean_env
from lorebase_herald import Herald
from scripted import GET, MISSING_REF, REF, assert_tool_error

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agent.py"


def run_example(sandbox: Sandbox, key: str, *args: str) -> "subprocess.CompletedProcess[str]":
    env = clean_env(LOREBASE_URL=sandbox.url, LOREBASE_API_KEY=key, LOREBASE_DOMAIN="supply")
    return subprocess.run([sys.executable, str(EXAMPLE), *args], env=env, capture_output=True, text=True, timeout=120)


def test_the_example_agent_reads_a_record(sandbox: Sandbox, reader_key: str, herald: Herald) -> None:
    done = run_example(sandbox, reader_key)
    assert done.returncode == 0, done.stderr
    assert 'tool call: lorebase_get {"ref":"Supplier/S-1001"}' in done.stderr
    assert done.stdout == f"Lorebase says about {REF}:\n{herald.call_tool('lorebase_get', GET).text}\n"


def test_the_example_agent_reads_a_tool_failure(sandbox: Sandbox, reader_key: str) -> None:
    done = run_example(sandbox, reader_key, MISSING_REF)
    assert done.returncode == 0, done.stderr
    first, _, rest = done.stdout.partition("\n")
    assert first == f"Lorebase says about {MISSING_REF}:"
    assert_tool_error(rest)

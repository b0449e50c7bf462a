"""The command line: --version, tools, call, kb, and bad input."""

from __future__ import annotations

import json
import subprocess

import pytest

from calls import TOOL_NAMES
from conftest import clean_env


def run(binaries, args, keeper_url=None, env=None, input=None, timeout=60):
    e = clean_env({"LOREBASE_DOMAIN": "supply", **(env or {})})
    if keeper_url:
        e["LOREBASE_URL"] = keeper_url
    return subprocess.run(
        [binaries["herald"], *args],
        capture_output=True,
        env=e,
        input=input,
        timeout=timeout,
        stdin=None if input is not None else subprocess.DEVNULL,
    )


def test_version_names_version_and_commit(binaries):
    out = run(binaries, ["--version"])
    assert out.returncode == 0
    line = out.stdout.decode().strip()
    assert line.startswith("lorebase-herald ")
    assert "(commit " in line


def test_tools_json_is_what_a_model_sees(binaries):
    out = run(binaries, ["tools", "--format", "json"])
    assert out.returncode == 0, out.stderr
    tools = json.loads(out.stdout)
    assert [t["name"] for t in tools] == TOOL_NAMES
    for t in tools:
        assert t["inputSchema"]["type"] == "object"
        # Output schemas are opt-in (output.schemas).
        assert "annotations" in t and "outputSchema" not in t


def test_tools_text_and_selection(binaries):
    out = run(binaries, ["tools"])
    assert out.returncode == 0
    lines = out.stdout.decode().splitlines()
    assert [l.split()[0] for l in lines] == TOOL_NAMES
    assert "writes" in next(l for l in lines if l.startswith("lorebase_execute"))

    ro = run(binaries, ["--read-only", "tools", "--format", "json"])
    assert "lorebase_execute" not in [t["name"] for t in json.loads(ro.stdout)]
    only = run(binaries, ["tools", "--tools", "lorebase_get,lorebase_schema", "--format", "json"])
    assert [t["name"] for t in json.loads(only.stdout)] == ["lorebase_schema", "lorebase_get"]
    deny = run(binaries, ["tools", "--exclude-tools", "lorebase_diff", "--format", "json"])
    assert "lorebase_diff" not in [t["name"] for t in json.loads(deny.stdout)]
    env_sel = run(binaries, ["tools", "--format", "json"], env={"LOREBASE__HERALD__TOOLS__READ_ONLY": "true"})
    assert "lorebase_execute" not in [t["name"] for t in json.loads(env_sel.stdout)]


def test_unknown_tool_in_selection_fails_loudly(binaries):
    out = run(binaries, ["tools", "--tools", "lorebase_gte"])
    assert out.returncode == 2
    assert "lorebase_gte" in out.stderr.decode()


def test_call_prints_the_output(binaries, sandbox):
    out = run(binaries, ["call", "lorebase_get", '{"ref": "Supplier/S-1001"}'], sandbox.url)
    assert out.returncode == 0, out.stderr
    assert "Kavsen Alloys" in out.stdout.decode()


def test_call_reads_arguments_from_stdin(binaries, sandbox):
    out = run(binaries, ["call", "lorebase_history", "-"], sandbox.url, input=b'{"ref": "Supplier/S-1001", "values": true}')
    assert out.returncode == 0, out.stderr
    assert "risk_score: 32 -> 90" in out.stdout.decode()


def test_call_tool_error_exits_1(binaries, sandbox):
    out = run(binaries, ["call", "lorebase_get", '{"ref": "Supplier/S-9999"}'], sandbox.url)
    assert out.returncode == 1
    assert out.stdout.decode().startswith("[not-found]")


def test_call_keeper_down_is_a_tool_error(binaries):
    out = run(binaries, ["call", "lorebase_schema"], "http://127.0.0.1:9", env={"LOREBASE__HERALD__KEEPER__MAX_RETRIES": "0"})
    assert out.returncode == 1
    assert out.stdout.decode().startswith("[keeper-unavailable]")


@pytest.mark.parametrize(
    "args",
    [
        ["call", "no_such_tool"],
        ["call", "lorebase_get", "[1, 2]"],
        ["call", "lorebase_get", "{not json"],
        ["--transport", "carrier_pigeon"],
        ["--port", "70000"],
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_2_without_a_panic(binaries, args):
    out = run(binaries, args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert b"panicked" not in out.stderr
    assert out.stderr.strip()


def test_bad_settings_name_the_key_and_source(binaries):
    out = run(binaries, ["tools"], env={"LOREBASE__HERALD__HTTP__PORT": "eighty"})
    assert out.returncode == 2
    err = out.stderr.decode()
    assert "http.port" in err and "LOREBASE__HERALD__HTTP__PORT" in err


def test_missing_config_file_fails_loudly(binaries, tmp_path):
    missing = tmp_path / "nope.yaml"
    out = run(binaries, ["--config", str(missing), "tools"])
    assert out.returncode == 2
    assert "nope.yaml" in out.stderr.decode()

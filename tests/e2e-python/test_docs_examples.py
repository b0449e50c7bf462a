"""The examples of the README and docs/kb.md run as written: the README's
first calls (the shell block marked `<!-- example: sh/first-calls -->`: the
sandbox Keeper, `call`, Streamable HTTP and two `curl` calls), its `where`
example, and docs/kb.md's example entry; each answer must contain the lines
the page shows.

Only what a test must change is changed: `cargo run -q -p lorebase-{sandbox,herald} --`
becomes the binaries under test, and the ports 8080 and 8090 free ones (tests
run side by side).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess

import pytest

from conftest import ROOT, LineReader, clean_env, stop

README = ROOT / "README.md"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fenced_after(text: str, marker: str) -> str:
    """The first fenced block after `marker`."""
    at = text.index(marker)
    start = text.index("```", at)
    start = text.index("\n", start) + 1
    return text[start : text.index("```", start)]


def section(text: str, heading: str) -> str:
    at = text.index(heading)
    end = text.find("\n#", at + len(heading))
    return text[at : end if end >= 0 else len(text)]


def blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def as_tested(script: str, binaries: dict[str, str], keeper: int, herald: int) -> str:
    return (
        script.replace("cargo run -q -p lorebase-sandbox --", binaries["sandbox"])
        .replace("cargo run -q -p lorebase-herald --", binaries["herald"])
        .replace("127.0.0.1:8080", f"127.0.0.1:{keeper}")
        .replace("--port 8080", f"--port {keeper}")
        .replace("127.0.0.1:8090", f"127.0.0.1:{herald}")
        .replace("--transport streamable_http &", f"--transport streamable_http --port {herald} &")
    )


def test_readme_first_calls_run_as_written(binaries):
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    text = README.read_text()
    script = fenced_after(text, "<!-- example: sh/first-calls -->")
    # The block is what a reader pastes: it names the sandbox, the settings, the call, the Accept header.
    for needed in ("lorebase-sandbox", "LOREBASE_URL=", "LOREBASE_DOMAIN=", "call lorebase_get",
                   "Accept: application/json, text/event-stream", '"method":"tools/call"'):
        assert needed in script, needed
    keeper, herald = free_port(), free_port()
    # A group of its own: what the block starts in the background stops with it, even when it fails.
    proc = subprocess.Popen(
        ["bash", "-e", "-c", as_tested(script, binaries, keeper, herald)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(), cwd=ROOT,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, err[-3000:]
    # What the README shows `call` printing, line for line.
    shown = fenced_after(text, "`call` prints the tool's text answer")
    for line in shown.strip().splitlines():
        assert line in out, (line, out)
    # curl prints each answer without a newline: read the JSON documents one after another.
    decoder, answers = json.JSONDecoder(), []
    at = out.find('{"jsonrpc"')
    while at >= 0:
        answer, end = decoder.raw_decode(out, at)
        answers.append(answer)
        at = out.find('{"jsonrpc"', end)
    assert [a["id"] for a in answers] == [1, 2], out
    assert answers[0]["result"]["serverInfo"]["name"] == "lorebase-herald"
    assert not answers[1]["result"]["isError"]
    assert "Kavsen Alloys" in answers[1]["result"]["content"][0]["text"]


def test_readme_where_example_answers_as_shown(binaries):
    text = section(README.read_text(), "### Combining `where` fragments")
    commands = blocks(text, "sh")
    shown = blocks(text, "text")
    assert len(commands) == 2 and len(shown) == 2
    # The sandbox as the README starts it (its default seed, not the tests' fixture's).
    sandbox = subprocess.Popen(
        [binaries["sandbox"], "--port", "0", "--auth", "none"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=clean_env(),
    )
    try:
        url = json.loads(LineReader(sandbox.stdout).wait_for("LOREBASE_SANDBOX_READY"))["url"]
        env = clean_env({"LOREBASE_URL": url, "LOREBASE_DOMAIN": "supply"})
        for command, expected in zip(commands, shown):
            run = subprocess.run(
                ["bash", "-e", "-c", as_tested(command, binaries, 0, 0)],
                capture_output=True, text=True, timeout=60, env=env, cwd=ROOT,
            )
            assert run.returncode == 0, run.stderr[-2000:]
            for line in expected.strip().splitlines():
                if line == "...":
                    continue
                # The Revision id differs with the sample data's history; the rest is exact.
                pattern = re.escape(line).replace(r"aef6c1b104ba", "[0-9a-f]{12}")
                assert re.search(pattern, run.stdout), (line, run.stdout)
    finally:
        stop(sandbox)


def test_kb_doc_entry_is_found_and_read_as_shown(binaries, tmp_path):
    """docs/kb.md's example entry, written to a catalog, is searched and read as the page shows."""
    text = (ROOT / "docs" / "kb.md").read_text()
    marker = re.search(r"<!-- example: kb/entry (\S+) -->", text)
    assert marker, "docs/kb.md has no example entry"
    entry = tmp_path / marker.group(1)
    entry.parent.mkdir(parents=True)
    entry.write_text(fenced_after(text, marker.group(0)))
    search = subprocess.run(
        [binaries["herald"], "--kb", str(tmp_path), "call", "kb_search", '{"query": "harbor oom"}'],
        capture_output=True, text=True, timeout=60, env=clean_env(),
    )
    assert search.returncode == 0, search.stderr[-2000:]
    shown = fenced_after(section(text, "## The tools"), "best first: path")
    assert search.stdout.strip() == shown.strip()
    got = subprocess.run(
        [binaries["herald"], "--kb", str(tmp_path), "call", "kb_get", json.dumps({"path": marker.group(1)})],
        capture_output=True, text=True, timeout=60, env=clean_env(),
    )
    assert got.returncode == 0, got.stderr[-2000:]
    # Every field of the example comes back, and the body.
    for line in entry.read_text().splitlines():
        assert line in got.stdout, line

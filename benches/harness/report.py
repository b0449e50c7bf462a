"""The markdown block of the run, and its place in docs/benchmarks.md (between
the herald-bench markers; the rest of the file, the KB section included, is
left as it is)."""

from __future__ import annotations

from pathlib import Path

MARK_START = "<!-- herald-bench:start -->"
MARK_END = "<!-- herald-bench:end -->"
SECTION = "## Herald against the same server on the Python MCP SDK\n\n"
ROWS = {"native": ("native binary", "`target/release/lorebase-herald`"),
        "node": ("Node bin", "`node npm/bin/lorebase-herald`"),
        "python": ("Python console script", "`lorebase-herald` from the wheel"),
        "peer": ("peer (Python SDK)", "`python benches/peers/python_sdk_herald/server.py`")}
FLOORS = {"node-floor": ("floor: Node itself", "`node -e` answering the handshake, no MCP library"),
          "python-floor": ("floor: Python itself", "`python -c` answering the handshake, no MCP library")}


def ms(x: float) -> str:
    return f"{x:.1f} ms" if x >= 10 else f"{x:.2f} ms"


def us(x: float) -> str:
    return f"{x:.0f} µs"


def mb(kb: float) -> str:
    return f"{kb / 1024:.1f} MB"


def size(b: int) -> str:
    return f"{b / 1e6:.1f} MB" if b >= 1e6 else f"{b / 1e3:.0f} kB"


def ratio(a: float, b: float) -> str:
    return f"{a / b:.1f}×" if b else "–"


def ok(cond: bool) -> str:
    return "met" if cond else "**missed**"


def cold_table(cold: dict, targets: list) -> list[str]:
    out = ["### 1. Cold start over stdio (spawn to the first answered `tools/list`)", "",
           "| server | command | median | p90 | min | RSS after it | peer ÷ this |",
           "|---|---|---|---|---|---|---|"]
    peer = cold.get("peer", {}).get("median_ms")
    for key, (label, cmd) in (ROWS | FLOORS).items():
        r = cold.get(key)
        if r is None:
            out.append(f"| {label} | {cmd} | not measured (not built here) | | | | |")
            continue
        if "error" in r:
            out.append(f"| {label} | {cmd} | failed: {r['error'][:120]} | | | | |")
            continue
        rel = "" if key in FLOORS else ratio(peer, r["median_ms"]) if peer and key != "peer" else "1×"
        out.append(f"| {label} | {cmd} | {ms(r['median_ms'])} | {ms(r['p90_ms'])} | {ms(r['min_ms'])} "
                   f"| {mb(r['rss_kb'])} | {rel} |")
        limit = {"native": 10, "node": 100, "python": 100}.get(key)
        if limit:
            targets.append((f"cold start, {label}: ≤ {limit} ms", ms(r["median_ms"]), r["median_ms"] <= limit))
            if peer:
                targets.append((f"cold start, {label}: ≥ 10× faster than the peer",
                                ratio(peer, r["median_ms"]), peer >= 10 * r["median_ms"]))
    runs = next((r["runs"] for r in cold.values() if "runs" in r), 0)
    out += ["", f"{runs} runs per command, interleaved, after two warm-up rounds; a host's sequence: "
            "`initialize`, wait for its answer, `notifications/initialized`, `tools/list`. "
            "No Keeper call is involved. RSS is the resident set of the process tree right after the answer."]
    return out


def calls_table(calls: dict, args: list, targets: list) -> list[str]:
    floor, pipe = calls.get("floor", {}), calls.get("pipe", {})
    out = ["### 2. Per-call cost over stdio (`tools/call lorebase_get`, sequential, one connection)", "",
           "| path | p50 | p99 | server CPU per call | p50 over the floor | p50 ÷ Herald's |",
           "|---|---|---|---|---|---|",
           f"| floor: the same Keeper call with curl (kept-alive connection) | {us(floor.get('p50_us', 0))} "
           f"| {us(floor.get('p99_us', 0))} | | | |",
           f"| this client's own pipe round trip (`cat` echoing the request) | {us(pipe.get('p50_us', 0))} "
           f"| {us(pipe.get('p99_us', 0))} | | | |"]
    native = calls.get("native", {}).get("p50_us")
    for key, (label, _) in ROWS.items():
        r = calls.get(key)
        if r is None:
            continue
        if "error" in r:
            out.append(f"| {label} | failed: {r['error'][:120]} | | | | |")
            continue
        over = r["p50_us"] - floor.get("p50_us", 0)
        bad = f" ({r['failed']} failed)" if r["failed"] else ""
        out.append(f"| {label}{bad} | {us(r['p50_us'])} | {us(r['p99_us'])} | {us(r['cpu_us'])} | {us(over)} "
                   f"| {ratio(r['p50_us'], native) if native else '–'} |")
        if key == "native":
            targets.append(("per call: Herald's overhead over the floor ≤ 100 µs p50", us(over), over <= 100))
    out += ["", "Each run: a fresh server, the handshake, untimed warm-up calls, then the timed calls "
            "(write the request, read the answer line); the median of the runs' p50 and p99. "
            "Every answer is checked (`isError: false`, the Record's title). \"Server CPU per call\" is the "
            "user + system time of the server process over the timed calls, divided by their number. "
            "The floor includes no MCP at all; the pipe row is the part of every stdio figure that is "
            "this Python client's own I/O."]
    return out


def http_table(h: dict, targets: list) -> list[str]:
    out = ["### 3. Streamable HTTP under load (`tools/call lorebase_get`, stateless, JSON responses, wrk)", "",
           "| clients | Herald calls/s | p50 | p99 | errors | peak RSS | CPU/call | peer calls/s | p50 | p99 "
           "| errors | peak RSS | CPU/call | Herald ÷ peer calls/s | Keeper CPU/call | wrk CPU/call |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    hl, pl = h["herald"]["levels"], h.get("peer", {}).get("levels", {})
    for c in sorted(hl, key=int):
        a, b = hl[c], pl.get(c, {})
        cells = [str(c)]
        for r in (a, b):
            cells += [f"{r['calls_per_s']:.0f}", ms(r["p50_ms"]), ms(r["p99_ms"]),
                      f"{r['errors']} / {r['requests']}", mb(r["peak_rss_kb"]), us(r["cpu_us_per_call"])] if r \
                else ["–"] * 6
        cells.append(ratio(a["calls_per_s"], b["calls_per_s"]) if b else "–")
        cells += [us(a.get("keeper_cpu_us_per_call", 0)), us(a.get("wrk_cpu_us_per_call", 0))]
        out.append("| " + " | ".join(cells) + " |")
        if int(c) == 64 and b:
            targets.append(("64 clients: ≥ 10× the peer's calls/s", ratio(a["calls_per_s"], b["calls_per_s"]),
                            a["calls_per_s"] >= 10 * b["calls_per_s"]))
            targets.append(("64 clients: p99 ≤ 10 ms", ms(a["p99_ms"]), a["p99_ms"] <= 10))
            targets.append(("64 clients: no errors", f"{a['errors']} of {a['requests']}", a["errors"] == 0))
            targets.append(("64 clients: RSS ≤ 50 MB", mb(a["peak_rss_kb"]), a["peak_rss_kb"] <= 50 * 1024))
    out += ["", "Each cell: the median of the runs (errors and requests summed over them, peak RSS the highest); "
            "the levels run in ascending order, so a level's peak RSS includes no run at a higher level. "
            "wrk runs on the same 2 cores as the server and the sandbox Keeper (loopback), with one or two "
            "threads; errors are connect/read/write errors, timeouts (10 s) and answers that are not HTTP 200 "
            "with `isError: false` and the Record's title. CPU/call is the server's user + system time over the "
            "run divided by the calls answered; Keeper CPU/call and wrk CPU/call are the sandbox Keeper's "
            "and the load client's during Herald's "
            "runs: with Herald's, what one call costs the 2 cores."]
    return out


def floor_table(h: dict, targets: list) -> list[str]:
    """Herald beside the floor of its own architecture (benches/floor), same run."""
    hl, fl = h["herald"]["levels"], h["floor"]["levels"]
    rounds = h["herald"].get("floor_rounds", {})
    out = ["### 3b. Herald ÷ the floor (rmcp + reqwest alone, `benches/floor`), same run, interleaved", "",
           "| clients | floor calls/s | p50 | p99 | errors | peak RSS | CPU/call | Herald ÷ floor calls/s "
           "| Herald ÷ floor p99 | per round: calls/s ratio, p99 ratio |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for c in sorted(hl, key=int):
        a, f = hl[c], fl.get(c)
        if not f:
            continue
        per = ", ".join(f"{r['calls_ratio']:.2f} / {r['p99_ratio']:.2f}" for r in rounds.get(c, []))
        out.append(f"| {c} | {f['calls_per_s']:.0f} | {ms(f['p50_ms'])} | {ms(f['p99_ms'])} "
                   f"| {f['errors']} / {f['requests']} | {mb(f['peak_rss_kb'])} | {us(f['cpu_us_per_call'])} "
                   f"| {a['calls_per_s'] / f['calls_per_s']:.2f} | {a['p99_ms'] / f['p99_ms']:.2f} | {per} |")
        if int(c) == 64:
            targets.append(("64 clients: ≥ 90 % of the floor's calls/s",
                            f"{a['calls_per_s'] / f['calls_per_s']:.0%}", a["calls_per_s"] >= 0.9 * f["calls_per_s"]))
            targets.append(("64 clients: p99 ≤ 1.2× the floor's",
                            f"{a['p99_ms'] / f['p99_ms']:.2f}×", a["p99_ms"] <= 1.2 * f["p99_ms"]))
    out += ["", "The floor is rmcp's stateless JSON Streamable HTTP server with one tool making the same "
            "Keeper GET with reqwest and answering its body as text: no settings, guard, argument checks, "
            "rendering or caps. Herald and the floor run in turns at every level (Herald, floor, Herald, "
            "floor, ...), so both see the same load; the ratios are of the medians, and per round."]
    return out


def memory_table(h: dict) -> list[str]:
    if "peer" not in h:
        return []
    hr, pr = h["herald"], h["peer"]
    peak_h = max(r["peak_rss_kb"] for r in hr["levels"].values())
    peak_p = max(r["peak_rss_kb"] for r in pr["levels"].values())
    return ["### 4. Memory (Streamable HTTP server)", "",
            "| | Herald | peer | peer ÷ Herald |", "|---|---|---|---|",
            f"| RSS idle after start (one `tools/list` answered) | {mb(hr['idle_rss_kb'])} | {mb(pr['idle_rss_kb'])} "
            f"| {ratio(pr['idle_rss_kb'], hr['idle_rss_kb'])} |",
            f"| peak RSS under load (any level of 3.) | {mb(peak_h)} | {mb(peak_p)} | {ratio(peak_p, peak_h)} |"]


def size_table(s: dict) -> list[str]:
    out = ["### 5. Size", "", "| artifact | size | what |", "|---|---|---|"]
    labels = {"binary": "release binary", "npm": "npm platform package (packed)", "wheel": "wheel",
              "peer": "peer: installed dependencies"}
    for key, label in labels.items():
        r = s.get(key)
        if not r:
            out.append(f"| {label} | not built here | |")
        elif "error" in r:
            out.append(f"| {label} | failed: {r['error'][:100]} | |")
        else:
            extra = f" ({size(r['unpacked'])} unpacked)" if "unpacked" in r else ""
            out.append(f"| {label} | {size(r['bytes'])}{extra} | {r['what']} |")
    return out


def markdown(results: dict, command: str) -> str:
    m = results["machine"]
    targets: list[tuple[str, str, bool]] = []
    lines = [MARK_START, "",
             f"Measured on {m['cpu']}, {m['cores']} cores, Linux {m['kernel']}, Python {m['python']}, "
             f"Node {m['node']}, {m['date']}; release build; the sandbox Keeper (release) on loopback. "
             f"Load average (1 min) {m.get('load_before', 0):.1f} before the run, {m.get('load_after', 0):.1f} "
             "after it: other work on the machine shows in every figure, most in tails and in the "
             "interpreters' start.", "",
             f"Command: `{command}` (raw figures: `target/bench/results.json`)", ""]
    if "cold" in results:
        lines += cold_table(results["cold"], targets) + [""]
    if "calls" in results:
        lines += calls_table(results["calls"], results["argv"], targets) + [""]
    if "http" in results:
        lines += http_table(results["http"], targets) + [""]
        if "floor" in results["http"]:
            lines += floor_table(results["http"], targets) + [""]
        lines += memory_table(results["http"]) + [""]
    if "sizes" in results:
        lines += size_table(results["sizes"]) + [""]
    if targets:
        lines += ["### Targets", "", "| target | this run | |", "|---|---|---|"]
        lines += [f"| {t} | {v} | {ok(c)} |" for t, v, c in targets] + [""]
    lines.append(MARK_END)
    return "\n".join(lines)


def write(doc: Path, block: str) -> None:
    replace_block(doc, block, MARK_START, MARK_END, SECTION)


def replace_block(doc: Path, block: str, start: str, end: str, section: str) -> None:
    """Puts `block` (which begins with `start` and ends with `end`) in place of the one between
    those marks in `doc`; without them, appends it under the heading `section`."""
    text = doc.read_text() if doc.exists() else "# Benchmarks\n"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        text = head + block + tail
    else:
        text = text.rstrip("\n") + "\n\n" + section + block + "\n"
    doc.write_text(text)

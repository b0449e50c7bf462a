"""Smoke test of the benchmark's peer: it starts over stdio, answers tools/list
with the four tools, and answers the same calls with the same text and the
same structured content as lorebase-herald, both against one sandbox Keeper.

    python benches/peers/python_sdk_herald/smoke.py --peer-python target/bench/peer-venv/bin/python \\
        --herald target/debug/lorebase-herald --sandbox target/debug/lorebase-sandbox

Exit 0 when every check passes; each failure is printed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from harness import procs, stdio  # noqa: E402

TOOLS = {"lorebase_get", "lorebase_query", "lorebase_search", "lorebase_schema"}
CALLS = [
    ("lorebase_get", {"ref": "Supplier/S-1001"}),
    ("lorebase_get", {"ref": "Supplier/S-1002", "links": True}),
    ("lorebase_get", {"ref": "Supplier/S-1001", "format": "json"}),
    ("lorebase_get", {"ref": "Supplier/S-0000"}),
    ("lorebase_search", {"query": "alloys", "limit": 5}),
    ("lorebase_query", {"query": {"kind": "Supplier", "limit": 3}}),
    ("lorebase_query", {"query": {"kind": "PurchaseOrder", "aggregate": {"group_by": "status"}}}),
    ("lorebase_schema", {}),
    ("lorebase_schema", {"kinds": ["Supplier"], "detail": "full"}),
]


def answers(argv: list[str], env: dict[str, str], log: Path) -> tuple[set[str], list[dict]]:
    s = stdio.StdioSession(argv, env, log)
    try:
        s.send(stdio.INITIALIZE)
        s.answer(1)
        s.send(stdio.INITIALIZED)
        s.send(stdio.TOOLS_LIST)
        names = {t["name"] for t in s.answer(2)["result"]["tools"]}
        results = []
        for i, (tool, arguments) in enumerate(CALLS):
            s.send(stdio.call_message(10 + i, tool, arguments))
            results.append(s.answer(10 + i).get("result", {}))
        return names, results
    finally:
        s.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer-python", type=Path, required=True)
    parser.add_argument("--herald", type=Path, required=True)
    parser.add_argument("--sandbox", type=Path, required=True)
    parser.add_argument("--log", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "peer-smoke.log")
    args = parser.parse_args()
    sandbox = procs.Sandbox(args.sandbox, args.log.with_suffix(".sandbox.log"))
    failures = []
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LOREBASE")}
        env.update(LOREBASE_URL=sandbox.url, LOREBASE_API_KEY=sandbox.key, LOREBASE_DOMAIN="supply")
        # The peer declares output schemas (the SDK publishes its models), so
        # every success carries structuredContent: compare with Herald's opt-in.
        env.update(LOREBASE__HERALD__OUTPUT__SCHEMAS="true")
        peer_tools, peer = answers([str(args.peer_python), str(HERE / "server.py")], env, args.log)
        herald_tools, herald = answers([str(args.herald)], env, args.log)
    finally:
        sandbox.close()
    if peer_tools != TOOLS:
        failures.append(f"peer tools/list: {sorted(peer_tools)}")
    if not TOOLS <= herald_tools:
        failures.append(f"herald tools/list lacks {sorted(TOOLS - herald_tools)}")
    for (tool, arguments), p, h in zip(CALLS, peer, herald):
        what = f"{tool} {arguments}"
        p_text = p.get("content", [{}])[0].get("text")
        h_text = h.get("content", [{}])[0].get("text")
        if p_text != h_text:
            failures.append(f"{what}: text differs\n--- peer\n{p_text}\n--- herald\n{h_text}")
        if bool(p.get("isError")) != bool(h.get("isError")):
            failures.append(f"{what}: isError {p.get('isError')} (peer) vs {h.get('isError')} (herald)")
        if p.get("structuredContent") != h.get("structuredContent"):
            failures.append(f"{what}: structuredContent differs")
    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    print(f"peer smoke: {len(CALLS) + 1 - len(failures)} of {len(CALLS) + 1} checks passed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

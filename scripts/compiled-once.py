#!/usr/bin/env python3
"""Checks that a run of scripts/test.sh compiled each crate once (docs/architecture.md, "Build").

Reads the stage logs in target/test-logs (or the directory given):

- a dependency (cargo's `Compiling NAME vVERSION` line without a path) may be compiled by one
  stage only: two mean two package selections resolved different features for it (regenerate
  the workspace-hack crate) or a stage changed something its build script reads;
- a target of a workspace crate (from the `STAGE.cargo.json` messages of the stages that build
  with `--message-format=json`) may be compiled by one stage only; and the stages without such
  messages (maturin's, `cargo test`) may compile no workspace crate that another stage compiled.

A stage that builds for another profile or with instrumentation on purpose (cargo fuzz) is left
out with --ignore STAGE (scripts/test.sh passes the stages declared with --own-build).

Usage: scripts/compiled-once.py [LOG_DIR] [--ignore STAGE]...
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

COMPILING = re.compile(r"^\s*Compiling (\S+) v(\S+)( \((.*)\))?$")


def main() -> int:
    args = sys.argv[1:]
    ignored = {args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "--ignore"}
    positional = [arg for i, arg in enumerate(args) if arg != "--ignore" and (i == 0 or args[i - 1] != "--ignore")]
    logs = Path(positional[0] if positional else "target/test-logs")
    dependencies: dict[str, set[str]] = defaultdict(set)
    # (package, target kind, target name, test harness?) -> stages that compiled it
    workspace_units: dict[tuple[str, str, str, bool], set[str]] = defaultdict(set)
    workspace_by_stage: dict[str, set[str]] = defaultdict(set)
    unstructured: dict[str, set[str]] = defaultdict(set)  # workspace crate -> stages without JSON

    for log in sorted(logs.glob("*.log")):
        stage = log.stem
        if stage in ignored:
            continue
        has_json = (logs / f"{stage}.cargo.json").exists()
        for line in log.read_text(errors="replace").splitlines():
            found = COMPILING.match(line)
            if not found:
                continue
            name, version, _, path = found.groups()
            if path is None:
                dependencies[f"{name} v{version}"].add(stage)
            elif not has_json:
                unstructured[name].add(stage)

    for messages in sorted(logs.glob("*.cargo.json")):
        stage = messages.name.removesuffix(".cargo.json")
        if stage in ignored:
            continue
        for line in messages.read_text(errors="replace").splitlines():
            if not line.startswith("{"):
                continue
            message = json.loads(line)
            if message.get("reason") != "compiler-artifact" or message.get("fresh"):
                continue
            if not message["package_id"].startswith("path+"):
                continue
            target = message["target"]
            name = message["package_id"].split("#")[-1].split("@")[0]
            key = (name, ",".join(target["kind"]), target["name"], bool(message["profile"]["test"]))
            workspace_units[key].add(stage)
            workspace_by_stage[name].add(stage)

    problems = [f"  dependency {crate}: compiled by {', '.join(sorted(stages))}"
                for crate, stages in sorted(dependencies.items()) if len(stages) > 1]
    problems += [f"  {name} {kind} `{target}`{' (test)' if test else ''}: compiled by {', '.join(sorted(stages))}"
                 for (name, kind, target, test), stages in sorted(workspace_units.items()) if len(stages) > 1]
    problems += [f"  {name}: compiled by {', '.join(sorted(stages))} and again by {', '.join(sorted(workspace_by_stage[name]))}"
                 for name, stages in sorted(unstructured.items()) if workspace_by_stage.get(name)]
    if problems:
        print("compiled more than once in this run:")
        print("\n".join(problems))
        print("(a stale workspace-hack? `cargo hakari generate && cargo hakari manage-deps`, docs/architecture.md)")
        return 1
    print(f"compiled once each: {len(dependencies)} dependencies, {len(workspace_units)} targets of the workspace's crates")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks that docs/architecture.md names only what exists: every repository path and
every Rust module path it writes in `code` spans or links.

- A repository path (`core/src/keeper/mod.rs`, `deploy/compose/`, a link to
  `operations.md`): a file or folder of the repository, looked up from the root, then
  from docs/ (links), then inside each crate's `src/` (the page's tables write paths
  relative to the crate they describe: `cli/mod.rs`, `http/connection/`).
- A module path (`server::http::heap_trim`, `keeper::model`, `tools::serving::Serving`,
  `http::{bind, serve}`): its first segment names the crate (`core`, `herald_core`,
  `server`, `herald_server`, `sandbox`, `lorebase_sandbox`, `crate`) or a top-level
  module of one; each following segment is a module file (`a.rs`, `a/mod.rs`) or
  inline `mod`, until one that is an item defined or re-exported in that module; what
  comes after an item (a method, a constant, a variant) must be defined in the crate. A path whose first
  segment is neither (`rmcp::model`, `Toolbox::view`) is not the repository's and is
  skipped.

Placeholders are skipped: a span with `<...>`, `{name}`, `*`, `...` or `NAME`. Run from
the repository root; prints each dead name with its line and exits 1. It first checks
itself on a small tree written to a temporary folder: a checker that stopped finding a
dead path fails the run.

    python3 scripts/doc-paths.py                     # docs/architecture.md
    python3 scripts/doc-paths.py docs/other.md       # another page, the same way
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

#: Crate names as the docs write them -> the crate's source folder.
CRATES = {
    "core": "core/src",
    "herald_core": "core/src",
    "server": "server/src",
    "herald_server": "server/src",
    "sandbox": "sandbox/src",
    "lorebase_sandbox": "sandbox/src",
    "keeper_wire": "keeper-wire/src",
    "bindings_node": "bindings-node/src",
    "bindings_python": "bindings-python/src",
    "bindings_c": "bindings-c/src",
}
SOURCE_DIRS = sorted(set(CRATES.values()))

CODE_SPAN = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
MODULE_PATH = re.compile(r"\b([a-z_][a-z0-9_]*(?:::(?:[A-Za-z_][A-Za-z0-9_]*|\{[^}]*\}))+)")
REPO_PATH = re.compile(r"^\.?/?[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*/?$")
PLACEHOLDER = re.compile(r"<[^>]*>|\{[a-z_]+\}|\*|\.\.\.|\bNAME\b|\bSTAGE\b|\bX\b")
MCP_METHOD = re.compile(r"^(?:tools|resources|prompts|logging|completion|server|notifications|skills)/[a-z][A-Za-z/_]*$")
# An MCP extension's identifier (`io.modelcontextprotocol/ui`): a reversed domain, not a file.
EXTENSION_ID = re.compile(r"^[a-z]+(?:\.[a-z0-9-]+)+/[a-z-]+$")
ITEM = r"\b(?:fn|struct|enum|trait|type|const|static|mod|union|macro_rules!)\s+{name}\b"


def repo_paths(span: str) -> list[str]:
    """The repository paths a code span writes (one per span, when it is one)."""
    span = span.strip()
    if "/" not in span or "::" in span or " " in span or PLACEHOLDER.search(span):
        return []
    if span.startswith("/") or span.startswith("http") or span.startswith("@"):
        return []  # a URL path, an address, an npm scope
    if MCP_METHOD.match(span):
        return []  # `tools/list`, `logging/setLevel`: MCP methods, not files
    if EXTENSION_ID.match(span):
        return []
    if not REPO_PATH.match(span):
        return []
    return [span]


def expand(path: str) -> list[list[str]]:
    """`a::{b, c::d}` -> [a, b], [a, c, d] (one level of braces, as the docs write them)."""
    m = re.match(r"^(.*?)::\{([^}]*)\}(.*)$", path)
    if not m:
        return [path.split("::")]
    head = m.group(1).split("::")
    out = []
    for part in m.group(2).split(","):
        part = part.strip()
        if part and part != "self":
            out.append(head + part.split("::"))
        elif part == "self":
            out.append(head)
    return out


def module_file(src: Path, module: list[str]) -> Path | None:
    base = src.joinpath(*module) if module else src
    if not module:
        for root in ("lib.rs", "main.rs"):
            if (src / root).exists():
                return src / root
        return None
    for candidate in (base.with_suffix(".rs"), base / "mod.rs"):
        if candidate.exists():
            return candidate
    return None


def crate_as(file: Path, name: str) -> str | None:
    """The source folder of the workspace crate a module file re-exports as the module `name`
    (`pub use keeper_wire as model;`), if it does."""
    m = re.search(rf"\bpub(?:\([^)]*\))?\s+use\s+([a-z_][a-z0-9_]*)\s+as\s+{re.escape(name)}\s*;", file.read_text(errors="replace"))
    return CRATES.get(m.group(1)) if m else None


def defines(file: Path, name: str) -> bool:
    """Whether a module file defines or re-exports `name` (or declares it as a module).
    An enum variant or a field is not an item: the docs name it after its type."""
    text = file.read_text(errors="replace")
    name = re.escape(name)
    if re.search(ITEM.format(name=name), text):
        return True
    # A re-export: the name as the leaf of a `pub use` (not a segment followed by `::`).
    for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", text):
        if re.search(rf"\b{name}\b(?!\s*::)", m.group(1)):
            return True
    return False


def defined_in_crate(src: Path, name: str) -> bool:
    """Whether any file of the crate defines `name` as an item or an enum variant."""
    item = re.compile(ITEM.format(name=re.escape(name)) + rf"|^\s*{re.escape(name)}\b\s*[,({{]", re.M)
    return any(item.search(f.read_text(errors="replace")) for f in src.rglob("*.rs"))


def resolves(root: Path, segments: list[str]) -> bool | None:
    """True when the module path exists, False when it does not, None when it is not one
    of the repository's (its first segment names no crate and no top-level module)."""
    first, rest = segments[0], segments[1:]
    if first in CRATES:
        candidates = [(root / CRATES[first], rest)]
    elif first == "crate":
        candidates = [(root / d, rest) for d in SOURCE_DIRS]
    else:
        candidates = [(root / d, segments) for d in SOURCE_DIRS if module_file(root / d, [first])]
        if not candidates:
            return None
    for src, path in candidates:
        module: list[str] = []
        ok = True
        for i, seg in enumerate(path):
            if module_file(src, module + [seg]):
                module.append(seg)
                continue
            file = module_file(src, module)
            # A workspace crate re-exported as a module: the path goes on in that crate.
            other = crate_as(file, seg) if file is not None else None
            if other is not None:
                src, module = root / other, []
                continue
            ok = file is not None and defines(file, seg)
            # What follows an item (`Type::method`, `Type::CONST`) is defined somewhere in the crate.
            ok = ok and all(defined_in_crate(src, name) for name in path[i + 1 :])
            break
        if ok:
            return True
    return False


def check(root: Path, page: Path) -> list[str]:
    """The dead names of `page`, each as `page:line: name (what)`."""
    dead = []
    for n, line in enumerate(page.read_text().splitlines(), 1):
        spans = CODE_SPAN.findall(line)
        for span in spans:
            for path in repo_paths(span):
                rel = path.lstrip("./") if path.startswith("./") else path
                places = [root / rel, page.parent / rel] + [root / d / rel for d in SOURCE_DIRS]
                if not any(p.exists() for p in places):
                    dead.append(f"{page}:{n}: `{path}` (no such file or folder)")
            if PLACEHOLDER.search(span):
                continue
            for m in MODULE_PATH.finditer(span):
                for segments in expand(m.group(1)):
                    if resolves(root, segments) is False:
                        dead.append(f"{page}:{n}: `{'::'.join(segments)}` (no such module or item)")
        for target in LINK.findall(line):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                dead.append(f"{page}:{n}: link {target} (no such file)")
    return dead


#: The self-check's tree: one crate with a module, a nested one and an item.
SELF_CHECK = {
    "core/src/lib.rs": "pub mod keeper;\n",
    "core/src/keeper/mod.rs": (
        "pub mod health;\npub use health::Health;\nuse crate::keeper::health::Health as _;\n"
        "pub use keeper_wire as model;\n"
    ),
    "core/src/keeper/health.rs": "pub struct Health;\n",
    "keeper-wire/src/lib.rs": "mod reads;\npub use reads::*;\n",
    "keeper-wire/src/reads.rs": "pub struct RecordView;\n",
    "docs/other.md": "",
    "docs/page.md": (
        "`core/src/keeper/mod.rs`, `keeper/health.rs`, `core::keeper::health`, `keeper::Health`,\n"
        "`herald_core::keeper::{health, Health}`, [other](other.md), `rmcp::model`, `<name>/x.rs`\n"
        "dead: `core/src/gone.rs`\n"
        "dead: `core::keeper::gone`\n"
        "dead: `keeper::health::Gone`\n"
        "dead: [gone](gone.md)\n"
        "`tools/list`, `logging/setLevel`; dead (named only inside a path): `keeper::health::keeper`\n"
        "dead: `keeper::Health::gone`\n"
        "`keeper::model::reads::RecordView`, `keeper_wire::reads`; dead: `keeper::model::Gone`\n"
    ),
}


def self_check() -> list[str]:
    """What the checker gets wrong on SELF_CHECK (empty when it finds exactly the dead names)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, text in SELF_CHECK.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        found = [d.split(": ", 1)[1] for d in check(root, root / "docs/page.md")]
    want = [
        "`core/src/gone.rs` (no such file or folder)",
        "`core::keeper::gone` (no such module or item)",
        "`keeper::health::Gone` (no such module or item)",
        "link gone.md (no such file)",
        "`keeper::health::keeper` (no such module or item)",
        "`keeper::Health::gone` (no such module or item)",
        "`keeper::model::Gone` (no such module or item)",
    ]
    return [] if found == want else [f"expected {want}, found {found}"]


def main() -> int:
    wrong = self_check()
    if wrong:
        print("doc-paths.py no longer checks what it should: " + "; ".join(wrong))
        return 1
    pages = [Path(p) for p in sys.argv[1:]] or [Path("docs/architecture.md")]
    dead = [d for page in pages for d in check(Path("."), page)]
    if dead:
        print("\n".join(dead))
        print(f"\n{len(dead)} names in {', '.join(map(str, pages))} are not in the repository: fix or drop them.")
        return 1
    print(f"every path and module {', '.join(map(str, pages))} names exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())

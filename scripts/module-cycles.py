#!/usr/bin/env python3
"""Finds import circles between the source files of each Rust crate of the workspace.

A file depends on another when its code names an item of that file's module:
`use crate::a::b::Item`, `use super::Item`, `use child::Item`, or the same paths
written inline (`crate::render::finish(..)`, `super::Ctx`, `handlers::run(..)`).
Re-exports are followed: a re-export (`pub use child::Item`, `pub(crate) use`,
`pub use child::*`) is a dependency of the file that writes it on the file that
defines the item, and a path through a re-exporting file (`crate::data::Item`
where `data` re-exports it) is a dependency on the defining file, so a `mod.rs`
that passes its children's items on must not define what those children use
(put that in a file of its own). Comments, strings and inline `mod tests` are not
counted.

A `mod child;` line is an edge too, from the parent to the child: a parent depends on
its children (what it re-exports, what it does with them). Counting it finds the
circles between layers that pass through a parent, such as `cli` (which declares
`cli::demo`) -> `cli::demo` -> `app` -> `cli`. A circle of one folder only (a `mod.rs`
defining an item its children use, `mod` line one way, `super::` the other) is not a
circle between layers and is not reported (`--edges` lists those folders); a circle
between siblings is reported with or without `mod` lines. A `mod` line behind
`#[cfg(test)]` (a test module in a file of its own) is part of its parent, not an edge.

Each file is one node (`core/src/tools/mod.rs` is the module `tools`). A cycle
is a strongly connected set of two or more files; the script prints every one,
with its edges and where each is written, and exits 1. Run from the
repository root; it reads files only and takes well under a second.

    python3 scripts/module-cycles.py            # every crate of the workspace
    python3 scripts/module-cycles.py --edges    # also print every edge

Each run first checks itself on a small crate written to a temporary folder (a
circle through a re-export, a path followed through one, a glob, a circle through a
`mod` line across folders, one folder's loop left out): a checker that stopped
seeing them fails the run.

A crate whose root documents its modules "from the bottom up" (core/src/lib.rs: a
bulleted list of [`module`] links after the words "from the bottom up") is also
checked against that order: a file of one top-level module may use only the
modules listed before its own (and its own). Every edge that goes up the list is
printed, with where it is written, and fails the run. A crate whose root documents
no such list may have a partial one here (`LAYERS`: the server's `shutdown`, `logging`,
`mcp`, `http`, `app`, `cli`, each below the next; the sandbox's `data` below `text`
below `store`), checked the same way, so a
dependency that turns back is caught even before it closes a circle.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

#: The crates checked: folder -> the root file of its library or binary.
ROOTS = [
    "keeper-wire/src/lib.rs",
    "core/src/lib.rs",
    "server/src/lib.rs",
    "server/src/main.rs",
    "sandbox/src/lib.rs",
    "sandbox/src/main.rs",
    "bindings-node/src/lib.rs",
    "bindings-python/src/lib.rs",
    "bindings-c/src/lib.rs",
]

MOD_DECL = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;", re.M)
#: A `mod child;` behind `#[cfg(test)]`: a test module in a file of its own, part of its parent.
TEST_MOD_DECL = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;")
INLINE_MOD = re.compile(r"(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*\{")
USE_STMT = re.compile(r"(?:^|[;{}\s])(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.S)
ITEM_DEF = re.compile(
    r"\b(?:fn|struct|enum|trait|type|const|static|union|macro_rules!)\s+([A-Za-z_][A-Za-z0-9_]*)"
)
PATH = re.compile(r"(?<![A-Za-z0-9_:])((?:crate|super|self|[a-z_][a-z0-9_]*)(?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def strip_code(text: str) -> str:
    """The code without comments, string and char literals (replaced by spaces)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    if text[i] == "\n":
                        out.append("\n")
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:]):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            end = n if end < 0 else end + 1 + len(hashes)
            out.append(" " + "\n" * text.count("\n", i, end))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(" " + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'", text[i:]):
            m = re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'", text[i:])
            out.append(" ")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def blank_inline_modules(code: str) -> str:
    """Blanks inline `mod name { ... }` blocks (tests): their `super::` is the file itself."""
    while True:
        m = INLINE_MOD.search(code)
        if not m:
            return code
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        code = code[: m.start()] + re.sub(r"[^\n]", " ", code[m.start() : j]) + code[j:]


class Module:
    def __init__(self, path: Path, name: tuple[str, ...], crate: str) -> None:
        self.path, self.name, self.crate = path, name, crate
        self.code = blank_inline_modules(strip_code(path.read_text()))
        self.children = {c: None for c in MOD_DECL.findall(self.code)}
        #: Declared child module -> where its `mod` line is (test modules left out).
        tests = set(TEST_MOD_DECL.findall(self.code))
        self.declared = {m.group(1): m.start(1) for m in MOD_DECL.finditer(self.code) if m.group(1) not in tests}
        #: Names of the items this file defines (fn, struct, enum, trait, type, ...).
        self.defined = set(ITEM_DEF.findall(self.code))
        #: Re-exported name -> the path it names, as written (relative to this file).
        self.reexports: dict[str, list[str]] = {}
        #: The paths of `pub use path::*`.
        self.globs: list[list[str]] = []
        for m in USE_STMT.finditer(self.code):
            if not m.group(1):
                continue
            for path, alias in expand_use_named(m.group(2)):
                if path and path[-1] == "*":
                    self.globs.append(path[:-1])
                elif path:
                    if path[-1] == "self":
                        path = path[:-1]
                    if path:
                        self.reexports[alias or path[-1]] = path

    def label(self) -> str:
        return str(self.path)


def child_file(parent: Path, is_root_like: bool, child: str) -> Path | None:
    base = parent.parent if is_root_like else parent.with_suffix("")
    for candidate in (base / f"{child}.rs", base / child / "mod.rs"):
        if candidate.exists():
            return candidate
    return None


def load_crate(root: str) -> dict[tuple[str, ...], Module]:
    modules: dict[tuple[str, ...], Module] = {}
    todo = [(Path(root), ())]
    while todo:
        path, name = todo.pop()
        module = Module(path, name, root)
        modules[name] = module
        root_like = path.name in ("lib.rs", "main.rs", "mod.rs")
        for child in module.children:
            file = child_file(path, root_like, child)
            if file is not None:
                todo.append((file, name + (child,)))
    return modules


def locate(modules, here: tuple[str, ...], segments: list[str]):
    """The file a path's leading segments name (the longest prefix that is a file) and
    the segments after it, or None for an external crate, an associated item, a local name."""
    head, rest = segments[0], segments[1:]
    if head == "crate":
        base = ()
    elif head == "super":
        base = here[:-1]
        while rest and rest[0] == "super":
            base, rest = base[:-1], rest[1:]
    elif head == "self":
        base = here
    elif head in modules[here].children:
        base, rest = here + (head,), rest
    else:
        return None
    while rest and base + (rest[0],) in modules:
        base, rest = base + (rest[0],), rest[1:]
    return base, rest


def resolve(modules, here: tuple[str, ...], segments: list[str], depth: int = 0) -> tuple[str, ...] | None:
    """The file that defines what a path names: the file its leading segments name, or,
    when that file only re-exports the item, the file the re-export leads to."""
    found = locate(modules, here, segments)
    if found is None:
        return None
    module, rest = found
    if not rest or depth > 16:
        return module
    name, m = rest[0], modules[module]
    if name in m.defined:
        return module
    if name in m.reexports:
        target = resolve(modules, module, m.reexports[name] + rest[1:], depth + 1)
        return module if target is None else target
    for glob in m.globs:
        source = locate(modules, module, glob)
        if source is None or source[1]:
            continue
        g = modules[source[0]]
        if name in g.defined or name in g.reexports or g.globs:
            target = resolve(modules, source[0], ["self"] + rest, depth + 1)
            if target is not None and (name in g.defined or target != source[0]):
                return target
    return module


def expand_use_named(tree: str) -> list[tuple[list[str], str | None]]:
    """The paths of one `use` tree with their aliases
    (`a::{b, c::{d as e}}` -> (a::b, None), (a::c::d, "e"))."""
    tree = re.sub(r"\s+", " ", tree).strip()
    out: list[tuple[list[str], str | None]] = []

    def walk(prefix: list[str], t: str) -> None:
        t = t.strip()
        if "{" not in t:
            alias = None
            m = re.match(r"(.*?)\s+as\s+([A-Za-z_]\w*)$", t)
            if m:
                t, alias = m.group(1), m.group(2)
            segs = [s.strip() for s in t.split("::") if s.strip()]
            if prefix + segs:
                out.append((prefix + segs, alias if alias != "_" else "_"))
            return
        brace = t.index("{")
        pre = [s.strip() for s in t[:brace].split("::") if s.strip()]
        inner = t[brace + 1 : t.rindex("}")]
        parts, depth, start = [], 0, 0
        for i, ch in enumerate(inner):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(inner[start:i])
                start = i + 1
        parts.append(inner[start:])
        for p in parts:
            if p.strip():
                walk(prefix + pre, p)

    walk([], tree)
    return out


def expand_use(tree: str) -> list[list[str]]:
    """The paths of one `use` tree (`a::{b, c::{d, e}}` -> a::b, a::c::d, a::c::e)."""
    return [path for path, _ in expand_use_named(tree)]


def edges_of(modules, here: tuple[str, ...]) -> dict[tuple[str, ...], str]:
    """The modules `here` depends on, each with the first line naming it."""
    module = modules[here]
    code = module.code
    found: dict[tuple[str, ...], str] = {}

    def add(target, pos: int) -> None:
        if target is None or target == here or target in found:
            return
        line = code.count("\n", 0, pos) + 1
        found[target] = f"{module.path}:{line}"

    uses = list(USE_STMT.finditer(code))
    use_spans = [(m.start(2), m.end(2)) for m in uses]
    outside_uses = "".join(
        code[a:b] for a, b in zip([0] + [e for _, e in use_spans], [s for s, _ in use_spans] + [len(code)])
    )
    for m in uses:
        if m.group(1):
            # A re-export depends on what it passes on, like a plain `use`: the file that defines
            # the item (a chain of re-exports followed), or the folder of a glob.
            for path, _ in expand_use_named(m.group(2)):
                if path and path[-1] == "*":
                    source = locate(modules, here, path[:-1]) if path[:-1] else None
                    add(source[0] if source and not source[1] else None, m.start(2))
                elif path:
                    add(resolve(modules, here, path[:-1] if path[-1] == "self" else path), m.start(2))
            continue
        for path in expand_use(m.group(2)):
            path = [s for s in path if s != "*"]
            if not path:
                continue
            if path[-1] == "self":
                path = path[:-1]
            add(resolve(modules, here, path), m.start(2))
    for m in PATH.finditer(code):
        if any(a <= m.start() < b for a, b in use_spans):
            continue
        segments = m.group(1).split("::")
        add(resolve(modules, here, segments), m.start())
    return found


def mod_edges(modules, here: tuple[str, ...]) -> dict[tuple[str, ...], str]:
    """The children `here` declares (`mod child;`, test modules left out), each with
    where its `mod` line is: a parent depends on its children, as its re-exports and
    whatever it does with them do."""
    module = modules[here]
    return {
        here + (child,): f"{module.path}:{module.code.count(chr(10), 0, pos) + 1}"
        for child, pos in module.declared.items()
        if here + (child,) in modules
    }


def unit(modules, name: tuple[str, ...]) -> tuple[str, ...]:
    """The folder a file belongs to: a file with children (`mod.rs`, the crate root,
    `a.rs` beside `a/`) is its own; any other file is its parent's."""
    return name if modules[name].declared or not name else name[:-1]


def layer_circles(modules, graph: dict, with_mods: dict) -> list[list]:
    """The circles of the graph that counts `mod` declarations as edges and that span
    more than one folder. One folder's circle (a `mod.rs` defining what its children
    use: parent -> child by `mod`, child -> parent by `super::`) is left out: it is
    not a circle between layers, and `graph` already reports any circle between
    siblings."""
    plain = {frozenset(c) for c in cycles(graph)}
    out = []
    for comp in cycles(with_mods):
        if frozenset(comp) in plain:
            continue
        if len({unit(modules, v) for v in comp}) > 1:
            out.append(comp)
    return out


def folder_loops(modules, with_mods: dict) -> list[tuple[str, ...]]:
    """The folders whose `mod.rs` defines something its children use (a circle of
    one folder once `mod` lines count)."""
    return sorted({unit(modules, comp[0]) for comp in cycles(with_mods) if len({unit(modules, v) for v in comp}) == 1})


#: Layers of crates whose root does not document them all, bottom first: a module may use
#: only those listed before it (and its own), whether or not a circle closes. The server's
#: command line parses and calls `app`, which knows no `cli` type; the sandbox's data
#: (the Domain files) is below its text index, which is below its store.
LAYERS = {
    "server/src/lib.rs": ["error", "shutdown", "logging", "mcp", "http", "app", "cli"],
    "sandbox/src/lib.rs": ["data", "text", "store"],
}

LAYER_ITEM = re.compile(r"^//! - \[`([a-z_]+)`\]", re.M)


def documented_layers(root: str) -> list[str]:
    """The top-level modules in the order the crate root documents them, bottom first
    (empty when it documents none)."""
    text = Path(root).read_text()
    at = text.find("from the bottom up")
    if at < 0:
        return []
    return LAYER_ITEM.findall(text[at:])


def layer_violations(layers: list[str], where: dict) -> list[str]:
    """The edges from a module to one documented after it (above it in the layers)."""
    rank = {name: i for i, name in enumerate(layers)}
    out = []
    for source, targets in where.items():
        if not source or source[0] not in rank:
            continue
        for target, line in targets.items():
            if target and target[0] in rank and rank[target[0]] > rank[source[0]]:
                out.append(f"  {source[0]} uses {target[0]}, listed above it  ({line})")
    return sorted(out)


def cycles(graph: dict) -> list[list]:
    """Strongly connected components with two or more members (Tarjan)."""
    index: dict = {}
    low: dict = {}
    stack: list = []
    on: set = set()
    out: list[list] = []
    counter = [0]

    def visit(v) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


#: The crate of the self-check: `a` re-exports `inner`'s item while `inner` uses `a`'s
#: (a circle only through the re-export); `c` names `inner`'s item through `a`; `d`
#: through a glob re-export of `e`.
SELF_CHECK = {
    "lib.rs": "mod a;\nmod c;\nmod d;\nmod p;\nmod x;\nmod z;\n",
    "a/mod.rs": "mod inner;\npub(crate) use inner::Thing;\npub struct Base;\n",
    "a/inner.rs": "use super::Base;\npub struct Thing(Base);\n",
    "c.rs": "use crate::a::Thing;\n",
    "d/mod.rs": "mod e;\npub use e::*;\npub fn f() -> crate::d::Other { todo!() }\n",
    "d/e.rs": "pub struct Other;\n",
    # A circle only through a `mod` line, across folders: x -> x::y (mod) -> z -> x.
    "x/mod.rs": "mod y;\npub struct W;\n",
    "x/y.rs": "pub fn g() { crate::z::h() }\n",
    "z.rs": "pub fn h() {}\npub fn f(_: crate::x::W) {}\n",
    # One folder's loop (p defines what its child q uses), and a test module in a file.
    "p/mod.rs": "mod q;\n#[cfg(test)]\nmod tests;\npub struct P;\n",
    "p/q.rs": "use super::P;\n",
    "p/tests.rs": "use super::P;\n",
}


def self_check() -> list[str]:
    """What the checker misses on SELF_CHECK (empty when it sees everything)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for name, text in SELF_CHECK.items():
            (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / name).write_text(text)
        modules = load_crate(str(Path(tmp) / "lib.rs"))
        graph = {name: set(edges_of(modules, name)) for name in modules}
        with_mods = {name: graph[name] | set(mod_edges(modules, name)) for name in modules}
        circles = sorted(map(sorted, layer_circles(modules, graph, with_mods)))
        loops = folder_loops(modules, with_mods)
    missed = []
    if circles != [[("x",), ("x", "y"), ("z",)]]:
        missed.append(f"the circle through a `mod` line (x -> x::y -> z -> x; found {circles})")
    wrong = layer_violations(["x", "z"], {name: edges_of(modules, name) for name in modules})
    if len(wrong) != 1 or "x uses z" not in wrong[0]:
        missed.append(f"an edge up the layers (x::y uses z, listed above x; found {wrong})")
    if loops != [("a",), ("p",)]:
        missed.append(f"the folders whose mod.rs defines what a child uses (a, p; found {loops})")
    if sorted(map(sorted, cycles(graph))) != [[("a",), ("a", "inner")]]:
        missed.append(f"the circle through a re-export (found {cycles(graph)})")
    if ("a", "inner") not in graph[("c",)]:
        missed.append("a path through a re-export (c -> a::inner)")
    if ("d", "e") not in graph[("d",)]:
        missed.append("a glob re-export (d -> d::e)")
    return missed


def main() -> int:
    show_edges = "--edges" in sys.argv
    failed = False
    missed = self_check()
    if missed:
        print("module-cycles.py no longer sees: " + "; ".join(missed))
        return 1
    for root in ROOTS:
        if not Path(root).exists():
            continue
        modules = load_crate(root)
        graph = {}
        where = {}
        for name in modules:
            found = edges_of(modules, name)
            graph[name] = set(found)
            where[name] = found
        if show_edges:
            for name in sorted(graph):
                for target in sorted(graph[name]):
                    print(f"{root}: {'::'.join(name) or 'crate'} -> {'::'.join(target) or 'crate'}  ({where[name][target]})")
        layers = documented_layers(root) or LAYERS.get(root, [])
        wrong = layer_violations(layers, where)
        if wrong:
            failed = True
            print(f"layers of {root} (bottom up: {', '.join(layers)}): {len(wrong)} edges go up")
            print("\n".join(wrong))
        declared = {name: mod_edges(modules, name) for name in modules}
        with_mods = {name: graph[name] | set(declared[name]) for name in modules}
        for comp in cycles(graph) + layer_circles(modules, graph, with_mods):
            failed = True
            members = set(comp)
            print(f"import circle in {root}: {len(comp)} files")
            for v in comp:
                for w in sorted(with_mods[v] & members):
                    line = where[v].get(w) or f"mod line, {declared[v][w]}"
                    print(f"  {modules[v].label()} -> {modules[w].label()}  ({line})")
        loops = folder_loops(modules, with_mods)
        if loops and show_edges:
            names = ", ".join("::".join(u) or "crate" for u in loops)
            print(f"{root}: a mod.rs (or root) defines what its children use in: {names}")
    if failed:
        print("\nBreak each circle, or each edge that goes up: move what both sides need into a module below both, or turn a dependency around.")
        return 1
    print("no import circles between the files of any crate; the documented layers hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())

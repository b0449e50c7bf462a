"""The peer's text renderings of lorebase_get, lorebase_query, lorebase_search
and lorebase_schema, line for line as Herald renders them (core/src/render),
and the same output caps: ``max_chars`` per output, ``max_items`` per list,
``max_value_chars`` per value, every cut marked.
"""

from __future__ import annotations

import json
from typing import Any, Callable

MAX_CHARS = 12_000
MAX_ITEMS = 50
MAX_VALUE_CHARS = 500
UNCUT_KEYS = {"where", "next_cursor", "cursor", "query_vector", "cuts"}


def cut_value(s: str, max_chars: int = MAX_VALUE_CHARS) -> str:
    if len(s) <= max_chars:
        return s
    return f"{s[:max_chars]}... [truncated: {len(s) - max_chars} more chars]"


def _marker(omitted: int) -> str:
    return f"\n[truncated: {omitted} more chars; narrow the request, lower `limit` or page with `cursor`]"


def cut_text(text: str, max_chars: int = MAX_CHARS) -> str:
    total = len(text)
    if total <= max_chars:
        return text
    budget = max(0, max_chars - len(_marker(total)))
    kept = text[:budget]
    nl = kept.rfind("\n")
    if nl >= 0 and nl * 5 >= budget * 4:
        kept = kept[:nl]
    kept = kept.rstrip("\n")
    if not kept:
        return _marker(total - len(kept)).lstrip()
    return kept + _marker(total - len(kept))


def val(v: Any) -> str:
    if isinstance(v, str):
        s = v.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    else:
        s = json.dumps(v, separators=(",", ":"), ensure_ascii=False)
    return cut_value(s)


def quoted(title: str) -> str:
    return f'"{val(title)}"'


def short_id(rid: str, n: int = 12) -> str:
    return rid if len(rid) <= n else rid[:n] + "..."


def count(n: int, singular: str, plural: str) -> str:
    return f"1 {singular}" if n == 1 else f"{n} {plural}"


def score(x: float) -> str:
    s = f"{x:.3f}".rstrip("0")
    return s + "0" if s.endswith(".") else s


class Lines:
    """A text answer under construction, with the list cap."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def line(self, text: str) -> None:
        self.lines.append(text)

    def list(self, items: list, what: str, indent: str, each: Callable[[Any], None]) -> None:
        for item in items[:MAX_ITEMS]:
            each(item)
        if len(items) > MAX_ITEMS:
            self.line(f"{indent}... {len(items) - MAX_ITEMS} more {what}")

    def text(self) -> str:
        return "\n".join(self.lines)


def record(r: dict) -> str:
    out = Lines()
    out.line(f"{r['ref']} {quoted(r.get('title', ''))} rev {short_id(r['revision'])} on {r['branch']}")
    out.list(sorted(r["values"].items()), "values", "", lambda kv: out.line(f"{kv[0]}: {val(kv[1])}"))
    if r.get("masked"):
        out.line("masked: " + ", ".join(r["masked"]))
    counts = r.get("link_counts") or {}
    out.line("links: " + (", ".join(f"{k} {n}" for k, n in sorted(counts.items())) if counts else "none"))
    if r.get("links") is not None:
        out.list(r["links"], "links", "  ", lambda k: out.line(f"  {k['from']} -{k['relation']}-> {k['to']}"))
    return out.text()


def _coverage(out: Lines, signals: list) -> None:
    out.list(signals, "coverage signals", "", lambda s: out.line(f"coverage: {val(s['message'])}"))


def query(q: dict) -> str:
    out = Lines()
    agg = q.get("aggregate")
    if agg:
        def group(g):
            value = "(none)" if g.get("value") is None else val(g["value"])
            out.line(f"count {agg['kind']} {value}: {g['count']}")
        out.list(agg["groups"], "groups", "", group)
    rows = q.get("rows", [])

    def row(r):
        out.line(f"{r['ref']} {quoted(r.get('title', ''))}"
                 + "".join(f" | {k}={val(v)}" for k, v in sorted(r.get("values", {}).items())))
        for relation, neighbors in sorted((r.get("included") or {}).items()):
            out.list(neighbors, "neighbors", "  ", lambda n, rel=relation: out.line(
                f"  {rel} -> {n['ref']} {quoted(n.get('title', ''))}"
                + "".join(f" | {k}={val(v)}" for k, v in sorted(n.get("values", {}).items()))))
    out.list(rows, "rows", "", row)
    out.line(f"rows: {len(rows)} of {q['total']} (rev {short_id(q['revision'])})")
    if q.get("next_cursor"):
        out.line(f"next_cursor: {q['next_cursor']}")
    _coverage(out, q.get("coverage") or [])
    return out.text()


def search(s: dict) -> str:
    out = Lines()
    hits = s.get("hits", [])
    out.line(f"{s['mode']} search rev {short_id(s['revision'])}: {count(len(hits), 'hit', 'hits')}")

    def hit(ih):
        i, h = ih
        out.line(f"{i + 1}. {h['ref']} {quoted(h.get('title', ''))} {score(h['score'])}")
        if h.get("snippet"):
            out.line(f"   {val(h['snippet'])}")
    out.list(list(enumerate(hits)), "hits", "", hit)
    if s.get("truncated_candidates"):
        out.line("truncated_candidates: every term was so common that only a sample of the matches was ranked; "
                 "add rarer words or filters")
    if s.get("truncated"):
        out.line("truncated: the vector list stopped short while more Records match the filters; narrow the filters")
    return out.text()


def _attribute(a: dict) -> str:
    return (f"{a['name']}: {a['type']}{'!' if a.get('required') else ''}"
            f"{' (sensitive)' if a.get('sensitive') else ''}")


def schema(s: dict) -> str:
    out = Lines()
    kinds, relations = s.get("kinds", []), s.get("relations", [])
    out.line(f"{s['domain']} rev {short_id(s['revision'])} on {s['branch']}: "
             f"{count(len(kinds), 'Kind', 'Kinds')}, {count(len(relations), 'Relation', 'Relations')}")
    out.line("KINDS")

    def kind(k):
        head = f"{k['name']} key {k['key']} title {k['title']}, {count(k.get('record_count', 0), 'record', 'records')}"
        if k.get("traits"):
            head += ", traits " + ", ".join(k["traits"])
        if k.get("embedded"):
            head += ", embedded"
        if k.get("description"):
            head += f": {val(k['description'])}"
        out.line(head)
        if k.get("synonyms"):
            out.line("  synonyms: " + ", ".join(k["synonyms"]))
        out.line("  " + ", ".join(_attribute(a) for a in k.get("attributes", [])))
        for a in k.get("attributes", []):
            extra = []
            if a.get("description"):
                extra.append(val(a["description"]))
            if a.get("values"):
                extra.append("values " + ", ".join(a["values"]))
            if a.get("synonyms"):
                extra.append("synonyms " + ", ".join(a["synonyms"]))
            if extra:
                out.line(f"    {a['name']}: " + "; ".join(extra))
        if k.get("operations"):
            out.line("  ops: " + ", ".join(k["operations"]))
    out.list(kinds, "Kinds", "", kind)
    if relations:
        out.line("RELATIONS")
        out.list(relations, "Relations", "  ", lambda r: out.line(
            f"  {r['name']}: {r['from']} -> {r['to']} ({r['cardinality']})"
            + (f": {val(r['description'])}" if r.get("description") else "")))
    if s.get("operations"):
        out.line("OPERATIONS")

        def op(o):
            params = ", ".join(f"{p['name']}: {p['type']}{'!' if p.get('required') else ''}"
                               for p in o.get("parameters", []))
            line = f"  {o['name']}({params})"
            if o.get("kind"):
                line += f" on {o['kind']}"
            line += (", review required (needs task and intent)" if o.get("review_policy") == "review"
                     else ", review none")
            if o.get("description"):
                line += f": {val(o['description'])}"
            out.line(line)
        out.list(s["operations"], "Operations", "  ", op)
    if s.get("traits"):
        out.line("TRAITS")
        out.list(s["traits"], "Traits", "  ", lambda t: out.line(
            f"  {t['name']}: " + ", ".join(t.get("kinds", []))
            + (f" [{', '.join(t['attributes'])}]" if t.get("attributes") else "")))
    if s.get("lenses"):
        out.line("LENSES")

        def lens(ln):
            parts = ["kinds " + ", ".join(ln.get("kinds", []))]
            if ln.get("traits"):
                parts.append("traits " + ", ".join(ln["traits"]))
            if ln.get("relations"):
                parts.append("relations " + ", ".join(ln["relations"]))
            if ln.get("depth") is not None:
                parts.append(f"depth {ln['depth']}")
            if ln.get("token_budget") is not None:
                parts.append(f"token_budget {ln['token_budget']}")
            line = f"  {ln['name']}: " + "; ".join(parts)
            if ln.get("description"):
                line += f" ({val(ln['description'])})"
            out.line(line)
        out.list(s["lenses"], "lenses", "  ", lens)
    if s.get("sources"):
        out.line("SOURCES")

        def source(src):
            line = src["name"]
            if src.get("synced_at"):
                line += f" synced {src['synced_at']}"
            if src.get("fresh_until"):
                line += f" fresh until {src['fresh_until']}"
            if src.get("stale"):
                line += " STALE"
            out.line(f"  {line}")
        out.list(s["sources"], "Sources", "  ", source)
    search_info = s.get("search") or {}
    line = "SEARCH modes " + ", ".join(search_info.get("modes", []))
    emb = search_info.get("embedding")
    line += (f"; embed query_vector with {emb['model']} (dimension {emb['dimension']})" if emb
             else "; no embedding model (lexical only)")
    out.line(line)
    return out.text()


def cap_json(value: Any) -> Any:
    """Strings to ``max_value_chars``, lists to ``max_items``, then the largest
    list halved until the answer fits ``max_chars``; cuts listed under ``cuts``."""
    cuts: list[dict] = []

    def walk(v: Any, path: str) -> Any:
        if isinstance(v, str):
            if len(v) > MAX_VALUE_CHARS:
                cuts.append({"path": path, "omitted": len(v) - MAX_VALUE_CHARS, "unit": "chars"})
                return cut_value(v)
            return v
        if isinstance(v, list):
            if len(v) > MAX_ITEMS:
                cuts.append({"path": path, "omitted": len(v) - MAX_ITEMS, "unit": "items"})
                v = v[:MAX_ITEMS]
            return [walk(x, f"{path}/{i}") for i, x in enumerate(v)]
        if isinstance(v, dict):
            return {k: (x if k in UNCUT_KEYS else walk(x, f"{path}/{k}")) for k, x in v.items()}
        return v

    value = walk(value, "")
    while isinstance(value, dict) and len(json.dumps(value, ensure_ascii=False)) > MAX_CHARS:
        lists = [(len(json.dumps(v)), k) for k, v in value.items() if isinstance(v, list) and len(v) >= 2]
        if not lists:
            break
        _, key = max(lists)
        keep = len(value[key]) // 2
        cuts.append({"path": f"/{key}", "omitted": len(value[key]) - keep, "unit": "items"})
        value[key] = value[key][:keep]
    if cuts and isinstance(value, dict):
        value["cuts"] = cuts
    return value

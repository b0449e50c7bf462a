// Where each value came from: lorebase_lineage and lorebase_explain (per
// attribute, its origin) and lorebase_history (each change, before -> after),
// as one timeline, newest first.
import { el, Json, start, status } from "./common";

type Origin = {
  origin_type?: string; actor?: string; time?: string; revision?: string; operation?: string;
  source?: string; evidence?: { document_id?: string; start?: number; end?: number; model?: string; quote?: string };
  proposal?: { id?: string; status?: string; title?: string; branch?: string };
};

const rev = (r?: string) => (r ? String(r).slice(0, 12) : "");
const text = (v: unknown) => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));

function originLines(o: Origin): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (o.operation) out.push(el("div", `Operation ${o.operation}`, "op"));
  if (o.source) out.push(el("div", `Source ${o.source}`, "src"));
  if (o.evidence) {
    const e = o.evidence;
    out.push(el("div", `document ${e.document_id ?? ""} [${e.start ?? "?"}:${e.end ?? "?"}]` +
      (e.model ? ` by ${e.model}` : ""), "doc"));
    if (e.quote) out.push(el("blockquote", e.quote));
  }
  if (o.proposal) {
    const p = o.proposal;
    out.push(el("div", `Proposal ${p.id ?? ""} ${p.status ?? ""} ${p.title ?? ""}` +
      (p.branch ? ` on ${p.branch}` : ""), "proposal"));
  }
  return out;
}

function item(time: string | undefined, head: string, o: Origin, body: HTMLElement[]): HTMLElement {
  const li = el("li", undefined, "event");
  const when = el("div", undefined, "when");
  when.append(el("span", time ?? "", "time"), el("span", o.origin_type ?? "", `badge ${o.origin_type ?? ""}`),
    el("span", o.actor ? `by ${o.actor}` : "", "actor"), el("span", o.revision ? `rev ${rev(o.revision)}` : "", "rev"));
  li.append(when, el("div", head, "what"), ...body, ...originLines(o));
  return li;
}

start((tool, _args, a) => {
  const main = document.getElementById("main")!;
  const list = el("ol", undefined, "timeline");
  list.id = "timeline";
  main.replaceChildren(el("h2", `${a.ref ?? ""}${a.title ? ` "${a.title}"` : ""}`),
    el("div", `${tool.replace("lorebase_", "")} · rev ${rev(a.revision)} on ${a.branch ?? ""}`, "muted"), list);
  const events: { time: string; node: HTMLElement }[] = [];
  if (tool === "lorebase_history") {
    for (const e of a.entries ?? []) {
      const changes = el("table", undefined, "changes");
      for (const c of e.changes ?? []) {
        const tr = el("tr");
        // A value created has no before, one deleted no after.
        const before = c.before === undefined || c.before === null ? "(none)" : text(c.before);
        const after = c.after === undefined || c.after === null ? "(none)" : text(c.after);
        tr.append(el("th", c.attribute), el("td", before, "before"), el("td", "->", "arrow"), el("td", after, "after"));
        changes.append(tr);
      }
      const o: Origin = { origin_type: e.origin_type, actor: e.author, revision: e.revision, operation: e.operation };
      events.push({ time: e.time ?? "", node: item(e.time, `${e.change ?? ""}: ${e.message ?? ""}`, o, [changes]) });
    }
    if (a.next_cursor) main.append(el("div", "more changes: ask lorebase_history with the cursor", "muted"));
  } else {
    for (const at of a.attributes ?? []) {
      const o: Origin = at.origin ?? {};
      events.push({ time: o.time ?? "", node: item(o.time, `${at.attribute} = ${text(at.value)}`, o, []) });
    }
    if (a.created) events.push({ time: a.created.time ?? "", node: item(a.created.time, "created", a.created, []) });
  }
  events.sort((x, y) => (x.time < y.time ? 1 : x.time > y.time ? -1 : 0));
  list.append(...events.map((e) => e.node));
  const extras: [string, any[] | undefined, (x: any) => string][] = [
    ["Sources", a.sources, (s) => `${s.name}${s.stale ? " (stale)" : ""}${s.synced_at ? ` synced ${s.synced_at}` : ""}`],
    ["Proposals", a.proposals, (p) => `${p.id} ${p.status}${p.title ? ` "${p.title}"` : ""}${p.branch ? ` on ${p.branch}` : ""}`],
    ["Links", a.links, (l) => `${l.from ?? a.ref} -${l.relation}-> ${l.to}${l.origin?.origin_type ? ` (${l.origin.origin_type})` : ""}`],
  ];
  for (const [name, xs, line] of extras) {
    if (!xs?.length) continue;
    const ul = el("ul");
    xs.forEach((x) => ul.append(el("li", line(x))));
    main.append(el("h3", `${name} (${xs.length})`), ul);
  }
  status(`${events.length} entries`);
}, (tool) => (tool === "lorebase_history" ? { values: true } : {}));

// The graph of lorebase_neighborhood and lorebase_context: Records as nodes
// (their title, coloured by Kind), Links as edges (their Relation).
import { GraphDrawing } from "./drawing";
import { callRead, el, Json, PALETTE, shown, start, status } from "./common";

type Node = { ref: string; title?: string; depth?: number };
type Edge = { relation: string; from: string; to: string };

const kinds = new Map<string, string>();
function colour(kind: string): string {
  if (!kinds.has(kind)) kinds.set(kind, PALETTE[kinds.size % PALETTE.length]);
  return kinds.get(kind)!;
}
const kindOf = (ref: string) => ref.split("/")[0] ?? ref;

const drawing = new GraphDrawing(document.getElementById("graph")!);

// What the browser test reads of the drawing (views/test/browser.mjs), in
// the shape of the cytoscape API it was written against: the Records and
// Links drawn with their labels, where a Record is drawn, and a tap on it
// (what a click does).
const recordHandle = (id: string) => ({
  id: () => id,
  data: (key: string) => (drawing.nodes.get(id) as any)?.[key],
  renderedPosition: () => drawing.renderedPosition(id),
  emit: (event: string) => { if (event === "tap") drawing.onTap(id); },
});
(window as any).lorebaseGraph = {
  nodes: () => [...drawing.nodes.keys()].map(recordHandle),
  edges: () => [...drawing.edges.values()].map((e) => ({
    id: () => e.id, data: (key: string) => (e as any)[key],
    source: () => recordHandle(e.source.id), target: () => recordHandle(e.target.id) })),
  getElementById: recordHandle,
};

function graphOf(tool: string, answer: Json): { nodes: Node[]; edges: Edge[]; seeds: string[] } {
  if (tool === "lorebase_context") {
    const seeds: Node[] = answer.seeds ?? [];
    return { nodes: [...seeds, ...(answer.neighbors ?? [])], edges: answer.links ?? [],
      seeds: seeds.map((s) => s.ref) };
  }
  const nodes: (Node & { depth?: number })[] = answer.nodes ?? [];
  return { nodes, edges: answer.edges ?? [], seeds: nodes.filter((n) => n.depth === 0).map((n) => n.ref) };
}

/** Adds what is not drawn yet; returns how many Records were new. */
function merge(nodes: Node[], edges: Edge[], seeds: string[] = []): number {
  let added = 0;
  const mention = (ref: string, title?: string, depth = 9) => {
    if (drawing.addNode({ id: ref, label: shown(title || ref), colour: colour(kindOf(ref)), depth,
      seed: seeds.includes(ref) })) added++;
  };
  nodes.forEach((n) => mention(n.ref, n.title, n.depth ?? (seeds.includes(n.ref) ? 0 : 1)));
  edges.forEach((e) => { mention(e.from); mention(e.to); });
  for (const e of edges) drawing.addEdge(`${e.from}\u0000${e.relation}\u0000${e.to}`, e.from, e.to, shown(e.relation));
  return added;
}

function drawLegend() {
  const legend = document.getElementById("legend")!;
  legend.replaceChildren(el("strong", "Kinds"));
  const counts = new Map<string, number>();
  for (const id of drawing.nodes.keys()) { const k = kindOf(id); counts.set(k, (counts.get(k) ?? 0) + 1); }
  for (const [kind, c] of kinds) {
    if (!counts.get(kind)) continue;
    const item = el("span", undefined, "kind");
    item.dataset.kind = shown(kind);
    const swatch = el("i", undefined, "swatch");
    swatch.style.background = c;
    item.append(swatch, el("span", `${kind} (${counts.get(kind)})`));
    legend.append(item);
  }
  document.getElementById("summary")!.textContent =
    `${drawing.nodes.size} Records, ${drawing.edges.size} Links`;
}

async function showRecord(ref: string) {
  const panel = document.getElementById("details")!;
  panel.replaceChildren(el("div", `loading ${ref}…`, "muted"));
  try {
    const r = await callRead("lorebase_get", { ref });
    const head = el("h2", r.title || r.ref);
    const table = el("table");
    table.id = "values";
    for (const [attr, value] of Object.entries(r.values ?? {})) {
      const tr = el("tr");
      tr.append(el("th", attr), el("td", typeof value === "string" ? value : JSON.stringify(value)));
      table.append(tr);
    }
    const links = Object.entries(r.link_counts ?? {}).map(([k, v]) => `${k} ${v}`).join(", ");
    const expand = el("button", "Expand: neighbours at depth 1") as HTMLButtonElement;
    expand.id = "expand";
    expand.onclick = () => expandFrom(ref);
    panel.replaceChildren(head, el("div", `${r.ref} · rev ${String(r.revision ?? "").slice(0, 12)}`, "muted"),
      table, el("div", `links: ${links || "none"}`, "muted"), expand);
    if (r.masked?.length) panel.append(el("div", `masked: ${r.masked.join(", ")}`, "muted"));
    panel.dataset.ref = shown(ref);
  } catch (e: any) {
    panel.replaceChildren(el("div", String(e?.message ?? e), "error"));
  }
}

async function expandFrom(ref: string) {
  status(`expanding ${ref}…`);
  try {
    const a = await callRead("lorebase_neighborhood", { seeds: [ref], depth: 1 });
    const added = merge(a.nodes ?? [], a.edges ?? []);
    drawing.layout(ref);
    drawLegend();
    showTruncated(a.truncated);
    status(`${ref}: ${added} new Records`);
    document.body.dataset.expanded = shown(ref);
  } catch (e: any) {
    status(String(e?.message ?? e), "error");
  }
}

function showTruncated(truncated: unknown) {
  const t = document.getElementById("truncated")!;
  const shownText = truncated && (typeof truncated !== "object" || Object.keys(truncated as object).length)
    ? `truncated by Keeper: ${typeof truncated === "string" ? truncated : JSON.stringify(truncated)}` : "";
  if (shownText) { t.textContent = shown(shownText); t.hidden = false; }
}

drawing.onTap = (ref) => { drawing.select(ref); showRecord(ref); };

start(async (tool, _args, answer) => {
  const g = graphOf(tool, answer);
  merge(g.nodes, g.edges, g.seeds);
  drawing.layout();
  document.body.dataset.layoutMs = String(Math.round(drawing.lastLayoutMs));
  drawLegend();
  showTruncated(answer.truncated);
  status(`rev ${String(answer.revision ?? "").slice(0, 12)} · click a Record for its values`);
});

// The graph of lorebase_neighborhood and lorebase_context: Records as nodes
// (their title, coloured by Kind), Links as edges (their Relation).
import cytoscape from "cytoscape";
import { callRead, el, Json, PALETTE, shown, start, status } from "./common";

type Node = { ref: string; title?: string; depth?: number };
type Edge = { relation: string; from: string; to: string };

const kinds = new Map<string, string>();
function colour(kind: string): string {
  if (!kinds.has(kind)) kinds.set(kind, PALETTE[kinds.size % PALETTE.length]);
  return kinds.get(kind)!;
}
const kindOf = (ref: string) => ref.split("/")[0] ?? ref;

const cy = cytoscape({
  container: document.getElementById("graph"),
  wheelSensitivity: 0.3,
  minZoom: 0.05,
  style: [
    { selector: "node", style: {
      label: "data(label)", "background-color": "data(colour)", color: "#222",
      "font-size": 11, "text-valign": "bottom", "text-margin-y": 3, width: 18, height: 18,
      "text-max-width": "140px", "text-wrap": "ellipsis", "min-zoomed-font-size": 6 } },
    { selector: "node.seed", style: { "border-width": 3, "border-color": "#222" } },
    { selector: "node:selected", style: { "border-width": 3, "border-color": "#d00" } },
    { selector: "edge", style: {
      label: "data(label)", "curve-style": "bezier", "target-arrow-shape": "triangle",
      width: 1.2, "line-color": "#999", "target-arrow-color": "#999", "font-size": 9,
      color: "#555", "text-rotation": "autorotate", "min-zoomed-font-size": 7,
      "text-background-color": "#fff", "text-background-opacity": 0.8 } },
  ],
});
(window as any).lorebaseGraph = cy;
// The container changes size with the page (the side panel, the host's
// iframe): cytoscape must learn of it, or clicks land off their nodes.
new ResizeObserver(() => cy.resize()).observe(document.getElementById("graph")!);
// ... and of where it is: the legend and the status lines above it change
// height, and cytoscape keeps the container's position until told.
new ResizeObserver(() => cy.resize()).observe(document.body);

function graphOf(tool: string, answer: Json): { nodes: Node[]; edges: Edge[]; seeds: string[] } {
  if (tool === "lorebase_context") {
    const seeds: Node[] = answer.seeds ?? [];
    return { nodes: [...seeds, ...(answer.neighbors ?? [])], edges: answer.links ?? [],
      seeds: seeds.map((s) => s.ref) };
  }
  const nodes: (Node & { depth?: number })[] = answer.nodes ?? [];
  return { nodes, edges: answer.edges ?? [], seeds: nodes.filter((n) => n.depth === 0).map((n) => n.ref) };
}

/** Adds what is not drawn yet; returns how many nodes were new. */
function merge(nodes: Node[], edges: Edge[], seeds: string[] = []): number {
  const before = cy.nodes().length;
  const add: cytoscape.ElementDefinition[] = [];
  const known = new Set(cy.nodes().map((n) => n.id()));
  const mention = (ref: string, title?: string, depth = 9) => {
    if (known.has(ref)) return;
    known.add(ref);
    add.push({ group: "nodes", data: { id: ref, label: shown(title || ref), colour: colour(kindOf(ref)), depth },
      classes: seeds.includes(ref) ? "seed" : "" });
  };
  nodes.forEach((n) => mention(n.ref, n.title, n.depth ?? (seeds.includes(n.ref) ? 0 : 1)));
  edges.forEach((e) => { mention(e.from); mention(e.to); });
  for (const e of edges) {
    const id = `${e.from}\u0000${e.relation}\u0000${e.to}`;
    if (cy.getElementById(id).length === 0 && !add.some((a) => a.data.id === id)) {
      add.push({ group: "edges", data: { id, source: e.from, target: e.to, label: shown(e.relation) } });
    }
  }
  cy.add(add);
  return cy.nodes().length - before;
}

// A force-directed layout (cose) up to 150 Records; beyond, rings by
// distance from the seeds (concentric, linear in the graph's size: cose took
// 16 s at 500 Records, docs/benchmarks.md).
const FORCE_LIMIT = 150;

function layout(): Promise<void> {
  return new Promise((done) => {
    const n = cy.nodes().length;
    const l = cy.layout(n > FORCE_LIMIT
      ? { name: "concentric", animate: false, concentric: (node: any) => 10 - Math.min(9, node.data("depth") ?? 9),
          levelWidth: () => 1, minNodeSpacing: 6, spacingFactor: 0.9 } as any
      : { name: "cose", animate: false, randomize: true, nodeRepulsion: () => 12000,
          idealEdgeLength: () => 80 } as any);
    l.one("layoutstop", () => { cy.fit(undefined, 20); done(); });
    l.run();
  });
}

function drawLegend() {
  const legend = document.getElementById("legend")!;
  legend.replaceChildren(el("strong", "Kinds"));
  const counts = new Map<string, number>();
  cy.nodes().forEach((n) => { const k = kindOf(n.id()); counts.set(k, (counts.get(k) ?? 0) + 1); });
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
    `${cy.nodes().length} Records, ${cy.edges().length} Links`;
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
    await layout();
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

cy.on("tap", "node", (e) => showRecord(e.target.id()));

start(async (tool, _args, answer) => {
  const g = graphOf(tool, answer);
  merge(g.nodes, g.edges, g.seeds);
  await layout();
  drawLegend();
  showTruncated(answer.truncated);
  status(`rev ${String(answer.revision ?? "").slice(0, 12)} · click a Record for its values`);
});

// Records and Links drawn as SVG: d3-force lays them out, the drawing holds
// each label as text (never markup), and a person can pan, zoom and drag.
import { forceCollide, forceLink, forceManyBody, forceSimulation, forceX, forceY } from "d3-force";

const NS = "http://www.w3.org/2000/svg";
const RADIUS = 9;
/** Node labels past this many characters are cut on the page; the whole one is the tooltip. */
const LABEL_CHARS = 28;
/** Below these scales labels would be smaller than ~6 px: they are hidden until zoomed in. */
const NODE_LABELS_FROM = 0.55;
const EDGE_LABELS_FROM = 0.8;
/** The most a layout may take before the drawing is shown as it stands. */
const LAYOUT_BUDGET_MS = 2500;
/** A small graph is fitted no larger than this, so its labels stay the size of the page's text. */
const FIT_MAX_SCALE = 1.25;

export type DrawnNode = {
  id: string; label: string; colour: string; depth: number; seed: boolean;
  x?: number; y?: number; vx?: number; vy?: number; index?: number;
  g?: SVGGElement;
};
export type DrawnEdge = {
  id: string; source: DrawnNode; target: DrawnNode; label: string;
  /** Which of the Links between the same two Records this is: 0, 1, 2… (they bend apart). */
  lane: number;
  path?: SVGPathElement; text?: SVGTextElement;
};

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** The graph on the page: what is drawn, where, and the person's pan and zoom. */
export class GraphDrawing {
  readonly nodes = new Map<string, DrawnNode>();
  readonly edges = new Map<string, DrawnEdge>();
  /** Called when a person clicks (or taps) a Record. */
  onTap: (id: string) => void = () => {};
  private readonly root: SVGSVGElement;
  private readonly viewport: SVGGElement;
  private readonly edgeLayer: SVGGElement;
  private readonly nodeLayer: SVGGElement;
  private readonly nodeOf = new WeakMap<Element, DrawnNode>();
  private readonly pairs = new Map<string, number>();
  private k = 1;
  private tx = 0;
  private ty = 0;
  /** The person panned or zoomed since the last fit: a resize then keeps their view. */
  private moved = false;
  private selected?: DrawnNode;
  /** How long the last layout took, in ms (the bench reports it beside the whole draw). */
  lastLayoutMs = 0;

  constructor(private readonly container: HTMLElement) {
    this.root = svg("svg", { role: "group", "aria-label": "Records and Links" });
    const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
      markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
    marker.append(svg("path", { d: "M0,0L10,5L0,10z", fill: "#999" }));
    const defs = svg("defs");
    defs.append(marker);
    this.viewport = svg("g");
    this.edgeLayer = svg("g");
    this.nodeLayer = svg("g");
    this.viewport.append(this.edgeLayer, this.nodeLayer);
    this.root.append(defs, this.viewport);
    container.append(this.root);
    this.listen();
    new ResizeObserver(() => { if (!this.moved) this.fit(); }).observe(container);
  }

  /** Adds a Record unless it is drawn; returns whether it was new. */
  addNode(n: Omit<DrawnNode, "g">): boolean {
    if (this.nodes.has(n.id)) return false;
    const node: DrawnNode = { ...n };
    // Focusable, so a person can reach each Record with Tab and open it with Enter.
    const g = svg("g", { class: n.seed ? "node seed" : "node", tabindex: 0, role: "button" });
    g.setAttribute("aria-label", n.label);
    const title = svg("title");
    title.textContent = n.label;
    const text = svg("text", { y: RADIUS + 12 });
    text.textContent = n.label.length > LABEL_CHARS ? `${n.label.slice(0, LABEL_CHARS - 1)}…` : n.label;
    g.append(title, svg("circle", { r: RADIUS, fill: n.colour }), text);
    node.g = g;
    this.nodeOf.set(g, node);
    this.nodeLayer.append(g);
    this.nodes.set(n.id, node);
    return true;
  }

  /** Adds a Link between two drawn Records unless it is drawn. */
  addEdge(id: string, from: string, to: string, label: string) {
    const source = this.nodes.get(from), target = this.nodes.get(to);
    if (this.edges.has(id) || !source || !target) return;
    const pair = from < to ? `${from}\u0000${to}` : `${to}\u0000${from}`;
    const lane = this.pairs.get(pair) ?? 0;
    this.pairs.set(pair, lane + 1);
    const g = svg("g", { class: "edge" });
    const path = svg("path", { "marker-end": "url(#arrow)" });
    const text = svg("text");
    text.textContent = label;
    g.append(path, text);
    this.edgeLayer.append(g);
    this.edges.set(id, { id, source, target, label, lane, path, text });
  }

  /**
   * Lays the graph out (d3-force: links as springs, Records repelling each
   * other, none overlapping) and fits it in view. Records already drawn start
   * where they are, so an expansion keeps the rest in place; new ones start
   * beside `near` when given.
   */
  layout(near?: string) {
    const started = performance.now();
    const all = [...this.nodes.values()];
    const placed = all.filter((n) => n.x !== undefined).length;
    const anchor = near ? this.nodes.get(near) : undefined;
    let i = 0;
    for (const n of all) {
      if (n.x !== undefined || !anchor || anchor.x === undefined) continue;
      const a = i++ * 2.4, r = 30 + 6 * Math.sqrt(i);
      n.x = anchor.x + r * Math.cos(a);
      n.y = anchor.y! + r * Math.sin(a);
    }
    const links = [...this.edges.values()].filter((e) => e.source !== e.target)
      .map((e) => ({ source: e.source, target: e.target }));
    const sim = forceSimulation(all as any)
      .force("link", forceLink(links).distance(80))
      .force("charge", forceManyBody().strength(-260).distanceMax(600))
      .force("collide", forceCollide(RADIUS + 10))
      .force("x", forceX(0).strength(0.04))
      .force("y", forceY(0).strength(0.04))
      .stop();
    // A warm start when part of the graph is drawn (an expansion): it moves, but not far.
    if (placed > 0) sim.alpha(0.5);
    const ticks = Math.ceil(Math.log(sim.alphaMin() / sim.alpha()) / Math.log(1 - sim.alphaDecay()));
    // Bounded in time: a graph far past what the output caps let through
    // is drawn less settled rather than freezing the page.
    const deadline = performance.now() + LAYOUT_BUDGET_MS;
    for (let t = 0; t < ticks && (t % 10 || performance.now() < deadline); t++) sim.tick();
    this.lastLayoutMs = performance.now() - started;
    this.redraw();
    this.fit();
  }

  /** Scales and centres the drawing so every Record is in view. */
  fit(padding = 24) {
    const w = this.root.clientWidth, h = this.root.clientHeight;
    const all = [...this.nodes.values()].filter((n) => n.x !== undefined);
    if (!all.length || !w || !h) return;
    const xs = all.map((n) => n.x!), ys = all.map((n) => n.y!);
    const x0 = Math.min(...xs) - RADIUS, x1 = Math.max(...xs) + RADIUS;
    const y0 = Math.min(...ys) - RADIUS, y1 = Math.max(...ys) + RADIUS + 16;
    this.k = Math.min(FIT_MAX_SCALE, (w - 2 * padding) / Math.max(1, x1 - x0), (h - 2 * padding) / Math.max(1, y1 - y0));
    this.tx = w / 2 - this.k * (x0 + x1) / 2;
    this.ty = h / 2 - this.k * (y0 + y1) / 2;
    this.moved = false;
    this.transform();
  }

  /** Where `id` is drawn, in pixels from the graph box's top left corner. */
  renderedPosition(id: string): { x: number; y: number } {
    const n = this.nodes.get(id);
    const box = this.container.getBoundingClientRect(), area = this.root.getBoundingClientRect();
    return { x: (area.left - box.left) + this.k * (n?.x ?? 0) + this.tx,
      y: (area.top - box.top) + this.k * (n?.y ?? 0) + this.ty };
  }

  /** Marks `id` as the Record whose values are shown. */
  select(id: string) {
    this.selected?.g?.classList.remove("selected");
    this.selected = this.nodes.get(id);
    this.selected?.g?.classList.add("selected");
  }

  private transform() {
    this.viewport.setAttribute("transform", `translate(${this.tx},${this.ty}) scale(${this.k})`);
    this.root.classList.toggle("far", this.k < NODE_LABELS_FROM);
    this.root.classList.toggle("farther", this.k < EDGE_LABELS_FROM);
  }

  private redraw() {
    for (const n of this.nodes.values()) n.g?.setAttribute("transform", `translate(${n.x ?? 0},${n.y ?? 0})`);
    for (const e of this.edges.values()) this.drawEdge(e);
  }

  private drawEdge(e: DrawnEdge) {
    const sx = e.source.x ?? 0, sy = e.source.y ?? 0, tx = e.target.x ?? 0, ty = e.target.y ?? 0;
    if (e.source === e.target) {
      const top = sy - RADIUS, lift = 34 + 10 * e.lane;
      e.path!.setAttribute("d", `M${sx - 4},${top}C${sx - 22},${sy - lift} ${sx + 22},${sy - lift} ${sx + 4},${top}`);
      e.text!.setAttribute("x", String(sx));
      e.text!.setAttribute("y", String(sy - lift + 6));
      return;
    }
    // Links between the same two Records bend apart: lane 0 straight, then
    // one side and the other. The bend is measured on the pair's own order,
    // so a Link and its reverse do not share a lane's curve.
    const flip = e.source.id < e.target.id ? 1 : -1;
    const bend = e.lane === 0 ? 0 : (e.lane % 2 ? 1 : -1) * Math.ceil(e.lane / 2) * 18 * flip;
    const dx = tx - sx, dy = ty - sy, len = Math.hypot(dx, dy) || 1;
    const cx = (sx + tx) / 2 - (dy / len) * bend * 2, cy = (sy + ty) / 2 + (dx / len) * bend * 2;
    // The arrow ends on the target's circle, not at its centre.
    const ex = tx - cx, ey = ty - cy, el = Math.hypot(ex, ey) || 1;
    const endX = tx - (ex / el) * (RADIUS + 1), endY = ty - (ey / el) * (RADIUS + 1);
    e.path!.setAttribute("d", `M${sx},${sy}Q${cx},${cy} ${endX},${endY}`);
    e.text!.setAttribute("x", String(0.25 * sx + 0.5 * cx + 0.25 * tx));
    e.text!.setAttribute("y", String(0.25 * sy + 0.5 * cy + 0.25 * ty - 3));
  }

  /** Pan (drag the background), zoom (wheel), move a Record (drag it), click a Record or press Enter on it. */
  private listen() {
    let start: { x: number; y: number; tx: number; ty: number; node?: DrawnNode } | undefined;
    let dragging = false;
    const at = (ev: PointerEvent | WheelEvent) => {
      const r = this.root.getBoundingClientRect();
      return { x: ev.clientX - r.left, y: ev.clientY - r.top };
    };
    this.root.addEventListener("pointerdown", (ev) => {
      const g = (ev.target as Element).closest?.("g.node");
      const p = at(ev);
      start = { ...p, tx: this.tx, ty: this.ty, node: g ? this.nodeOf.get(g) : undefined };
      dragging = false;
      this.root.setPointerCapture(ev.pointerId);
    });
    this.root.addEventListener("pointermove", (ev) => {
      if (!start) return;
      const p = at(ev);
      if (!dragging && Math.hypot(p.x - start.x, p.y - start.y) < 4) return;
      dragging = true;
      if (start.node) {
        start.node.x = (p.x - this.tx) / this.k;
        start.node.y = (p.y - this.ty) / this.k;
        this.redraw();
      } else {
        this.tx = start.tx + p.x - start.x;
        this.ty = start.ty + p.y - start.y;
        this.moved = true;
        this.transform();
      }
    });
    const end = (ev: PointerEvent) => {
      if (start?.node && !dragging && ev.type === "pointerup") this.onTap(start.node.id);
      start = undefined;
    };
    this.root.addEventListener("pointerup", end);
    this.root.addEventListener("pointercancel", end);
    this.root.addEventListener("keydown", (ev) => {
      const g = (ev.target as Element).closest?.("g.node");
      const node = g ? this.nodeOf.get(g) : undefined;
      if (node && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); this.onTap(node.id); }
    });
    this.root.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const p = at(ev);
      const k = Math.min(4, Math.max(0.05, this.k * Math.exp(-ev.deltaY * 0.002)));
      this.tx = p.x - ((p.x - this.tx) * k) / this.k;
      this.ty = p.y - ((p.y - this.ty) * k) / this.k;
      this.k = k;
      this.moved = true;
      this.transform();
    }, { passive: false });
  }
}

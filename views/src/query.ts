// The rows of lorebase_query, and with `aggregate` the count per value as a
// bar chart beside them.
import { el, start, status } from "./common";

const text = (v: unknown) => (typeof v === "string" ? v : v === null || v === undefined ? "(none)" : JSON.stringify(v));

start((_tool, _args, a) => {
  const chart = document.getElementById("chart")!;
  const rows = document.getElementById("rows")!;
  chart.replaceChildren();
  const groups: { value: unknown; count: number }[] = a.aggregate?.groups ?? [];
  if (groups.length) {
    chart.hidden = false;
    const max = Math.max(1, ...groups.map((g) => g.count));
    chart.append(el("h3", `${a.aggregate.kind ?? ""} by ${text(a.aggregate.group_by)}`));
    for (const g of groups) {
      const bar = el("div", undefined, "bar");
      const fill = el("div", undefined, "fill");
      fill.style.width = `${(100 * g.count) / max}%`;
      bar.append(el("span", text(g.value), "label"), fill, el("span", String(g.count), "count"));
      chart.append(bar);
    }
  }
  const table = el("table");
  const names = Array.from(new Set((a.rows ?? []).flatMap((r: any) => Object.keys(r.values ?? {})))) as string[];
  const head = el("tr");
  head.append(el("th", "Record"), el("th", "title"), ...names.map((n) => el("th", n)));
  table.append(head);
  for (const r of a.rows ?? []) {
    const tr = el("tr");
    tr.append(el("td", r.ref), el("td", r.title ?? ""), ...names.map((n) => el("td", n in (r.values ?? {}) ? text(r.values[n]) : "")));
    table.append(tr);
  }
  rows.replaceChildren(table);
  status(`rows: ${(a.rows ?? []).length} of ${a.total ?? "?"} · rev ${String(a.revision ?? "").slice(0, 12)}`);
});

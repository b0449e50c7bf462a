// The views in a real browser: headless Chromium (Debian's, through
// playwright-core) on a test host page built on AppBridge (test/host.ts),
// connected over Streamable HTTP to a real Herald on the sandbox Keeper.
// Screenshots go to target/views/ (and, with --docs, to docs/views/).
//   HERALD_BIN=... SANDBOX_BIN=... node views/test/browser.mjs [--docs] [--bench]
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdirSync, copyFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import assert from "node:assert/strict";
import * as esbuild from "esbuild";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const shots = join(root, "target", "views");
const docs = join(root, "docs", "views");
mkdirSync(shots, { recursive: true });
const children = [];
// What the host page, the proxy and the test did, with times: printed as it
// happens with VIEWS_TRACE set, and in any case when the test fails.
const traced = [];
function trace(line) {
  const at = `${(performance.now() / 1000).toFixed(3)} ${line}`;
  if (process.env.VIEWS_TRACE) console.error(at); else traced.push(at);
  if (traced.length > 2000) traced.shift();
}

function ready(child, prefix) {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`no ${prefix} line`)), 60_000);
    lines.on("line", (l) => { if (l.startsWith(prefix)) { clearTimeout(timer); resolve(JSON.parse(l.slice(prefix.length).trim())); } });
    child.on("exit", (c) => reject(new Error(`${prefix}: exited ${c}`)));
  });
}
function start(bin, args, env, prefix) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("LOREBASE")));
  const child = spawn(bin, args, { env: { ...clean, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return ready(child, prefix);
}

async function main() {
  const bin = (name, env) => process.env[env] ?? join(root, "target", "debug", name);
  const benching = process.argv.includes("--bench");
  const synthetic = benching ? ["--synthetic", "3000"] : [];
  // The bench draws whole neighborhoods: the output caps (made for a model's context) raised.
  const caps = benching ? { LOREBASE__HERALD__OUTPUT__MAX_ITEMS: "5000", LOREBASE__HERALD__OUTPUT__MAX_CHARS: "5000000" } : {};
  const sandbox = await start(bin("lorebase-sandbox", "SANDBOX_BIN"), ["--port", "0", "--auth", "none", "--seed", "7", ...synthetic], {}, "LOREBASE_SANDBOX_READY");
  const herald = await start(bin("lorebase-herald", "HERALD_BIN"), ["--transport", "streamable_http", "--port", "0"],
    { LOREBASE_URL: sandbox.url, LOREBASE_DOMAIN: "supply", LOREBASE__HERALD__HTTP__STATELESS: "false", ...caps }, "LOREBASE_HERALD_READY");
  const host = await esbuild.build({ entryPoints: [join(here, "host.ts")], bundle: true, format: "iife", write: false, logLevel: "error" });
  const page = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Herald test host</title></head>` +
    `<body><div id="views"></div><script>${new TextDecoder().decode(host.outputFiles[0].contents).replaceAll("</script", "<\\/script")}</script></body></html>`;
  // The host page and Herald share one origin: /mcp is passed on to Herald.
  // Responses are streamed through as they come (an SSE stream stays open), never buffered.
  const server = createServer(async (req, res) => {
    if (req.url === "/") { res.writeHead(200, { "content-type": "text/html" }); res.end(page); return; }
    if (!req.url.startsWith("/mcp")) { res.writeHead(404); res.end(); return; }
    trace(`proxy ${req.method} ${req.headers["mcp-session-id"] ?? ""}`);
    try {
      const body = await new Promise((r) => { const b = []; req.on("data", (d) => b.push(d)); req.on("end", () => r(Buffer.concat(b))); });
      const headers = { authorization: "Bearer k" };
      for (const h of ["content-type", "accept", "mcp-session-id", "mcp-protocol-version", "last-event-id"]) if (req.headers[h]) headers[h] = req.headers[h];
      const r = await fetch(herald.url, { method: req.method, headers, body: ["GET", "HEAD"].includes(req.method) ? undefined : body });
      trace(`proxy answer ${r.status} ${r.headers.get("content-type") ?? ""}`);
      const out = {}; r.headers.forEach((v, k) => { if (!["content-length", "content-encoding", "transfer-encoding"].includes(k)) out[k] = v; });
      res.writeHead(r.status, out);
      if (!r.body) { res.end(); return; }
      const stream = Readable.fromWeb(r.body);
      res.on("close", () => stream.destroy());
      stream.on("error", () => res.destroy());
      if (process.env.VIEWS_TRACE) stream.on("data", (d) => trace(`proxy ${req.method} chunk ${d.length}: ${String(d).slice(0, 160)}`));
      stream.pipe(res);
    } catch (e) {
      trace(`proxy failed: ${e}`);
      if (!res.headersSent) res.writeHead(502);
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--no-first-run"] });
  try {
    const tab = await browser.newPage({ viewport: { width: 960, height: 720 } });
    const outside = [];
    tab.on("request", (r) => { if (!r.url().startsWith(origin) && !r.url().startsWith("about:") && !r.url().startsWith("data:")) outside.push(r.url()); });
    const errors = [];
    tab.on("pageerror", (e) => errors.push(String(e)));
    tab.on("console", (m) => trace(`page: ${m.text()}`));
    await tab.goto(origin);
    const view = () => tab.frameLocator("iframe");
    const frame = () => tab.frames().find((f) => f !== tab.mainFrame());
    const drawn = async () => { await tab.waitForFunction(() => document.querySelector("iframe")?.contentDocument === null || true);
      await view().locator("body[data-state=drawn]").waitFor({ timeout: 30_000 }); };

    if (process.argv.includes("--bench")) { await bench(tab, drawn, frame); return; }

    // The graph of Supplier/S-1001's neighborhood.
    const args = { seeds: ["Supplier/S-1001"], depth: 2 };
    await tab.evaluate((a) => window.runTool("lorebase_neighborhood", a), args);
    await drawn();
    const keeper = JSON.parse((await tab.evaluate((a) => window.callTool("lorebase_neighborhood", { ...a, format: "json" }), args)).content[0].text);
    const shown = await frame().evaluate(() => ({
      nodes: window.lorebaseGraph.nodes().map((n) => [n.id(), n.data("label")]).sort(),
      edges: window.lorebaseGraph.edges().map((e) => [e.source().id(), e.data("label"), e.target().id()]).sort(),
      legend: [...document.querySelectorAll("#legend .kind")].map((k) => k.dataset.kind).sort(),
    }));
    assert.deepEqual(shown.nodes, keeper.nodes.map((n) => [n.ref, n.title || n.ref]).sort());
    assert.deepEqual(shown.edges, keeper.edges.map((e) => [e.from, e.relation, e.to]).sort());
    assert.deepEqual(shown.legend, [...new Set(keeper.nodes.map((n) => n.ref.split("/")[0]))].sort());
    assert.ok(keeper.nodes.length > 1 && keeper.edges.length > 0, "a neighborhood with Links");
    await tab.screenshot({ path: join(shots, "graph.png") });

    // Click a node on the canvas: its values come from lorebase_get through the bridge.
    // The node farthest from any other (a click on it cannot land on a neighbour).
    const loneliest = await frame().evaluate(() => {
      const ns = window.lorebaseGraph.nodes().map((n) => [n.id(), n.renderedPosition()]);
      const gap = ([id, p]) => Math.min(...ns.filter(([o]) => o !== id).map(([, q]) => Math.hypot(p.x - q.x, p.y - q.y)));
      return ns.reduce((best, n) => (gap(n) > gap(best) ? n : best))[0];
    });
    const target = keeper.nodes.find((n) => n.ref === loneliest);
    // A real click on the node's drawn position (a few tries: a label may lie over it).
    const graphBox = await view().locator("#graph").boundingBox();
    const box = await tab.locator("iframe").boundingBox();
    let at;
    for (let i = 0; i < 4; i++) {
      at = await frame().evaluate((id) => window.lorebaseGraph.getElementById(id).renderedPosition(), target.ref);
      trace("click");
      await tab.mouse.move(graphBox.x + at.x, graphBox.y + at.y + i);
      await tab.mouse.down();
      await tab.waitForTimeout(50);
      await tab.mouse.up();
      try { await view().locator(`#details[data-ref="${target.ref}"] table#values`).waitFor({ state: "attached", timeout: 3_000 }); break; }
      catch (e) {
        if (i === 3) {
          await tab.screenshot({ path: join(shots, "click-failed.png") });
          throw new Error(`${target.ref} at ${JSON.stringify(at)}: ${await view().locator("#details").textContent()}`);
        }
      }
    }
    const got = JSON.parse((await tab.evaluate((ref) => window.callTool("lorebase_get", { ref, format: "json" }), target.ref)).content[0].text);
    const cells = await view().locator("#values td").allTextContents();
    for (const v of Object.values(got.values)) assert.ok(cells.includes(typeof v === "string" ? v : JSON.stringify(v)), `value ${v} shown`);
    const calls = await tab.evaluate(() => window.viewCalls);
    assert.ok(calls.some((c) => c.name === "lorebase_get" && !c.refused), JSON.stringify(calls));
    assert.ok(box, "iframe shown");

    // Expand it: its depth-1 neighbours join the graph, nothing drawn is lost.
    const before = await frame().evaluate(() => window.lorebaseGraph.nodes().map((n) => n.id()));
    await view().locator("#expand").click();
    await view().locator("body[data-expanded]").waitFor({ timeout: 15_000 });
    const hood = JSON.parse((await tab.evaluate((ref) => window.callTool("lorebase_neighborhood", { seeds: [ref], depth: 1, format: "json" }), target.ref)).content[0].text);
    const after = await frame().evaluate(() => window.lorebaseGraph.nodes().map((n) => n.id()));
    for (const id of [...before, ...hood.nodes.map((n) => n.ref)]) assert.ok(after.includes(id), `${id} drawn after expanding`);
    await tab.screenshot({ path: join(shots, "graph-expanded.png") });

    // The keyboard reaches a Record too: focused (as Tab would), Enter shows its values.
    const first = await frame().evaluate(() => window.lorebaseGraph.nodes().map((n) => n.id()).find((id) => id !== document.querySelector("#details").dataset.ref));
    const firstIndex = await frame().evaluate((id) => window.lorebaseGraph.nodes().findIndex((n) => n.id() === id), first);
    await view().locator("#graph g.node").nth(firstIndex).focus();
    await tab.keyboard.press("Enter");
    await view().locator(`#details[data-ref="${first}"] table#values`).waitFor({ state: "attached", timeout: 10_000 });

    // Keeper's cap shown: a neighborhood cut at 5 Records says so.
    const capped = { seeds: ["Supplier/S-1001"], depth: 2, max_nodes: 5 };
    await tab.evaluate((a) => window.runTool("lorebase_neighborhood", a), capped);
    await drawn();
    const cut = JSON.parse((await tab.evaluate((a) => window.callTool("lorebase_neighborhood", { ...a, format: "json" }), capped)).content[0].text);
    assert.ok(cut.truncated, JSON.stringify(cut.truncated));
    assert.ok(await view().locator("#truncated").isVisible());
    assert.match(await view().locator("#truncated").textContent(), /^truncated by Keeper: /);

    // lorebase_context: the seeds, their neighbours and the Links between them.
    const ctxArgs = { records: ["Supplier/S-1001"], depth: 1 };
    await tab.evaluate((a) => window.runTool("lorebase_context", a), ctxArgs);
    await drawn();
    const ctx = JSON.parse((await tab.evaluate((a) => window.callTool("lorebase_context", { ...a, format: "json" }), ctxArgs)).content[0].text);
    const ctxShown = await frame().evaluate(() => ({ nodes: window.lorebaseGraph.nodes().map((n) => n.id()).sort(), edges: window.lorebaseGraph.edges().length }));
    const ctxRefs = new Set([...ctx.seeds, ...ctx.neighbors].map((n) => n.ref));
    ctx.links.forEach((l) => { ctxRefs.add(l.from); ctxRefs.add(l.to); });
    assert.deepEqual(ctxShown.nodes, [...ctxRefs].sort());
    assert.equal(ctxShown.edges, new Set(ctx.links.map((l) => `${l.from} ${l.relation} ${l.to}`)).size);

    // A view never gets lorebase_execute through the host.
    const refused = await frame().evaluate(async () => { try { await window.lorebaseApp?.callServerTool({ name: "lorebase_execute", arguments: {} }); return false; } catch { return true; } });
    assert.ok(refused);

    // Provenance: history with before -> after.
    await tab.evaluate(() => window.runTool("lorebase_history", { ref: "Supplier/S-1001" }));
    await drawn();
    const changes = await view().locator(".changes tr").count();
    assert.ok(changes > 0, "history changes drawn");
    assert.ok((await view().locator(".arrow").allTextContents()).every((t) => t === "->"));
    await tab.screenshot({ path: join(shots, "provenance.png") });
    await tab.evaluate(() => window.runTool("lorebase_lineage", { ref: "Supplier/S-1001" }));
    await drawn();
    assert.ok(await view().locator(".event").count() > 0);

    // Explain: one timeline entry per attribute, and the creation.
    await tab.evaluate(() => window.runTool("lorebase_explain", { ref: "Supplier/S-1002" }));
    await drawn();
    const explained = JSON.parse((await tab.evaluate(() => window.callTool("lorebase_explain", { ref: "Supplier/S-1002", format: "json" }))).content[0].text);
    assert.equal(await view().locator(".event").count(), explained.attributes.length + (explained.created ? 1 : 0));

    // Query with an aggregate: one bar per group.
    const q = { query: { kind: "Supplier", aggregate: { group_by: "country" } } };
    await tab.evaluate((a) => window.runTool("lorebase_query", a), q);
    await drawn();
    const agg = JSON.parse((await tab.evaluate((a) => window.callTool("lorebase_query", { ...a, format: "json" }), q)).content[0].text);
    assert.equal(await view().locator("#chart .bar").count(), agg.aggregate.groups.length);
    assert.deepEqual(await view().locator("#chart .count").allTextContents(), agg.aggregate.groups.map((g) => String(g.count)));
    await tab.screenshot({ path: join(shots, "query.png") });

    // Hostile values: markup, a javascript: link and bidi controls are shown as
    // text, and no script of theirs runs (the host's CSP would let inline
    // handlers run: only the view's own care stops them).
    const hostile = '<img src=x onerror="window.pwned=1;parent.postMessage(\'pwned\',\'*\')">' +
      "<script>window.pwned=2<\/script> Evil\u202Eexe.pdf\u2066x\u2069";
    const link = "javascript:window.pwned=3";
    const write = await tab.evaluate((p) => window.callTool("lorebase_execute", {
      operation: "update_supplier", dry_run: false, parameters: p }),
      { supplier_code: "S-1001", legal_name: hostile, bank_account: link });
    assert.ok(!write.isError, JSON.stringify(write));
    await tab.evaluate(() => window.addEventListener("message", (e) => { if (e.data === "pwned") window.pwnedByView = true; }));
    await tab.evaluate(() => window.runTool("lorebase_neighborhood", { seeds: ["Supplier/S-1001"], depth: 1 }));
    await drawn();
    // The title as Herald answers it (it may escape hidden characters itself), with any hidden
    // character left made visible by the view.
    const answered = JSON.parse((await tab.evaluate(() => window.callTool("lorebase_get", { ref: "Supplier/S-1001", format: "json" }))).content[0].text).title;
    const visible = answered.replace(/[\u202A-\u202E\u2066-\u2069]/g, (c) => `⟨U+${c.codePointAt(0).toString(16).toUpperCase()}⟩`);
    assert.ok(visible.includes("<script>window.pwned=2</script>") && visible.includes("<img src=x onerror="), visible);
    assert.doesNotMatch(visible, /[\u202A-\u202E\u2066-\u2069]/);
    const label = await frame().evaluate(() => window.lorebaseGraph.getElementById("Supplier/S-1001").data("label"));
    assert.equal(label, visible);
    trace("tap");
    // The block returns nothing: emit's answer (the collection) would be serialized back, seconds of work.
    await frame().evaluate(() => { window.lorebaseGraph.getElementById("Supplier/S-1001").emit("tap"); });
    trace("tapped");
    await view().locator('#details[data-ref="Supplier/S-1001"] table#values').waitFor({ state: "attached", timeout: 30_000 })
      .catch(async (e) => { throw new Error(`${e}: ${await view().locator("#details").textContent()}`); });
    assert.equal(await view().locator("#details h2").textContent(), visible);
    const cellsH = await view().locator("#values td").allTextContents();
    assert.ok(cellsH.includes(visible) && cellsH.includes(link), JSON.stringify(cellsH));
    assert.ok(cellsH.every((c) => !/[\u202A-\u202E\u2066-\u2069]/.test(c)), "no raw bidi control shown");
    await tab.screenshot({ path: join(shots, "hostile.png") });
    await tab.evaluate(() => window.runTool("lorebase_history", { ref: "Supplier/S-1001" }));
    await drawn();
    assert.ok((await view().locator(".after").allTextContents()).includes(visible));
    const injected = await frame().evaluate(() => ({
      pwned: window.pwned ?? null, imgs: document.images.length, scripts: document.scripts.length,
      links: document.querySelectorAll("a").length }));
    assert.deepEqual(injected, { pwned: null, imgs: 0, scripts: 1, links: 0 });
    assert.equal(await tab.evaluate(() => window.pwnedByView ?? null), null);

    assert.deepEqual(outside, [], "the page loaded nothing from outside");
    assert.deepEqual(errors, [], "no script error");
    if (process.argv.includes("--docs")) {
      mkdirSync(docs, { recursive: true });
      for (const f of ["graph.png", "graph-expanded.png", "provenance.png", "query.png"]) copyFileSync(join(shots, f), join(docs, f));
    }
    console.log("views in Chromium: ok");
  } finally {
    await browser.close();
    server.close();
  }
}

// Time from the tool result sent to the view to the graph drawn (laid out,
// fitted), at 50 and 500 nodes of the sandbox's synthetic Domain.
async function bench(tab, drawn, frame) {
  const groups = JSON.parse((await tab.evaluate(() => window.callTool("lorebase_query",
    { domain: "synthetic", query: { kind: "Group", limit: 1 }, format: "json" }))).content[0].text);
  const seed = groups.rows[0].ref;
  for (const n of [50, 500]) {
    const times = [], layouts = [];
    for (let i = 0; i < 5; i++) {
      await tab.evaluate((a) => window.runTool("lorebase_neighborhood", a),
        { domain: "synthetic", seeds: [seed], depth: 3, max_nodes: n, max_edges: 5000 });
      await drawn();
      const drawnNodes = await frame().evaluate(() => window.lorebaseGraph.nodes().length);
      const ms = await frame().evaluate(() => Number(document.body.dataset.drawnMs));
      times.push(ms);
      layouts.push(await frame().evaluate(() => Number(document.body.dataset.layoutMs)));
      const drawnEdges = await frame().evaluate(() => window.lorebaseGraph.edges().length);
      if (i === 0) console.log(`max_nodes ${n}: ${drawnNodes} nodes, ${drawnEdges} edges drawn`);
    }
    times.sort((a, b) => a - b);
    console.log(`max_nodes ${n}: median ${times[2]} ms (min ${times[0]}, max ${times[4]}) from tool result to drawn view`);
    layouts.sort((a, b) => a - b);
    console.log(`max_nodes ${n}: median ${layouts[2]} ms (min ${layouts[0]}, max ${layouts[4]}) of it laying the graph out`);
  }
}

main().then(() => { children.forEach((c) => c.kill()); process.exit(0); },
  (e) => { console.error(`${traced.join("\n")}\n${e?.stack ?? e}`); children.forEach((c) => c.kill()); process.exit(1); });

// Bundles each view (src/NAME.ts + src/NAME.html + src/page.css) into one
// self-contained HTML file, server/assets/views/NAME.html, which the server
// embeds (include_str!). `--check` builds in memory and fails when a
// committed file differs from the build, byte for byte, or is over budget.
import * as esbuild from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sdkDefinitionsPure, zodEnglishOnly } from "./trim.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "server", "assets", "views");
const VIEWS = ["graph", "provenance", "query"];
// Bytes before compression, each file: a host loads the view into an iframe
// beside every call it shows. The App SDK (with zod and the MCP SDK's
// Protocol, trimmed by trim.mjs) is ~326 KB of it; docs/hosts.md has the figures.
const BUDGET = 400 * 1000;

async function page(name) {
  const r = await esbuild.build({
    entryPoints: [join(here, "src", `${name}.ts`)], bundle: true, minify: true, format: "iife",
    target: "es2022", write: false, legalComments: "none", logLevel: "error",
    plugins: [zodEnglishOnly(here), sdkDefinitionsPure],
    define: { "process.env.NODE_ENV": '"production"' },
  });
  // Inside a <script> element only "</script" (and "<!--") could end it early.
  const js = new TextDecoder().decode(r.outputFiles[0].contents)
    .replaceAll("</script", "<\\/script").replaceAll("<!--", "<\\!--");
  const css = readFileSync(join(here, "src", "page.css"), "utf8");
  return readFileSync(join(here, "src", `${name}.html`), "utf8")
    .replace("/*CSS*/", () => css).replace("/*JS*/", () => js);
}

const check = process.argv.includes("--check");
let failed = false;
for (const name of VIEWS) {
  const html = await page(name);
  const path = join(out, `${name}.html`);
  const bytes = Buffer.byteLength(html);
  if (bytes > BUDGET) { console.error(`${name}.html: ${bytes} bytes, over the budget of ${BUDGET}`); failed = true; }
  if (check) {
    let committed = "";
    try { committed = readFileSync(path, "utf8"); } catch {}
    if (committed !== html) { console.error(`${path} differs from the build: run npm run build in views/`); failed = true; }
    else console.log(`${name}.html: ${bytes} bytes, same as the build`);
  } else {
    writeFileSync(path, html);
    console.log(`${name}.html: ${bytes} bytes`);
  }
}
process.exit(failed ? 1 : 0);

// esbuild plugins that keep out of a view's bundle the code it never runs.
// The App SDK imports the MCP SDK's client package for its Protocol class,
// and that package builds its whole Client, its JSON Schema validator and
// hundreds of zod schemas at the top level of its modules: calls and classes
// with static blocks that esbuild must assume have side effects, so they stay
// even when nothing reads them (~75 KB per view).
import * as acorn from "acorn";
import { readFileSync } from "node:fs";

/**
 * zod's error messages in every language: a view shows Herald's own errors
 * only, so English alone is kept.
 */
export function zodEnglishOnly(resolveDir) {
  return {
    name: "zod-english-only",
    setup(build) {
      build.onResolve({ filter: /locales\/index\.js$/ }, (a) =>
        a.importer.includes(`${"node_modules"}/zod/`) ? { path: "zod-locales", namespace: "zod-en" } : undefined);
      build.onLoad({ filter: /.*/, namespace: "zod-en" }, () => ({
        contents: 'export { default as en } from "zod/v4/locales/en.js";', resolveDir }));
    },
  };
}

/** The SDK modules whose top level only defines things (no registration, no I/O). */
const DEFINES_ONLY = /node_modules\/@modelcontextprotocol\/(client|core|ext-apps)\/dist\/[^/]+(\/[^/]+)?\.m?js$/;

/** Initializers that only build a value: a call, a `new`, a member read, a class. */
const BUILDS = new Set(["CallExpression", "NewExpression", "MemberExpression", "ClassExpression"]);

/**
 * Marks each top-level `const X = <build>` of the SDK's modules as pure, by
 * wrapping its initializer in an annotated arrow called at once: when no kept
 * code reads X, esbuild drops the whole definition, arguments included (a
 * plain annotation on the call would keep its arguments). When X is read the
 * code runs as before. The browser test (views/test/browser.mjs) drives every
 * SDK path the views use, so a definition that was needed and dropped fails it.
 */
export const sdkDefinitionsPure = {
  name: "sdk-definitions-pure",
  setup(build) {
    build.onLoad({ filter: DEFINES_ONLY }, (a) => {
      const src = readFileSync(a.path, "utf8");
      const ast = acorn.parse(src, { ecmaVersion: "latest", sourceType: "module" });
      const edits = [];
      for (const statement of ast.body) {
        const s = statement.type === "ExportNamedDeclaration" && statement.declaration
          ? statement.declaration : statement;
        if (s.type !== "VariableDeclaration") continue;
        for (const d of s.declarations) {
          if (!d.init || d.id.type !== "Identifier" || !BUILDS.has(d.init.type)) continue;
          edits.push([d.init.end, ")()"], [d.init.start, "/* @__PURE__ */ (() => "]);
        }
      }
      // From the end, so the offsets of the edits still to make hold.
      edits.sort((x, y) => y[0] - x[0]);
      let out = src;
      for (const [at, text] of edits) out = out.slice(0, at) + text + out.slice(at);
      return { contents: out, loader: "js" };
    });
  },
};

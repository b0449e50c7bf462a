// What every view shares: the connection to the host (the ext-apps App SDK),
// how a view gets its data, and the only way data reaches the page: as text.
import { App } from "@modelcontextprotocol/ext-apps";

/** The tools a view may call through the host: Herald's read tools only. */
const READ_TOOLS = new Set([
  "lorebase_get", "lorebase_neighborhood", "lorebase_context", "lorebase_lineage",
  "lorebase_explain", "lorebase_history", "lorebase_query",
]);

export type Json = Record<string, any>;

export const app = new App({ name: "lorebase-herald-views", version: "1.0.0" }, {});
(window as any).lorebaseApp = app;

/** Calls one of Herald's read tools through the host, in its `json` format. */
export async function callRead(name: string, args: Json): Promise<Json> {
  if (!READ_TOOLS.has(name)) throw new Error(`a view never calls ${name}`);
  const result = await app.callServerTool({ name, arguments: { ...args, format: "json" } });
  return answerOf(result);
}

function answerOf(result: any): Json {
  const text = (result?.content ?? [])
    .filter((c: any) => c?.type === "text").map((c: any) => String(c.text)).join("\n");
  if (result?.isError) throw new Error(text || "the call failed");
  if (result?.structuredContent && typeof result.structuredContent === "object") {
    return result.structuredContent;
  }
  return JSON.parse(text);
}

const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

/** `s` with every control, bidi and zero-width character made visible (`⟨U+202E⟩`). */
export function shown(value: unknown): string {
  const s = typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);
  return s.replace(HIDDEN, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`);
}

/** An element holding `text` as text (never parsed as HTML). */
export function el(tag: string, text?: unknown, className?: string): HTMLElement {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = shown(text);
  if (className) e.className = className;
  return e;
}

export function status(text: string, kind: "info" | "error" = "info") {
  const s = document.getElementById("status")!;
  s.textContent = shown(text);
  s.className = kind;
}

export const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
  "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

/**
 * Starts a view: once the host has sent the tool's result, the view draws
 * `render(tool, arguments, answer)` where `answer` is the tool's JSON answer
 * (its structuredContent, else the same call in the `json` format, made
 * through the host: the model keeps its compact text).
 */
export function start(
  render: (tool: string, args: Json, answer: Json) => void | Promise<void>,
  extra: (tool: string, args: Json) => Json = () => ({}),
) {
  let args: Json = {};
  app.ontoolinput = (p) => { args = (p.arguments ?? {}) as Json; };
  app.ontoolresult = async (result: any) => {
    const received = performance.now();
    const tool = String(app.getHostContext()?.toolInfo?.tool?.name ?? document.body.dataset.tool ?? "");
    try {
      let answer: Json;
      if (result?.isError) {
        const text = (result.content ?? []).map((c: any) => c.text ?? "").join("\n");
        status(text, "error");
        return;
      }
      if (result?.structuredContent) answer = result.structuredContent;
      else answer = await callRead(tool, { ...args, ...extra(tool, args) });
      await render(tool, args, answer);
      document.body.dataset.drawnMs = String(Math.round(performance.now() - received));
      document.body.dataset.state = "drawn";
    } catch (e: any) {
      status(String(e?.message ?? e), "error");
      document.body.dataset.state = "error";
    }
  };
  app.connect().catch((e) => status(`cannot reach the host: ${e}`, "error"));
}

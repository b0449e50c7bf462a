// A test host page built on the ext-apps AppBridge: it connects to Herald
// (Streamable HTTP, through the test server's /mcp), declares the MCP Apps
// extension, renders a tool's view in a sandboxed iframe under the spec's
// restrictive CSP and forwards the view's calls, refusing any tool whose
// visibility leaves out "app".
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const MIME = "text/html;profile=mcp-app";
const CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'";
const w = window as any;
w.viewCalls = [] as { name: string; refused: boolean }[];

async function connect(): Promise<Client> {
  const client = new Client({ name: "herald-test-host", version: "1.0.0" },
    { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } } } as any });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  return client;
}
const clientP = connect();

w.callTool = async (name: string, args: any) => (await clientP).callTool({ name, arguments: args });

/** Calls `name` as the model would and shows its view; resolves once the view is connected. */
w.runTool = async (name: string, args: any) => {
  const client = await clientP;
  const tools = (await client.listTools()).tools;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const tool = byName.get(name)!;
  const uri = (tool._meta as any)?.ui?.resourceUri;
  if (!uri) throw new Error(`${name} has no view`);
  const read = await client.readResource({ uri });
  const content: any = read.contents[0];
  if (content.mimeType !== MIME) throw new Error(`unexpected MIME ${content.mimeType}`);
  const html = String(content.text).replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="${CSP}">`);
  document.getElementById("views")!.replaceChildren();
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.style.cssText = "width: 900px; height: 640px; border: 1px solid #ccc";
  document.getElementById("views")!.append(iframe);
  const bridge = new AppBridge(null, { name: "herald-test-host", version: "1.0.0" },
    { serverTools: {}, logging: {} }, { hostContext: { toolInfo: { tool }, theme: "light", displayMode: "inline" } as any });
  bridge.oncalltool = async (params: any) => {
    const vis = (byName.get(params.name)?._meta as any)?.ui?.visibility ?? ["model", "app"];
    const refused = !byName.has(params.name) || !vis.includes("app");
    w.viewCalls.push({ name: params.name, refused });
    console.log(`view call ${params.name} ${Date.now() % 100000}`);
    if (refused) throw new Error(`${params.name} is not callable from a view`);
    return (await client.callTool(params)) as any;
  };
  const initialized = new Promise<void>((done) => { bridge.oninitialized = () => done(); });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  const result = await client.callTool({ name, arguments: args });
  w.modelResult = result;
  await bridge.sendToolResult(result as any);
  w.resultSentAt = performance.now();
};

// Helpers for the end-to-end tests of lorebase-herald with the official
// TypeScript MCP SDK client: real processes (the sandbox Keeper on an
// ephemeral port, Herald over stdio pipes or a real HTTP port).
//
// Binaries: HERALD_BIN and SANDBOX_BIN, else target/debug/lorebase-herald and
// target/debug/lorebase-sandbox of this checkout, built with cargo first
// (HERALD_NO_BUILD=1 skips the build). HERALD_TEST_NEWER_KEEPER=1 starts every
// sandbox Keeper as a newer Keeper (`--newer-keeper`): every test must pass
// the same way (scripts/test-newer-keeper.sh).

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(here, '..', '..');

// The shared table of one valid call per tool (also used by tests/e2e-python).
export const TABLE = JSON.parse(readFileSync(join(ROOT, 'tests', 'e2e-python', 'tool_calls.json'), 'utf8'));

export const TOOL_NAMES = [
  'lorebase_context', 'lorebase_schema', 'lorebase_get', 'lorebase_resolve', 'lorebase_query',
  'lorebase_search', 'lorebase_neighborhood', 'lorebase_explain', 'lorebase_history',
  'lorebase_lineage', 'lorebase_changes', 'lorebase_diff', 'lorebase_execute', 'lorebase_branches',
];

let built = null;

/** The binaries, built once if not given. */
export function binaries() {
  if (built) return built;
  const target = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target'), 'debug');
  const herald = process.env.HERALD_BIN ?? join(target, 'lorebase-herald');
  const sandbox = process.env.SANDBOX_BIN ?? join(target, 'lorebase-sandbox');
  const missing = [];
  if (!process.env.HERALD_BIN) missing.push('lorebase-herald');
  if (!process.env.SANDBOX_BIN) missing.push('lorebase-sandbox');
  if (missing.length && process.env.HERALD_NO_BUILD !== '1') {
    const args = ['build', '--quiet', ...missing.flatMap((p) => ['-p', p])];
    const r = spawnSync('cargo', args, { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`cargo ${args.join(' ')} failed`);
  }
  for (const p of [herald, sandbox]) {
    if (!existsSync(p)) throw new Error(`no binary at ${p} (set HERALD_BIN / SANDBOX_BIN)`);
  }
  built = { herald, sandbox };
  return built;
}

/** The environment without the developer's own Lorebase settings. */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    const u = k.toUpperCase();
    if (u.startsWith('LOREBASE_') || u === 'RUST_LOG' || u.endsWith('_PROXY')) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** Waits for a `PREFIX {json}` line on a child's stdout. */
function readyLine(child, prefix, timeoutMs = 60_000) {
  return new Promise((resolvePromise, reject) => {
    const rl = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`no ${prefix} line in ${timeoutMs} ms`)), timeoutMs);
    rl.on('line', (line) => {
      if (line.startsWith(prefix)) {
        clearTimeout(timer);
        resolvePromise(JSON.parse(line.slice(prefix.length).trim()));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited (${code}) before ${prefix}`));
    });
  });
}

/** Stops a child with a signal and waits for its exit code. */
export function stop(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolvePromise(code);
    });
    child.kill(signal);
  });
}

/** Whether the sandbox Keepers answer as a newer Keeper (HERALD_TEST_NEWER_KEEPER=1). */
export const NEWER_KEEPER = process.env.HERALD_TEST_NEWER_KEEPER === '1';

/** Starts the sandbox Keeper (`none` or `api_key`). */
export async function startSandbox(auth = 'none') {
  const args = ['--port', '0', '--auth', auth, '--seed', '7', ...(NEWER_KEEPER ? ['--newer-keeper'] : [])];
  const child = spawn(binaries().sandbox, args, {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: cleanEnv(),
  });
  const ready = await readyLine(child, 'LOREBASE_SANDBOX_READY');
  if (('newer_keeper' in ready) !== NEWER_KEEPER) throw new Error(`not the sandbox asked for: ${JSON.stringify(ready)}`);
  const keys = Object.fromEntries((ready.keys ?? []).map((k) => [k.principal, k.key]));
  return { url: ready.url, keys, child, stop: () => stop(child) };
}

/** Starts Herald over Streamable HTTP on a free port. */
export async function startHttpHerald(keeperUrl, { args = [], env = {} } = {}) {
  const child = spawn(binaries().herald, ['--transport', 'streamable_http', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: cleanEnv({ LOREBASE_URL: keeperUrl, LOREBASE_DOMAIN: 'supply', ...env }),
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const ready = await readyLine(child, 'LOREBASE_HERALD_READY');
  return { url: ready.url, base: ready.url.replace(/\/[^/]*$/, ''), child, stderr: () => stderr, stop: () => stop(child) };
}

/** An initialized MCP client over stdio (Herald spawned as a host does). */
export async function stdioClient(keeperUrl, { args = [], env = {} } = {}) {
  const transport = new StdioClientTransport({
    command: binaries().herald,
    args,
    env: cleanEnv({ LOREBASE_URL: keeperUrl, LOREBASE_DOMAIN: 'supply', ...env }),
    stderr: 'ignore',
  });
  const client = new Client({ name: 'herald-node-tests', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/** An initialized MCP client over Streamable HTTP. */
export async function httpClient(url, headers = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'herald-node-tests', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/** The text blocks of a tool result, joined. */
export function textOf(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

/** Every call of the table, with the diff's Revision ids from the branch log. */
export async function toolCalls(keeperUrl, headers = {}) {
  const r = await fetch(`${keeperUrl}/api/v1/domains/supply/branches/main/log?limit=100`, { headers });
  if (!r.ok) throw new Error(`branch log: ${r.status}`);
  const entries = (await r.json()).entries;
  const oldest = entries[entries.length - 1].revision;
  const newest = entries[0].revision;
  return TABLE.calls.map((call) => {
    const args = structuredClone(call.arguments);
    for (const [k, v] of Object.entries(args)) {
      if (v === '{from_revision}') args[k] = oldest;
      if (v === '{to_revision}') args[k] = newest;
    }
    return { ...call, arguments: args };
  });
}

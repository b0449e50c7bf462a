// Helpers of the lorebase-herald npm package tests (node --test): real
// processes only — the sandbox Keeper on an ephemeral port, the addon built
// for this machine (npm/lorebase-herald.<platform>.node, from
// npm/scripts/build-addon.mjs), the native binaries of this checkout.
//
// Binaries: SANDBOX_BIN and HERALD_BIN, else target/debug/lorebase-sandbox and
// target/debug/lorebase-herald (scripts/test-node.sh builds them).

import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
export const NPM_DIR = resolve(here, '..')
export const ROOT = resolve(NPM_DIR, '..')
export const BIN = join(NPM_DIR, 'bin', 'lorebase-herald')
export const require = createRequire(import.meta.url)

// The developer's own Lorebase settings must not leak into the tests; the addon
// reads this process's environment.
for (const name of Object.keys(process.env)) {
  const upper = name.toUpperCase()
  if (upper.startsWith('LOREBASE_') || upper === 'RUST_LOG' || upper.endsWith('_PROXY')) {
    delete process.env[name]
  }
}

/** The shared table of one valid call per tool (also used by tests/e2e-python and tests/e2e-node). */
export const TABLE = JSON.parse(readFileSync(join(ROOT, 'tests', 'e2e-python', 'tool_calls.json'), 'utf8'))

export const TOOL_NAMES = [
  'lorebase_context', 'lorebase_schema', 'lorebase_get', 'lorebase_resolve', 'lorebase_query',
  'lorebase_search', 'lorebase_neighborhood', 'lorebase_explain', 'lorebase_history',
  'lorebase_lineage', 'lorebase_changes', 'lorebase_diff', 'lorebase_execute', 'lorebase_branches',
]

/** The native binaries of this checkout (each checked when it is used). */
export function binaries() {
  const target = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target'), 'debug')
  const exe = process.platform === 'win32' ? '.exe' : ''
  const found = (path) => {
    if (!existsSync(path)) throw new Error(`no binary at ${path}: run scripts/test-node.sh (or set HERALD_BIN / SANDBOX_BIN)`)
    return path
  }
  return {
    get herald() {
      return found(process.env.HERALD_BIN ?? join(target, `lorebase-herald${exe}`))
    },
    get sandbox() {
      return found(process.env.SANDBOX_BIN ?? join(target, `lorebase-sandbox${exe}`))
    },
  }
}

/** The addon's exports (Herald, runCli, settingOptions), as `require('lorebase-herald')` gives them. */
export function addon() {
  return require(join(NPM_DIR, 'index.js'))
}

/** This process's environment plus `extra` (already free of Lorebase settings). */
export function cleanEnv(extra = {}) {
  return { ...process.env, ...extra }
}

/** Waits for a `PREFIX {json}` line on a child's stdout. */
function readyLine(child, prefix, timeoutMs = 60_000) {
  return new Promise((resolvePromise, reject) => {
    const rl = createInterface({ input: child.stdout })
    const timer = setTimeout(() => reject(new Error(`no ${prefix} line in ${timeoutMs} ms`)), timeoutMs)
    rl.on('line', (line) => {
      if (line.startsWith(prefix)) {
        clearTimeout(timer)
        resolvePromise(JSON.parse(line.slice(prefix.length).trim()))
      }
    })
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`process exited (${code}) before ${prefix}`))
    })
  })
}

/**
 * Starts the sandbox Keeper on an ephemeral port: `{ url, keys, key(principal),
 * faults(body), clearFaults(), requests(), stop() }`.
 */
export async function startSandbox({ auth = 'api_key' } = {}) {
  const { sandbox } = binaries()
  const child = spawn(sandbox, ['--port', '0', '--auth', auth], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const ready = await readyLine(child, 'LOREBASE_SANDBOX_READY')
  const admin = async (method, path, body) => {
    const res = await fetch(`${ready.url}/_sandbox/${path}`, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    })
    if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status}`)
    const text = await res.text()
    return text ? JSON.parse(text) : null
  }
  return {
    url: ready.url,
    keys: ready.keys,
    key(principal) {
      const entry = ready.keys.find((k) => k.principal === principal)
      if (!entry) throw new Error(`no key for ${principal}`)
      return entry.key
    },
    faults: (body) => admin('POST', 'faults', body),
    clearFaults: () => admin('DELETE', 'faults'),
    reset: () => admin('POST', 'reset'),
    requests: async () => (await admin('GET', 'stats')).requests,
    stop() {
      child.kill('SIGTERM')
    },
  }
}

/** The revisions of supply/main, oldest first (for lorebase_diff). */
export async function supplyRevisions(sandbox, key) {
  const res = await fetch(`${sandbox.url}/api/v1/domains/supply/branches/main/log`, {
    headers: key ? { authorization: `Bearer ${key}` } : {},
  })
  if (!res.ok) throw new Error(`branch log: ${res.status}`)
  const body = await res.json()
  const items = body.items ?? body.revisions ?? body.entries ?? body
  return items.map((r) => r.id ?? r.revision).reverse()
}

/** The table's calls with the diff's revisions filled in. */
export function filledCalls(revisions) {
  const fill = (value) =>
    JSON.parse(
      JSON.stringify(value)
        .replaceAll('{from_revision}', revisions[0])
        .replaceAll('{to_revision}', revisions[revisions.length - 1]),
    )
  return TABLE.calls.map((c) => ({ ...c, arguments: fill(c.arguments) }))
}

/**
 * Runs a command to its end: `{ code, signal, stdout, stderr }`. `input` is
 * written to stdin (then closed).
 */
export function run(command, args, { env, cwd, input, timeoutMs = 120_000 } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { env: env ?? cleanEnv(), cwd, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${command} ${args.join(' ')} did not finish in ${timeoutMs} ms`))
    }, timeoutMs)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolvePromise({ code, signal, stdout, stderr })
    })
    // A command that exits without reading its input closes the pipe first.
    child.stdin.on('error', () => {})
    child.stdin.end(input ?? '')
  })
}

/** A small markdown knowledge base in a temp dir (two OKF entries). */
export function kbFixture() {
  const dir = mkdtempSync(join(tmpdir(), 'herald-kb-'))
  mkdirSync(join(dir, 'runbooks'))
  writeFileSync(
    join(dir, 'runbooks', 'keeper-429.md'),
    '---\ntitle: Keeper answers 429 under load\ntype: runbook\ndescription: Rate limits of Keeper and how agents back off\ntags: [keeper, rate-limit]\n---\n\n# Keeper answers 429\n\nAgents retry after Retry-After; raise the quota of the service principal.\n',
  )
  writeFileSync(
    join(dir, 'supplier-risk.md'),
    '---\ntitle: Supplier risk reviews\ntype: howto\n---\n\nFlag a supplier with flag_supplier_risk and a reason.\n',
  )
  return dir
}

// `node bin/lorebase-herald` (the package's bin, on the addon) against the
// native binary: the same command line, output and exit codes; stdio serving
// with the official TypeScript SDK client; signals; a missing platform package.

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, before, describe, test } from 'node:test'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

import { BIN, NPM_DIR, TOOL_NAMES, binaries, cleanEnv, kbFixture, run, startSandbox } from './helpers.js'

let sandbox
let env

before(async () => {
  sandbox = await startSandbox({ auth: 'api_key' })
  env = cleanEnv({
    LOREBASE_URL: sandbox.url,
    LOREBASE_API_KEY: sandbox.key('agt_reader'),
    LOREBASE_DOMAIN: 'supply',
    LOREBASE__HERALD__KEEPER__MAX_RETRIES: '0',
  })
})

after(() => sandbox?.stop())

/** Runs the same arguments through the native binary and the npm bin. */
async function both(args, options = {}) {
  const { herald } = binaries()
  const native = await run(herald, args, { env, ...options })
  const npm = await run(process.execPath, [BIN, ...args], { env, ...options })
  return { native, npm }
}

describe('the same command line as the native binary', () => {
  const cases = [
    ['--version'],
    ['--help'],
    ['tools'],
    ['tools', '--format', 'json'],
    ['--read-only', 'tools', '--format', 'json'],
    ['call', 'lorebase_get', '{"ref": "Supplier/S-1001"}'],
    ['call', 'lorebase_get', '{"ref": "Supplier/S-1001", "format": "json"}'],
    ['call', 'lorebase_get', '{"ref": "Supplier/S-9999"}'],
    ['call', 'lorebase_nope', '{}'],
    ['call', 'lorebase_get', '{not json'],
    ['--bogus-flag'],
    ['--port', 'eighty', 'tools'],
  ]
  for (const args of cases) {
    test(args.join(' '), async () => {
      const { native, npm } = await both(args)
      assert.equal(npm.code, native.code, `exit code; stderr: ${npm.stderr}`)
      assert.equal(npm.stdout, native.stdout)
      assert.equal(npm.stderr.trim().split('\n')[0], native.stderr.trim().split('\n')[0])
    })
  }

  test('the knowledge-base tools and the kb command', async () => {
    const dir = kbFixture()
    try {
      for (const args of [
        ['--kb', dir, 'tools'],
        ['--kb', dir, 'call', 'kb_search', '{"query": "rate limit"}'],
        ['--kb', dir, 'call', 'kb_get', '{"path": "supplier-risk.md"}'],
        ['kb', dir],
        ['kb', '/nonexistent/herald-kb'],
      ]) {
        const { native, npm } = await both(args)
        assert.equal(npm.code, native.code, `${args.join(' ')}: ${npm.stderr}`)
        assert.equal(npm.stdout, native.stdout, args.join(' '))
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('call reads its arguments from stdin with -', async () => {
    const input = '{"ref": "Supplier/S-1001"}'
    const { native, npm } = await both(['call', 'lorebase_get', '-'], { input })
    assert.equal(native.code, 0, native.stderr)
    assert.equal(npm.code, 0, npm.stderr)
    assert.equal(npm.stdout, native.stdout)
    assert.match(npm.stdout, /Kavsen Alloys/)
  })

  test('a tool error exits 1, a usage error 2', async () => {
    const { npm } = await both(['call', 'lorebase_get', '{"ref": "Supplier/S-9999"}'])
    assert.equal(npm.code, 1)
    assert.match(npm.stdout, /^\[not-found\]/)
    const usage = await run(process.execPath, [BIN, '--bogus-flag'], { env })
    assert.equal(usage.code, 2)
  })
})

describe('serving stdio', () => {
  test('initialize, tools/list and tools/call with the TypeScript SDK client', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN], env, stderr: 'pipe' })
    const client = new Client({ name: 'npm-bin-test', version: '0.0.0' })
    await client.connect(transport)
    try {
      assert.equal(client.getServerVersion()?.name, 'lorebase-herald')
      const { tools } = await client.listTools()
      assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES)
      const result = await client.callTool({
        name: 'lorebase_get',
        arguments: { ref: 'Supplier/S-1001', format: 'json' },
      })
      assert.equal(result.isError, false)
      assert.match(result.content[0].text, /Kavsen Alloys/)
      assert.match(JSON.stringify(result.structuredContent), /Kavsen Alloys/)
      const text = await client.callTool({ name: 'lorebase_get', arguments: { ref: 'Supplier/S-1001' } })
      assert.equal(text.isError, false)
      assert.match(text.content[0].text, /^Supplier\/S-1001 "Kavsen Alloys/)
      const failed = await client.callTool({ name: 'lorebase_get', arguments: { ref: 'Supplier/S-9999' } })
      assert.equal(failed.isError, true)
      assert.match(failed.content[0].text, /^\[not-found\]/)
    } finally {
      await client.close()
    }
  })

  /**
   * Starts `command args` serving stdio, initializes it with raw JSON-RPC,
   * sends `signal`, and returns its exit and everything it wrote to stdout.
   */
  async function stopWith(command, args, signal) {
    const child = spawn(command, args, { env: cleanEnv({ ...env, RUST_LOG: 'debug' }), stdio: ['pipe', 'pipe', 'pipe'] })
    const lines = []
    const rl = createInterface({ input: child.stdout })
    const answered = new Promise((resolve, reject) => {
      rl.on('line', (line) => {
        lines.push(line)
        if (line.includes('"id":1')) resolve()
      })
      child.on('exit', (code) => reject(new Error(`exited (${code}) before answering`)))
    })
    child.stderr.resume()
    child.stdin.on('error', () => {})
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'signal-test', version: '0' } },
      })}\n`,
    )
    await answered
    const exited = new Promise((resolve) => child.on('exit', (code, sig) => resolve({ code, signal: sig })))
    const guard = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.kill(signal)
    const result = await exited
    clearTimeout(guard)
    return { ...result, lines }
  }

  for (const signal of ['SIGTERM', 'SIGINT']) {
    test(`${signal} ends it cleanly, as it ends the native binary`, async () => {
      const { herald } = binaries()
      const native = await stopWith(herald, [], signal)
      const npm = await stopWith(process.execPath, [BIN], signal)
      assert.equal(native.signal, null, 'the native binary exits by itself')
      assert.equal(npm.signal, native.signal)
      assert.equal(npm.code, native.code)
      // stdout stays protocol-only, even with debug logging.
      for (const line of npm.lines) assert.equal(JSON.parse(line).jsonrpc, '2.0', line)
    })
  }
})

describe('the launcher', () => {
  /** Runs `demo` until it printed the host configurations, then ends it. */
  async function demoConfigs(extraEnv) {
    const child = spawn(process.execPath, [BIN, 'demo'], { env: cleanEnv(extraEnv), stdio: ['pipe', 'pipe', 'pipe'] })
    let stderr = ''
    child.stdin.on('error', () => {})
    await new Promise((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error(`no host configurations: ${stderr}`)), 60_000)
      child.stderr.on('data', (d) => {
        stderr += d
        if (stderr.includes('code --add-mcp')) {
          clearTimeout(guard)
          resolve()
        }
      })
      child.on('exit', (code) => reject(new Error(`demo exited (${code}): ${stderr}`)))
    })
    child.stdin.end()
    child.kill('SIGTERM')
    return stderr
  }

  test('demo under npx prints npx host configurations', async () => {
    const stderr = await demoConfigs({ npm_command: 'exec' })
    assert.match(stderr, /claude mcp add \S+ -- npx -y lorebase-herald demo/)
    assert.match(stderr, /"command": "npx"/)
  })

  test('demo run directly prints the bin path', async () => {
    const stderr = await demoConfigs({})
    assert.ok(stderr.includes(`-- ${BIN} demo`), stderr)
  })
})

describe('a missing platform package', () => {
  test('is one clear line naming the package to install', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-noaddon-'))
    try {
      for (const file of ['package.json', 'index.js', 'native.js', 'bin']) {
        cpSync(join(NPM_DIR, file), join(dir, file), { recursive: true })
      }
      const { version } = JSON.parse((await import('node:fs')).readFileSync(join(NPM_DIR, 'package.json'), 'utf8'))
      const result = await run(process.execPath, [join(dir, 'bin', 'lorebase-herald'), 'tools'], { env })
      assert.equal(result.code, 1)
      assert.equal(result.stdout, '')
      const lines = result.stderr.trim().split('\n')
      assert.equal(lines.length, 1, result.stderr)
      const { platformKey } = await import(join(NPM_DIR, 'native.js'))
      assert.ok(lines[0].includes(`install lorebase-herald-${platformKey()}@${version}`), lines[0])
      // require() throws the same, as an Error with a code.
      const req = await run(process.execPath, ['-e', `try { require(${JSON.stringify(dir)}) } catch (e) { console.log(e.code) }`], { env })
      assert.equal(req.stdout.trim(), 'HERALD_ADDON_MISSING')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

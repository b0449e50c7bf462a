// The built addon in-process: listTools(), callTool() on every tool against the
// sandbox Keeper, per-call keys, concurrency, the event loop, error shapes and
// settings.

import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { NPM_DIR, TABLE, TOOL_NAMES, addon, filledCalls, kbFixture, startSandbox, supplyRevisions } from './helpers.js'

const { Herald, settingOptions } = addon()

let sandbox
let calls
let reader
let writer

before(async () => {
  sandbox = await startSandbox({ auth: 'api_key' })
  reader = sandbox.key('agt_reader')
  writer = sandbox.key('agt_risk_bot')
  calls = filledCalls(await supplyRevisions(sandbox, reader))
})

after(() => sandbox?.stop())

/** A Herald on the sandbox, Domain supply, no retries unless asked. */
function herald(options = {}) {
  return new Herald({ baseUrl: sandbox.url, domain: 'supply', maxRetries: 0, ...options })
}

/** Asserts `promise` rejects with an Error whose code is `code`; returns it. */
async function rejectsWith(promise, code) {
  let caught
  await assert.rejects(promise, (error) => {
    caught = error
    return true
  })
  assert.ok(caught instanceof Error, `expected an Error, got ${caught}`)
  assert.equal(caught.code, code, caught.message)
  return caught
}

describe('listTools', () => {
  test('lists the 14 tools in table order, ready for a model', () => {
    const tools = herald().listTools()
    assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES)
    for (const tool of tools) {
      assert.equal(typeof tool.description, 'string')
      assert.ok(tool.description.length > 20, tool.name)
      assert.ok(tool.title.length > 0, tool.name)
      assert.equal(tool.inputSchema.type, 'object', tool.name)
      assert.equal(typeof tool.inputSchema.properties, 'object', tool.name)
      const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.annotations
      for (const hint of [readOnlyHint, destructiveHint, idempotentHint, openWorldHint]) {
        assert.equal(typeof hint, 'boolean', tool.name)
      }
      assert.equal(readOnlyHint, tool.name !== 'lorebase_execute', tool.name)
      // Plain JSON: what a model client serializes.
      assert.deepEqual(JSON.parse(JSON.stringify(tool)), tool)
    }
  })

  test('the tool selection settings apply', () => {
    const readOnly = herald({ readOnly: true }).listTools().map((t) => t.name)
    assert.ok(!readOnly.includes('lorebase_execute'))
    assert.equal(readOnly.length, 13)
    const allowed = herald({ tools: ['lorebase_get', 'lorebase_search'] }).listTools().map((t) => t.name)
    assert.deepEqual(allowed, ['lorebase_get', 'lorebase_search'])
    const denied = herald({ excludeTools: ['lorebase_diff'] }).listTools().map((t) => t.name)
    assert.deepEqual(denied, TOOL_NAMES.filter((n) => n !== 'lorebase_diff'))
    const viaSettings = herald({ settings: { tools: { read_only: true } } }).listTools()
    assert.equal(viaSettings.length, 13)
  })
})

describe('callTool against the sandbox', () => {
  test('every tool answers', async () => {
    const h = herald({ apiKey: reader })
    assert.equal(calls.length, 14)
    for (const call of calls) {
      const options = call.tool === 'lorebase_execute' ? { apiKey: writer } : undefined
      const result = await h.callTool(call.tool, call.arguments, options)
      assert.equal(result.isError, false, `${call.tool}: ${result.text}`)
      assert.ok(result.text.includes(call.expect), `${call.tool} lacks ${call.expect}: ${result.text}`)
    }
  })

  test('format json gives the structured answer', async () => {
    const result = await herald({ apiKey: reader }).callTool('lorebase_get', {
      ref: 'Supplier/S-1001',
      format: 'json',
    })
    assert.equal(result.isError, false, result.text)
    assert.equal(typeof result.structured, 'object')
    assert.ok(JSON.stringify(result.structured).includes('Kavsen Alloys'))
  })

  test('arguments as JSON text, as function-calling models send them', async () => {
    const h = herald({ apiKey: reader })
    const fromText = await h.callTool('lorebase_get', '{"ref": "Supplier/S-1001"}')
    const fromObject = await h.callTool('lorebase_get', { ref: 'Supplier/S-1001' })
    assert.equal(fromText.isError, false, fromText.text)
    assert.equal(fromText.text, fromObject.text)
  })

  test('a tool failure is a result, not a throw', async () => {
    const { tool, arguments: args, expect_prefix: prefix } = TABLE.tool_error
    const result = await herald({ apiKey: reader }).callTool(tool, args)
    assert.equal(result.isError, true)
    assert.ok(result.text.startsWith(prefix), result.text)
    assert.match(result.text, /\nnext: /)
    assert.equal(result.structured, undefined)
  })

  test('the per-call key is sent instead of the configured one', async () => {
    const bad = herald({ apiKey: 'lbk_notakey_00000000' })
    const refused = await bad.callTool('lorebase_get', { ref: 'Supplier/S-1001' })
    assert.equal(refused.isError, true)
    assert.ok(refused.text.startsWith('[unauthorized]'), refused.text)
    assert.ok(!refused.text.includes('lbk_notakey_00000000'), 'the key must not be echoed')
    const own = await bad.callTool('lorebase_get', { ref: 'Supplier/S-1001' }, { apiKey: reader })
    assert.equal(own.isError, false, own.text)
    // Two callers with different grants on one Herald: the reader may not write.
    const shared = herald()
    const args = {
      operation: 'flag_supplier_risk',
      parameters: { supplier_code: 'S-1003', reason: 'addon test' },
      dry_run: true,
    }
    const denied = await shared.callTool('lorebase_execute', args, { apiKey: reader })
    assert.equal(denied.isError, true, denied.text)
    assert.ok(denied.text.startsWith('[forbidden]'), denied.text)
    const allowed = await shared.callTool('lorebase_execute', args, { apiKey: writer })
    assert.equal(allowed.isError, false, allowed.text)
  })

  test('100 calls in flight all complete', async () => {
    const h = herald({ apiKey: reader })
    const before = await sandbox.requests()
    const refs = Array.from({ length: 100 }, (_, i) => `Supplier/S-${1001 + (i % 3)}`)
    const results = await Promise.all(refs.map((ref) => h.callTool('lorebase_get', { ref })))
    for (const [i, result] of results.entries()) {
      assert.equal(result.isError, false, result.text)
      assert.ok(result.text.includes(refs[i].split('/')[1]), result.text)
    }
    assert.ok((await sandbox.requests()) - before >= 100)
  })

  test('a slow Keeper does not block the event loop', async () => {
    const h = herald({ apiKey: reader })
    await sandbox.faults({ count: 1, delay_ms: 1500 })
    const order = []
    const call = h.callTool('lorebase_get', { ref: 'Supplier/S-1001' }).then((r) => {
      order.push('call')
      return r
    })
    await new Promise((r) => setTimeout(r, 10))
    order.push('timer')
    const result = await call
    assert.equal(result.isError, false, result.text)
    assert.deepEqual(order, ['timer', 'call'])
    await sandbox.clearFaults()
  })

  test('an unreachable Keeper is keeper-unavailable', async () => {
    const h = new Herald({ baseUrl: 'http://127.0.0.1:9', domain: 'supply', maxRetries: 0, apiKey: 'lbk_secret_000000' })
    const result = await h.callTool('lorebase_get', { ref: 'Supplier/S-1001' })
    assert.equal(result.isError, true)
    assert.ok(result.text.startsWith('[keeper-unavailable]'), result.text)
    assert.ok(!result.text.includes('lbk_secret_000000'))
  })
})

describe('the knowledge base', () => {
  test('kbDir adds kb_search and kb_get', async () => {
    const dir = kbFixture()
    try {
      const h = herald({ kbDir: dir })
      const names = h.listTools().map((t) => t.name)
      assert.ok(names.includes('kb_search') && names.includes('kb_get'), names.join(' '))
      const found = await h.callTool('kb_search', { query: 'rate limit 429' })
      assert.equal(found.isError, false, found.text)
      assert.match(found.text, /runbooks\/keeper-429\.md/)
      const entry = await h.callTool('kb_get', { path: 'runbooks/keeper-429.md' })
      assert.equal(entry.isError, false, entry.text)
      assert.match(entry.text, /Retry-After/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a missing kbDir is invalid-settings, labelled as a KB error', () => {
    assert.throws(
      () => herald({ kbDir: '/nonexistent/herald-kb' }),
      (error) =>
        error.code === 'invalid-settings' &&
        /herald-kb/.test(error.message) &&
        !/Keeper client/.test(error.message),
    )
  })
})

describe('programming errors are thrown Errors with a code', () => {
  test('an unknown tool', async () => {
    const error = await rejectsWith(herald().callTool('lorebase_nope', {}), 'unknown-tool')
    assert.match(error.message, /lorebase_nope/)
  })

  test('arguments that are not a JSON object', async () => {
    const h = herald()
    await rejectsWith(h.callTool('lorebase_get', '{"ref": '), 'bad-arguments')
    await rejectsWith(h.callTool('lorebase_get', [1, 2]), 'bad-arguments')
    await rejectsWith(h.callTool('lorebase_get', '[1, 2]'), 'bad-arguments')
    await rejectsWith(h.callTool('lorebase_get', 42), 'bad-arguments')
    await rejectsWith(h.callTool('lorebase_get', { ref: () => 1 }), 'bad-arguments')
    await rejectsWith(h.callTool('lorebase_get', {}, { apiKey: '' }), 'bad-arguments')
  })

  test('a name that is not a string', () => {
    assert.throws(() => herald().callTool(42, {}), Error)
  })

  test('no or empty arguments are an empty object', async () => {
    const h = herald({ apiKey: reader })
    for (const args of [undefined, null, '', '  ']) {
      const result = await h.callTool('lorebase_branches', args)
      assert.equal(result.isError, false, result.text)
      assert.ok(result.text.includes('main'))
    }
  })
})

describe('settings', () => {
  test('default to the same environment variables as the server', async () => {
    const saved = { ...process.env }
    try {
      process.env.LOREBASE_URL = sandbox.url
      process.env.LOREBASE_API_KEY = reader
      process.env.LOREBASE_DOMAIN = 'supply'
      process.env.LOREBASE__HERALD__OUTPUT__MAX_ITEMS = '7'
      const h = new Herald()
      assert.equal(h.baseUrl, sandbox.url)
      assert.equal(h.domain, 'supply')
      const result = await h.callTool('lorebase_get', { ref: 'Supplier/S-1001' })
      assert.equal(result.isError, false, result.text)
      // Options win over the environment.
      assert.equal(new Herald({ domain: 'retail' }).domain, 'retail')
    } finally {
      for (const name of Object.keys(process.env)) {
        if (!(name in saved)) delete process.env[name]
      }
    }
  })

  test('bad options throw invalid-settings naming the option, never the key', () => {
    const cases = [
      [{ baseURL: 'http://x' }, /unknown option "baseURL"/],
      [{ maxChars: -1 }, /options\.maxChars/],
      [{ maxChars: 1.5 }, /options\.maxChars/],
      [{ maxChars: 'many' }, /maxChars/],
      [{ settings: { keeper: { max_retries: 'x' } } }, /herald\.keeper\.max_retries \(from options\.settings\)/],
      [{ settings: { nope: 1 } }, /unknown setting herald\.nope/],
      [{ settings: 5 }, /must be a JSON object/],
      [{ apiKey: 'secret://env/HERALD_TEST_UNSET_VARIABLE' }, /HERALD_TEST_UNSET_VARIABLE/],
      [{ apiKey: 'lbk_do_not_print_me', baseUrl: 'not a url' }, /options\.baseUrl/],
      ['supply', /must be an object/],
    ]
    for (const [options, pattern] of cases) {
      assert.throws(
        () => new Herald(options),
        (error) => {
          assert.ok(error instanceof Error)
          assert.equal(error.code, 'invalid-settings', error.message)
          assert.match(error.message, pattern)
          assert.ok(!error.message.includes('lbk_do_not_print_me'), error.message)
          assert.ok(!error.message.includes('\n'), 'one line')
          return true
        },
        JSON.stringify(options),
      )
    }
  })

  test('the options that set a key are the settings table\'s, each naming its key', () => {
    const options = settingOptions()
    const declared = readFileSync(join(NPM_DIR, 'index.d.ts'), 'utf8')
      .split('export interface HeraldOptions {')[1]
      .split('\n}')[0]
    const properties = [...declared.matchAll(/^  (\w+)\?:/gm)].map((m) => m[1])
    assert.deepEqual(
      options.map((o) => o.option),
      properties.filter((p) => p !== 'configFile' && p !== 'settings'),
    )
    const maxChars = options.find((o) => o.option === 'maxChars')
    assert.equal(maxChars.key, 'output.max_chars')
    assert.throws(() => new Herald({ maxChars: -1 }), new RegExp(`herald\\.${maxChars.key.replace('.', '\\.')} \\(from options\\.maxChars\\)`))
    assert.throws(() => new Herald({ maxChras: 600 }), /unknown option "maxChras"/)
  })

  test('configFile names the YAML settings file, under the options', () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-config-'))
    try {
      const file = join(dir, 'lorebase.yaml')
      writeFileSync(file, `herald:\n  domain: retail\n  keeper:\n    base_url: ${sandbox.url}\n`)
      const h = new Herald({ configFile: file })
      assert.equal(h.domain, 'retail')
      assert.equal(h.baseUrl, sandbox.url)
      assert.equal(new Herald({ configFile: file, domain: 'supply' }).domain, 'supply')
      writeFileSync(file, 'herald:\n  output:\n    max_chars: lots\n')
      assert.throws(
        () => new Herald({ configFile: file }),
        (error) => error.code === 'invalid-settings' && error.message.includes(file) && /max_chars/.test(error.message),
      )
      assert.throws(
        () => new Herald({ configFile: join(dir, 'missing.yaml') }),
        (error) => error.code === 'invalid-settings' && error.message.includes('missing.yaml'),
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('output caps apply', async () => {
    const result = await herald({ apiKey: reader, maxChars: 500 }).callTool('lorebase_schema', {})
    assert.equal(result.isError, false, result.text)
    assert.ok([...result.text].length <= 500, `${[...result.text].length} chars`)
    assert.match(result.text, /truncated|more/)
  })
})

describe('remote MCP servers (mcp.servers)', () => {
  test('new Herald() joins a remote server\'s allowlisted tools; discoverRemoteTools() asks again', async (t) => {
    const { spawn } = await import('node:child_process')
    const { fileURLToPath } = await import('node:url')
    const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..')
    const python = join(root, '.venv', 'bin', 'python')
    const { existsSync } = await import('node:fs')
    if (!existsSync(python)) {
      t.skip('needs the test virtualenv (scripts/setup.sh)')
      return
    }
    const server = spawn(python, [join(root, 'tests', 'e2e-python', 'remote_mcp_server.py'), '--port', '0'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    try {
      const url = await new Promise((resolve, reject) => {
        let buffered = ''
        const timer = setTimeout(() => reject(new Error('the remote MCP server did not start')), 30000)
        server.stdout.on('data', (chunk) => {
          buffered += chunk
          const line = buffered.split('\n').find((l) => l.startsWith('REMOTE_MCP_READY '))
          if (line) {
            clearTimeout(timer)
            resolve(JSON.parse(line.slice('REMOTE_MCP_READY '.length)).url)
          }
        })
      })
      const h = herald({ settings: { mcp: { servers: [{ name: 'py', url, tools: ['add'] }] } } })
      // Discovered when the Herald is built, as in Python and C.
      assert.ok(h.listTools().some((tool) => tool.name === 'py__add'), 'the remote tool joins at construction')
      assert.equal(await h.discoverRemoteTools(), 1)
      const names = h.listTools().map((tool) => tool.name)
      assert.ok(names.includes('py__add'), names.join(', '))
      assert.ok(!names.includes('py__shout'), 'an unlisted tool is never registered')
      const result = await h.callTool('py__add', { a: 1, b: 2 })
      assert.equal(result.isError, false, result.text)
      assert.match(result.text, /3/)
    } finally {
      server.kill()
    }
  })
})

// npm/examples/ai-sdk-agent.mjs, run as a user runs it (its own process, the
// settings in the environment) against the sandbox Keeper.

import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, test } from 'node:test'

import { NPM_DIR, cleanEnv, run } from '../helpers.js'
import { RECORD, adapterSandbox } from './harness.js'

const EXAMPLE = join(NPM_DIR, 'examples', 'ai-sdk-agent.mjs')

let env
before(async () => {
  env = await adapterSandbox()
})
after(() => env?.stop())

const runExample = (args, settings) =>
  run(process.execPath, [EXAMPLE, ...args], { env: cleanEnv({ LOREBASE_DOMAIN: 'supply', ...settings }) })

test('the example agent reads a Record through the tool', async () => {
  const { code, stdout, stderr } = await runExample([], { LOREBASE_URL: env.url, LOREBASE_API_KEY: env.readerKey })
  assert.equal(code, 0, stderr)
  assert.match(stderr, /tool call: lorebase_get \{"ref":"Supplier\/S-1001"\}/)
  const record = (await env.herald.callTool('lorebase_get', { ref: RECORD.ref })).text
  assert.equal(stdout, `Here is ${RECORD.ref}:\n${record}\n`)
})

test('the example agent reads a tool failure as the result', async () => {
  const { code, stdout, stderr } = await runExample([RECORD.missing], { LOREBASE_URL: env.url, LOREBASE_API_KEY: env.readerKey })
  assert.equal(code, 0, stderr)
  assert.match(stdout, /^Lorebase refused: \[not-found\] .*\nnext: /s)
})

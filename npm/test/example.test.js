// npm/examples/agent-loop.js: the tools handed to a function-calling model and
// its tool calls run in-process against the sandbox Keeper. The "model" is a
// scripted OpenAI-compatible endpoint on loopback (no network), which checks
// what the loop sends it.

import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { after, before, test } from 'node:test'

import { NPM_DIR, TOOL_NAMES, addon, require, startSandbox } from './helpers.js'

const { Herald } = addon()
const { toOpenAITools, runToolCalls, runAgent } = require(join(NPM_DIR, 'examples', 'agent-loop.js'))

let sandbox
let herald

before(async () => {
  sandbox = await startSandbox({ auth: 'api_key' })
  herald = new Herald({ baseUrl: sandbox.url, apiKey: sandbox.key('agt_reader'), domain: 'supply' })
})

after(() => sandbox?.stop())

test('the tools become OpenAI function tools', () => {
  const tools = toOpenAITools(herald.listTools())
  assert.deepEqual(tools.map((t) => t.function.name), TOOL_NAMES)
  for (const tool of tools) {
    assert.equal(tool.type, 'function')
    assert.equal(tool.function.parameters.type, 'object')
    assert.equal(tool.function.parameters.$schema, undefined)
    assert.ok(tool.function.description.length > 20)
  }
})

test('tool calls run directly, mistakes included, as tool messages', async () => {
  const messages = await runToolCalls(herald, [
    { id: 'a', type: 'function', function: { name: 'lorebase_get', arguments: '{"ref":"Supplier/S-1001"}' } },
    { id: 'b', type: 'function', function: { name: 'lorebase_get', arguments: '{"ref":"Supplier/S-9999"}' } },
    { id: 'c', type: 'function', function: { name: 'lorebase_nope', arguments: '{}' } },
    { id: 'd', type: 'function', function: { name: 'lorebase_get', arguments: '{"ref": ' } },
  ])
  assert.deepEqual(messages.map((m) => [m.role, m.tool_call_id]), [['tool', 'a'], ['tool', 'b'], ['tool', 'c'], ['tool', 'd']])
  assert.match(messages[0].content, /Kavsen Alloys/)
  assert.match(messages[1].content, /^\[not-found\]/)
  assert.match(messages[2].content, /^\[unknown-tool\]/)
  assert.match(messages[3].content, /^\[bad-arguments\]/)
})

test('the loop: model asks for tools, gets their answers, then answers', async () => {
  const requests = []
  const model = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => { body += d })
    req.on('end', () => {
      const request = JSON.parse(body)
      requests.push({ url: req.url, auth: req.headers.authorization, request })
      const last = request.messages[request.messages.length - 1]
      const message =
        last.role === 'user'
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'call_1', type: 'function', function: { name: 'lorebase_get', arguments: '{"ref":"Supplier/S-1001"}' } },
              ],
            }
          : { role: 'assistant', content: `The tool said: ${last.content.split('\n')[0]}` }
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ choices: [{ index: 0, message, finish_reason: 'stop' }] }))
    })
  })
  await new Promise((resolve) => model.listen(0, '127.0.0.1', resolve))
  try {
    const { port } = model.address()
    const { answer, messages } = await runAgent({
      herald,
      question: 'Who is S-1001?',
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: 'sk-test',
      model: 'scripted',
    })
    assert.equal(requests.length, 2)
    assert.equal(requests[0].url, '/v1/chat/completions')
    assert.equal(requests[0].auth, 'Bearer sk-test')
    assert.deepEqual(requests[0].request.tools.map((t) => t.function.name), TOOL_NAMES)
    const toolMessage = requests[1].request.messages.find((m) => m.role === 'tool')
    assert.equal(toolMessage.tool_call_id, 'call_1')
    assert.match(toolMessage.content, /Kavsen Alloys/)
    assert.match(answer, /^The tool said: /)
    assert.equal(messages[messages.length - 1].content, answer)
  } finally {
    model.close()
  }
})

// lorebase-herald/langchain: Herald's tools in LangChain's own agent loop
// (`createAgent` of `langchain` 1, on LangGraph), with @langchain/core's fake
// chat model scripted turn by turn, against the sandbox Keeper.

import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { AIMessage, ToolMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { StructuredTool } from '@langchain/core/tools'
import { createAgent } from 'langchain'

import { RECORD, adapterSandbox, packageRequire } from './harness.js'

const { toLangChainTools } = await import('lorebase-herald/langchain')

let env
before(async () => {
  env = await adapterSandbox()
})
after(() => env?.stop())

/** The tool messages a model call received. */
function toolMessages(messages) {
  return messages.filter((m) => ToolMessage.isInstance(m))
}

/** Turn 1 calls `toolName` with `args`; turn 2 answers with the first line it read. */
export function scriptedModel(toolName = 'lorebase_get', args = { ref: RECORD.ref }) {
  return fakeModel()
    .respondWithTools([{ name: toolName, args, id: 'call_1' }])
    .respond((messages) => new AIMessage(`The tool said: ${String(toolMessages(messages)[0].content).split('\n')[0]}`))
}

const ask = (agent, text, config) => agent.invoke({ messages: [{ role: 'user', content: text }] }, config)

test('the tools are Herald\'s definitions, with the annotations as metadata (ES module and CommonJS entries)', () => {
  // Each entry builds its tools from the framework of its own module system.
  const entries = [
    [toLangChainTools, StructuredTool],
    [packageRequire('lorebase-herald/langchain').toLangChainTools, packageRequire('@langchain/core/tools').StructuredTool],
  ]
  for (const [make, StructuredToolClass] of entries) {
    const tools = make(env.herald)
    const definitions = env.herald.listTools()
    assert.deepEqual(tools.map((t) => t.name), definitions.map((d) => d.name))
    for (const [i, definition] of definitions.entries()) {
      const { $schema, ...parameters } = definition.inputSchema
      assert.ok(tools[i] instanceof StructuredToolClass)
      assert.equal(tools[i].description, definition.description)
      assert.deepEqual(tools[i].schema, parameters)
      assert.deepEqual(tools[i].metadata, { title: definition.title, annotations: definition.annotations })
    }
  }
})

test('createAgent: the model calls lorebase_get, its next turn reads the Record', async () => {
  const model = scriptedModel()
  const agent = createAgent({ model, tools: toLangChainTools(env.herald) })
  const { messages } = await ask(agent, 'Who is S-1001?')
  assert.equal(model.callCount, 2)
  const [message] = toolMessages(model.calls[1].messages)
  assert.equal(message.status, 'success')
  assert.equal(message.tool_call_id, 'call_1')
  assert.match(String(message.content), RECORD.text)
  assert.equal(message.content, (await env.herald.callTool('lorebase_get', { ref: RECORD.ref })).text)
  assert.equal(message.artifact.ref, RECORD.ref)
  assert.match(String(messages.at(-1).content), /^The tool said: /)
})

test('a tool failure reaches the model as an error ToolMessage, and the run goes on', async () => {
  const model = scriptedModel('lorebase_get', { ref: RECORD.missing })
  const { messages } = await ask(createAgent({ model, tools: toLangChainTools(env.herald) }), 'Who?')
  const [message] = toolMessages(model.calls[1].messages)
  assert.equal(message.status, 'error')
  assert.match(String(message.content), /^\[not-found\] /)
  assert.match(String(message.content), /\nnext: /)
  assert.match(String(messages.at(-1).content), /^The tool said: \[not-found\]/)
})

test('format json and the per-call key from the run config reach Herald', async () => {
  const anonymous = env.heraldWithoutKey()
  const refused = scriptedModel()
  await ask(createAgent({ model: refused, tools: toLangChainTools(anonymous) }), 'x')
  assert.match(String(toolMessages(refused.calls[1].messages)[0].content), /^\[unauthorized\]/)

  const tools = toLangChainTools(anonymous, { apiKey: (config) => config.configurable.keeperKey })
  const model = scriptedModel('lorebase_get', { ref: RECORD.ref, format: 'json' })
  await ask(createAgent({ model, tools }), 'x', { configurable: { keeperKey: env.readerKey } })
  const [message] = toolMessages(model.calls[1].messages)
  assert.equal(JSON.parse(String(message.content)).ref, RECORD.ref)
  assert.deepEqual(message.artifact, JSON.parse(String(message.content)))
})

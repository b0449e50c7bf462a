// lorebase-herald/openai-agents: Herald's tools in the OpenAI Agents SDK's own
// run loop (`run(agent, input)`), with the SDK's ScriptedModel, against the
// sandbox Keeper.

import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { Agent, run, setTracingDisabled } from '@openai/agents'
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from '@openai/agents/testing'

import { RECORD, adapterSandbox, packageRequire } from './harness.js'

const { toOpenAIAgentsTools } = await import('lorebase-herald/openai-agents')

setTracingDisabled(true)

let env
before(async () => {
  env = await adapterSandbox()
})
after(() => env?.stop())

/** The text of the function-call results in one model request. */
function toolOutputs(request) {
  return request.input
    .filter((item) => item.type === 'function_call_result')
    .map((item) => (typeof item.output === 'string' ? item.output : item.output.text))
}

/** Turn 1 calls `toolName` with `input`; turn 2 answers with the first line it read. */
export function scriptedModel(toolName = 'lorebase_get', input = { ref: RECORD.ref }) {
  return new ScriptedModel([
    [functionCall(toolName, input, { callId: 'call_1' })],
    modelResponder(({ request }) => [assistantMessage(`The tool said: ${toolOutputs(request)[0].split('\n')[0]}`)]),
  ])
}

test('the tools are Herald\'s definitions, non-strict (ES module and CommonJS entries)', () => {
  for (const make of [toOpenAIAgentsTools, packageRequire('lorebase-herald/openai-agents').toOpenAIAgentsTools]) {
    const tools = make(env.herald)
    const definitions = env.herald.listTools()
    assert.deepEqual(tools.map((t) => t.name), definitions.map((d) => d.name))
    for (const [i, definition] of definitions.entries()) {
      const { $schema, ...parameters } = definition.inputSchema
      assert.equal(tools[i].type, 'function')
      assert.equal(tools[i].description, definition.description)
      assert.equal(tools[i].strict, false)
      assert.deepEqual(tools[i].parameters, parameters)
    }
  }
})

test('run(): the model calls lorebase_get, its next turn reads the Record', async () => {
  const model = scriptedModel()
  const agent = new Agent({ name: 'analyst', model, tools: toOpenAIAgentsTools(env.herald) })
  const result = await run(agent, 'Who is S-1001?')
  model.assertComplete()
  const [output] = toolOutputs(model.calls[1].request)
  assert.match(output, RECORD.text)
  assert.equal(output, (await env.herald.callTool('lorebase_get', { ref: RECORD.ref })).text)
  assert.match(result.finalOutput, /^The tool said: /)
})

test('a tool failure reaches the model as the tool output, and the run goes on', async () => {
  const model = scriptedModel('lorebase_get', { ref: RECORD.missing })
  const agent = new Agent({ name: 'analyst', model, tools: toOpenAIAgentsTools(env.herald) })
  const result = await run(agent, 'Who?')
  const [output] = toolOutputs(model.calls[1].request)
  assert.match(output, /^\[not-found\] /)
  assert.match(output, /\nnext: /)
  assert.match(result.finalOutput, /^The tool said: \[not-found\]/)
})

test('format json and the per-call key from the run context reach Herald', async () => {
  const anonymous = env.heraldWithoutKey()
  const refused = scriptedModel()
  await run(new Agent({ name: 'a', model: refused, tools: toOpenAIAgentsTools(anonymous) }), 'x')
  assert.match(toolOutputs(refused.calls[1].request)[0], /^\[unauthorized\]/)

  const tools = toOpenAIAgentsTools(anonymous, { apiKey: (runContext) => runContext.context.keeperKey })
  const model = scriptedModel('lorebase_get', { ref: RECORD.ref, format: 'json' })
  await run(new Agent({ name: 'a', model, tools }), 'x', { context: { keeperKey: env.readerKey } })
  assert.equal(JSON.parse(toolOutputs(model.calls[1].request)[0]).ref, RECORD.ref)
})

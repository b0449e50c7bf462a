// lorebase-herald/mastra: Herald's tools in Mastra's own agent loop
// (`agent.generate`), with the AI SDK's mock model (Mastra takes AI SDK
// models) scripted turn by turn, against the sandbox Keeper.

import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { Agent } from '@mastra/core/agent'
import { RequestContext } from '@mastra/core/request-context'
import { RECORD, adapterSandbox, packageRequire } from './harness.js'
import { scriptedLanguageModel as scriptedModel, toolResults } from './scripted-language-model.js'

const { toMastraTools } = await import('lorebase-herald/mastra')

let env
before(async () => {
  env = await adapterSandbox()
})
after(() => env?.stop())

const agentWith = (model, tools) => new Agent({ id: 'analyst', name: 'analyst', instructions: 'Answer with the tools.', model, tools })

test('the tools are Herald\'s definitions, with the MCP annotations (ES module and CommonJS entries)', () => {
  for (const make of [toMastraTools, packageRequire('lorebase-herald/mastra').toMastraTools]) {
    const tools = make(env.herald)
    const definitions = env.herald.listTools()
    assert.deepEqual(Object.keys(tools), definitions.map((d) => d.name))
    for (const definition of definitions) {
      const tool = tools[definition.name]
      assert.equal(tool.id, definition.name)
      assert.equal(tool.description, definition.description)
      assert.deepEqual(tool.mcp.annotations, { title: definition.title, ...definition.annotations })
    }
    assert.equal(tools.lorebase_get.mcp.annotations.readOnlyHint, true)
    assert.equal(tools.lorebase_execute.mcp.annotations.destructiveHint, true)
  }
})

test('agent.generate: the model calls lorebase_get, its next turn reads the Record', async () => {
  const model = scriptedModel()
  const result = await agentWith(model, toMastraTools(env.herald)).generate('Who is S-1001?', { maxSteps: 5 })
  assert.equal(model.doGenerateCalls.length, 2)
  const [toolResult] = toolResults(model.doGenerateCalls[1].prompt)
  assert.equal(toolResult.toolName, 'lorebase_get')
  assert.equal(toolResult.output.type, 'text')
  assert.match(toolResult.output.value, RECORD.text)
  assert.equal(toolResult.output.value, (await env.herald.callTool('lorebase_get', { ref: RECORD.ref })).text)
  assert.match(result.text, /^The tool said: /)
})

test('a tool failure reaches the model as an error-text result, and the run goes on', async () => {
  const model = scriptedModel('lorebase_get', { ref: RECORD.missing })
  const result = await agentWith(model, toMastraTools(env.herald)).generate('Who?', { maxSteps: 5 })
  const [toolResult] = toolResults(model.doGenerateCalls[1].prompt)
  assert.equal(toolResult.output.type, 'error-text')
  assert.match(toolResult.output.value, /^\[not-found\] /)
  assert.match(toolResult.output.value, /\nnext: /)
  assert.match(result.text, /^The tool said: \[not-found\]/)
})

test('format json and the per-call key from the request context reach Herald', async () => {
  const anonymous = env.heraldWithoutKey()
  const refused = scriptedModel()
  await agentWith(refused, toMastraTools(anonymous)).generate('x', { maxSteps: 5 })
  assert.match(toolResults(refused.doGenerateCalls[1].prompt)[0].output.value, /^\[unauthorized\]/)

  const tools = toMastraTools(anonymous, { apiKey: (context) => context.requestContext.get('keeperKey') })
  const model = scriptedModel('lorebase_get', { ref: RECORD.ref, format: 'json' })
  const requestContext = new RequestContext([['keeperKey', env.readerKey]])
  await agentWith(model, tools).generate('x', { maxSteps: 5, requestContext })
  assert.equal(JSON.parse(toolResults(model.doGenerateCalls[1].prompt)[0].output.value).ref, RECORD.ref)
})

// lorebase-herald/ai: Herald's tools in the Vercel AI SDK's own generate loop
// (generateText), with the SDK's mock model scripted turn by turn, against the
// sandbox Keeper.

import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'

import { generateText, isStepCount } from 'ai'
import { RECORD, adapterSandbox, packageRequire } from './harness.js'
import { scriptedLanguageModel as scriptedModel, toolResults } from './scripted-language-model.js'

const { toAiSdkTools } = await import('lorebase-herald/ai')

let env
before(async () => {
  env = await adapterSandbox()
})
after(() => env?.stop())

test('the tools are Herald\'s definitions, with the annotations as metadata (ES module and CommonJS entries)', () => {
  for (const make of [toAiSdkTools, packageRequire('lorebase-herald/ai').toAiSdkTools]) {
    const tools = make(env.herald)
    const definitions = env.herald.listTools()
    assert.deepEqual(Object.keys(tools), definitions.map((d) => d.name))
    for (const definition of definitions) {
      const tool = tools[definition.name]
      assert.equal(tool.type, 'dynamic')
      assert.equal(tool.description, definition.description)
      const { $schema, ...parameters } = definition.inputSchema
      assert.deepEqual(tool.inputSchema.jsonSchema, parameters)
      assert.deepEqual(tool.metadata, { title: definition.title, annotations: definition.annotations })
    }
    assert.equal(tools.lorebase_get.metadata.annotations.readOnlyHint, true)
    assert.equal(tools.lorebase_execute.metadata.annotations.readOnlyHint, false)
  }
})

test('generateText: the model calls lorebase_get, its next turn reads the Record', async () => {
  const model = scriptedModel()
  const { text, steps } = await generateText({
    model,
    tools: toAiSdkTools(env.herald),
    prompt: 'Who is S-1001?',
    stopWhen: isStepCount(5),
  })
  assert.equal(model.doGenerateCalls.length, 2)
  const [result] = toolResults(model.doGenerateCalls[1].prompt)
  assert.equal(result.toolName, 'lorebase_get')
  assert.equal(result.output.type, 'text')
  assert.match(result.output.value, RECORD.text)
  assert.equal(result.output.value, (await env.herald.callTool('lorebase_get', { ref: RECORD.ref })).text)
  assert.match(text, /^The tool said: /)
  // The app sees Herald's whole result.
  const [toolResult] = steps[0].toolResults
  assert.equal(toolResult.output.isError, false)
})

test('a tool failure reaches the model as an error-text result, and the run goes on', async () => {
  const model = scriptedModel('lorebase_get', { ref: RECORD.missing })
  const { text } = await generateText({ model, tools: toAiSdkTools(env.herald), prompt: 'Who?', stopWhen: isStepCount(5) })
  const [result] = toolResults(model.doGenerateCalls[1].prompt)
  assert.equal(result.output.type, 'error-text')
  assert.match(result.output.value, /^\[not-found\] /)
  assert.match(result.output.value, /\nnext: /)
  assert.match(text, /^The tool said: \[not-found\]/)
})

test('format json and the per-call key reach Herald', async () => {
  const anonymous = env.heraldWithoutKey()
  const refused = scriptedModel()
  await generateText({ model: refused, tools: toAiSdkTools(anonymous), prompt: 'x', stopWhen: isStepCount(5) })
  assert.match(toolResults(refused.doGenerateCalls[1].prompt)[0].output.value, /^\[unauthorized\]/)

  const seen = []
  const tools = toAiSdkTools(anonymous, {
    apiKey: (options) => {
      seen.push(options.toolCallId)
      return env.readerKey
    },
  })
  const model = scriptedModel('lorebase_get', { ref: RECORD.ref, format: 'json' })
  const { steps } = await generateText({ model, tools, prompt: 'x', stopWhen: isStepCount(5) })
  assert.deepEqual(seen, ['call_1'])
  const sent = toolResults(model.doGenerateCalls[1].prompt)[0].output.value
  assert.equal(JSON.parse(sent).ref, RECORD.ref)
  assert.deepEqual(steps[0].toolResults[0].output.structured, JSON.parse(sent))
})

// The README's Node in-process examples run as written, one per framework,
// each with that framework's scripted model as `model` and the sandbox Keeper
// in the environment (`new Herald()` reads LOREBASE_URL, LOREBASE_API_KEY).

import assert from 'node:assert/strict'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { pathToFileURL } from 'node:url'

import { fakeModel } from '@langchain/core/testing'
import { AIMessage, ToolMessage } from '@langchain/core/messages'
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from '@openai/agents/testing'
import { setTracingDisabled } from '@openai/agents'

import { RECORD, adapterSandbox } from './harness.js'
import { declaredNames, readmeExamples } from './readme-examples.js'
import { scriptedLanguageModel, toolResults } from './scripted-language-model.js'

setTracingDisabled(true)

const examples = readmeExamples()
let env
before(async () => {
  env = await adapterSandbox()
  process.env.LOREBASE_URL = env.url
  process.env.LOREBASE_API_KEY = env.readerKey
})
after(() => env?.stop())

/** Runs one README block as an ES module with `model` defined; resolves with the names it declares. */
async function runExample(name, model) {
  const code = examples[name]
  assert.ok(code, `README.md has no <!-- example: ${name} --> block`)
  const file = join(import.meta.dirname, `readme-${name.replace('/', '-')}.generated.mjs`)
  writeFileSync(file, `${code}\nexport { ${declaredNames(code).join(', ')} }\n`)
  globalThis.model = model
  try {
    return await import(pathToFileURL(file).href)
  } finally {
    delete globalThis.model
    rmSync(file, { force: true })
  }
}

const expected = async () => (await env.herald.callTool('lorebase_get', { ref: RECORD.ref })).text
const said = (text) => `The tool said: ${text.split('\n')[0]}`

test('README has one Node example per adapter', () => {
  assert.deepEqual(
    Object.keys(examples).filter((k) => k.startsWith('node/')).sort(),
    ['node/ai', 'node/langchain', 'node/mastra', 'node/openai-agents'],
  )
})

test('README node/ai: generateText with the tools', async () => {
  const model = scriptedLanguageModel()
  const { text } = await runExample('node/ai', model)
  assert.equal(toolResults(model.doGenerateCalls[1].prompt)[0].output.value, await expected())
  assert.equal(text, said(await expected()))
})

test('README node/openai-agents: run() with the tools', async () => {
  const model = new ScriptedModel([
    [functionCall('lorebase_get', { ref: RECORD.ref }, { callId: 'call_1' })],
    modelResponder(({ request }) => {
      const output = request.input.find((item) => item.type === 'function_call_result').output
      return [assistantMessage(said(typeof output === 'string' ? output : output.text))]
    }),
  ])
  const { finalOutput } = await runExample('node/openai-agents', model)
  model.assertComplete()
  assert.equal(finalOutput, said(await expected()))
})

test('README node/langchain: createAgent with the tools', async () => {
  const model = fakeModel()
    .respondWithTools([{ name: 'lorebase_get', args: { ref: RECORD.ref }, id: 'call_1' }])
    .respond((messages) => new AIMessage(said(String(messages.find((m) => ToolMessage.isInstance(m)).content))))
  const { messages } = await runExample('node/langchain', model)
  assert.equal(messages.find((m) => ToolMessage.isInstance(m)).content, await expected())
  assert.equal(messages.at(-1).content, said(await expected()))
})

test('README node/mastra: agent.generate with the tools', async () => {
  const model = scriptedLanguageModel()
  const { text } = await runExample('node/mastra', model)
  assert.equal(toolResults(model.doGenerateCalls[1].prompt)[0].output.value, await expected())
  assert.equal(text, said(await expected()))
})

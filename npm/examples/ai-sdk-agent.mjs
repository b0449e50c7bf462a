#!/usr/bin/env node
// An agent over Lorebase Herald's tools, in-process, with the Vercel AI SDK
// (`ai` 7, Node 22): generateText hands Herald's tools to the model, runs the
// tool calls against Keeper with the agent's own key, and gives the results back
// to the model. The model here is scripted (the AI SDK's mock model: no network,
// no API key): it asks for one Record, then answers from what the tool returned,
// errors included. Swap in a real one, e.g. `openai('gpt-5')` from @ai-sdk/openai.
//
//   npm install lorebase-herald ai
//   LOREBASE_URL=http://127.0.0.1:8080 LOREBASE_API_KEY=lbk_... LOREBASE_DOMAIN=supply \
//   node node_modules/lorebase-herald/examples/ai-sdk-agent.mjs Supplier/S-1001

import { generateText, isStepCount } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { Herald } from 'lorebase-herald'
import { toAiSdkTools } from 'lorebase-herald/ai'

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
}

/** A scripted model: turn 1 asks lorebase_get for `ref`; turn 2 answers from the tool's result. */
export function scriptedModel(ref) {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const result = prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).find((p) => p.type === 'tool-result')
      if (!result) {
        const call = { type: 'tool-call', toolCallId: 'call_1', toolName: 'lorebase_get', input: JSON.stringify({ ref }) }
        return { content: [call], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] }
      }
      const { type, value } = result.output
      const text = type === 'error-text' ? `Lorebase refused: ${value}` : `Here is ${ref}:\n${value}`
      return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }
    },
  })
}

const ref = process.argv[2] ?? 'Supplier/S-1001'
const herald = new Herald() // LOREBASE_URL, LOREBASE_API_KEY, LOREBASE_DOMAIN, ...
const { text, steps } = await generateText({
  model: scriptedModel(ref),
  tools: toAiSdkTools(herald),
  stopWhen: isStepCount(5),
  prompt: `What do you know about ${ref}?`,
})
for (const call of steps.flatMap((step) => step.toolCalls)) {
  process.stderr.write(`tool call: ${call.toolName} ${JSON.stringify(call.input)}\n`)
}
process.stdout.write(`${text}\n`)

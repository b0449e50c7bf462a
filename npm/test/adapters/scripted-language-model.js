// A scripted AI SDK language model (LanguageModelV4, from `ai/test`), for the
// AI SDK and Mastra tests: turn 1 calls a tool, turn 2 answers with the first
// line of the tool result it received.

import { MockLanguageModelV4 } from 'ai/test'

import { RECORD } from './harness.js'

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

/** The tool results the prompt of one model call carries. */
export function toolResults(prompt) {
  return prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content.filter((p) => p.type === 'tool-result'))
}

/** Turn 1 calls `toolName` with `input`; turn 2 answers `The tool said: <first line of the result>`. */
export function scriptedLanguageModel(toolName = 'lorebase_get', input = { ref: RECORD.ref }) {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const [result] = toolResults(prompt)
      if (!result) {
        return {
          content: [{ type: 'tool-call', toolCallId: 'call_1', toolName, input: JSON.stringify(input) }],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        }
      }
      return {
        content: [{ type: 'text', text: `The tool said: ${result.output.value.split('\n')[0]}` }],
        finishReason: { unified: 'stop', raw: undefined },
        usage,
        warnings: [],
      }
    },
  })
}

// How a TypeScript app uses the adapters: every call below must type-check
// against the package's typings and the frameworks' own types, and no adapter
// may return `any` tools (skipLibCheck hides a broken import in a .d.ts, which
// then reads as `any`: each `satisfies number` below must fail, and an `any`
// would satisfy it, leaving its @ts-expect-error unused, which is an error).

import { Herald, type ToolResult } from 'lorebase-herald'
import { toAiSdkTools } from 'lorebase-herald/ai'
import { toLangChainTools } from 'lorebase-herald/langchain'
import { toMastraTools } from 'lorebase-herald/mastra'
import { toOpenAIAgentsTools } from 'lorebase-herald/openai-agents'

import { Agent as MastraAgent } from '@mastra/core/agent'
import { Agent, type FunctionTool } from '@openai/agents'
import type { StructuredToolInterface } from '@langchain/core/tools'
import { generateText, isStepCount, type LanguageModel, type ToolSet } from 'ai'
import { createAgent } from 'langchain'

/** Fails to compile when `value` is `any` (then the `@ts-expect-error` below is unused). */
function notAny(value: unknown): void {
  void value
}

type MastraModel = ConstructorParameters<typeof MastraAgent>[0]['model']

export async function uses(model: LanguageModel, mastraModel: MastraModel): Promise<void> {
  const herald = new Herald({ domain: 'supply' })

  const aiTools: ToolSet = toAiSdkTools(herald, { apiKey: (options) => (options.toolCallId ? 'lbk_x' : undefined) })
  // @ts-expect-error a typed value is not a number
  notAny(toAiSdkTools(herald).lorebase_get satisfies number)
  const { steps } = await generateText({ model, tools: aiTools, stopWhen: isStepCount(5), prompt: 'Who is S-1001?' })
  void steps[0]?.toolResults[0]?.output

  const agentTools: Array<FunctionTool<unknown, any, string>> = toOpenAIAgentsTools(herald, { apiKey: 'lbk_x' })
  // @ts-expect-error a typed value is not a number
  notAny(toOpenAIAgentsTools(herald)[0] satisfies number)
  new Agent({ name: 'analyst', tools: agentTools })

  const lcTools: StructuredToolInterface[] = toLangChainTools(herald, {
    apiKey: (config) => config?.configurable?.keeperKey as string | undefined,
  })
  // @ts-expect-error a typed value is not a number
  notAny(toLangChainTools(herald)[0] satisfies number)
  createAgent({ model: 'openai:gpt-5', tools: lcTools })

  const mastraTools = toMastraTools(herald, { apiKey: async (context) => context.requestContext?.get('keeperKey') as string })
  // @ts-expect-error a typed value is not a number
  notAny(mastraTools.lorebase_get satisfies number)
  new MastraAgent({ id: 'a', name: 'a', instructions: 'x', model: mastraModel, tools: mastraTools })

  const result: ToolResult = await herald.callTool('lorebase_get', { ref: 'Supplier/S-1001' })
  // @ts-expect-error a typed value is not a number
  notAny(result satisfies number)
}

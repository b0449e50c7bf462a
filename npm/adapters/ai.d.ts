// lorebase-herald/ai: Herald's tools for the Vercel AI SDK (`ai` 7, an
// optional peer dependency).

import type { Tool, ToolExecutionOptions } from 'ai'

import type { Herald, ToolResult } from '../index'
import type { ApiKeyOption } from './tool-specs'

/** The options of {@link toAiSdkTools}. */
export interface AiSdkToolsOptions {
  /** The Keeper key of every call, or a function of the call's `ToolExecutionOptions` that returns it. */
  apiKey?: ApiKeyOption<ToolExecutionOptions<unknown>>
}

/**
 * Every tool of `herald` as an AI SDK dynamic tool, keyed by name: hand the
 * record to `generateText` / `streamText` as `tools`. Each tool has Herald's
 * description and input JSON Schema, `metadata: { title, annotations }`
 * (`readOnlyHint`, ...), and resolves with Herald's `ToolResult`; the model
 * reads its text, tool failures as `error-text` (`[code] message ... next: ...`).
 *
 * ```js
 * const { text } = await generateText({ model, tools: toAiSdkTools(new Herald()), stopWhen: isStepCount(5), prompt })
 * ```
 */
export declare function toAiSdkTools(herald: Herald, options?: AiSdkToolsOptions): Record<string, Tool<unknown, ToolResult>>

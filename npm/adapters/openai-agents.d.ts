// lorebase-herald/openai-agents: Herald's tools for the OpenAI Agents SDK for
// JavaScript (`@openai/agents`, an optional peer dependency).

import type { FunctionTool, RunContext } from '@openai/agents'

import type { Herald } from '../index'
import type { ApiKeyOption } from './tool-specs'

/** The options of {@link toOpenAIAgentsTools}. */
export interface OpenAIAgentsToolsOptions {
  /** The Keeper key of every call, or a function of the run's `RunContext` that returns it. */
  apiKey?: ApiKeyOption<RunContext<unknown> | undefined>
}

/**
 * Every tool of `herald` as an Agents SDK function tool (non-strict, Herald's
 * JSON Schema): `new Agent({ tools: toOpenAIAgentsTools(herald) })`. A tool
 * answers with the text the model reads; a tool failure is that text
 * (`[code] message ... next: ...`), never an exception.
 */
export declare function toOpenAIAgentsTools(herald: Herald, options?: OpenAIAgentsToolsOptions): Array<FunctionTool<unknown, any, string>>

// lorebase-herald/langchain: Herald's tools for LangChain.js (`@langchain/core`
// 1, an optional peer dependency).

import type { DynamicStructuredTool, ToolRunnableConfig } from '@langchain/core/tools'

import type { Herald } from '../index'
import type { ApiKeyOption } from './tool-specs'

/** The options of {@link toLangChainTools}. */
export interface LangChainToolsOptions {
  /** The Keeper key of every call, or a function of the call's `ToolRunnableConfig` that returns it. */
  apiKey?: ApiKeyOption<ToolRunnableConfig | undefined>
}

/**
 * Every tool of `herald` as a LangChain structured tool
 * (`responseFormat: 'content_and_artifact'`: the content is the text the model
 * reads, the artifact the structured answer), for `createAgent`, LangGraph or
 * `model.bindTools`. `metadata` holds `{ title, annotations }`. A tool failure
 * becomes an error `ToolMessage` (`status: 'error'`) with the text and its
 * `next:` line, never an exception.
 */
export declare function toLangChainTools(herald: Herald, options?: LangChainToolsOptions): DynamicStructuredTool[]

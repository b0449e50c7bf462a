// The shape of lorebase-herald/langchain, over @langchain/core's types (which
// differ per module system: langchain.d.ts and langchain.d.mts fill them in).

import type { Herald } from '../index'
import type { ApiKeyOption } from './tool-specs'

/** The options of `toLangChainTools`. */
export interface LangChainToolsOptions<Config = unknown> {
  /** The Keeper key of every call, or a function of the call's `ToolRunnableConfig` that returns it. */
  apiKey?: ApiKeyOption<Config | undefined>
}

/**
 * Every tool of `herald` as a LangChain structured tool
 * (`responseFormat: 'content_and_artifact'`: the content is the text the model
 * reads, the artifact the structured answer), for `createAgent`, LangGraph or
 * `model.bindTools`. `metadata` holds `{ title, annotations }`. A tool failure
 * becomes an error `ToolMessage` (`status: 'error'`) with the text and its
 * `next:` line, never an exception.
 */
export type ToLangChainTools<Tool, Config> = (herald: Herald, options?: LangChainToolsOptions<Config>) => Tool[]

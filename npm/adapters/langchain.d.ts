// lorebase-herald/langchain for CommonJS: Herald's tools for LangChain.js
// (`@langchain/core` 1, an optional peer dependency). @langchain/core has
// separate typings per module system; langchain.d.mts is the ES module twin.

import type { DynamicStructuredTool, ToolRunnableConfig } from '@langchain/core/tools'

import type { ToLangChainTools } from './langchain-types'

export type { LangChainToolsOptions } from './langchain-types'

/** {@inheritDoc ToLangChainTools} */
export declare const toLangChainTools: ToLangChainTools<DynamicStructuredTool, ToolRunnableConfig>

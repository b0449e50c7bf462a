// lorebase-herald/langchain for ES modules: Herald's tools for LangChain.js
// (`@langchain/core` 1, an optional peer dependency). @langchain/core has
// separate typings per module system; langchain.d.ts is the CommonJS twin.

import type { DynamicStructuredTool, ToolRunnableConfig } from '@langchain/core/tools'

import type { ToLangChainTools } from './langchain-types.js'

export type { LangChainToolsOptions } from './langchain-types.js'

/** {@inheritDoc ToLangChainTools} */
export declare const toLangChainTools: ToLangChainTools<DynamicStructuredTool, ToolRunnableConfig>

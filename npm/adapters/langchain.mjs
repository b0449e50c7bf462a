// lorebase-herald/langchain for ES modules: the same tools as langchain.js,
// built from @langchain/core's own ES module build (one copy of @langchain/core
// in an ESM app: its classes and instanceof checks stay one). Types: langchain.d.ts.

import { ToolMessage } from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'

import cjs from './langchain.js'

/** See langchain.d.ts. */
export function toLangChainTools(herald, options) {
  return cjs.buildLangChainTools({ tool, ToolMessage }, herald, options)
}

// lorebase-herald/mastra for ES modules: the same tools as mastra.js, built
// from the framework's own ES module build (one copy of the framework in an
// ESM app). Types: mastra.d.ts.

import { createTool } from '@mastra/core/tools'

import cjs from './mastra.js'

/** See mastra.d.ts. */
export function toMastraTools(herald, options) {
  return cjs.buildMastraTools({ createTool }, herald, options)
}

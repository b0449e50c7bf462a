// lorebase-herald/ai for ES modules: the same tools as ai.js, built
// from the framework's own ES module build (one copy of the framework in an
// ESM app). Types: ai.d.ts.

import { dynamicTool, jsonSchema } from 'ai'

import cjs from './ai.js'

/** See ai.d.ts. */
export function toAiSdkTools(herald, options) {
  return cjs.buildAiSdkTools({ dynamicTool, jsonSchema }, herald, options)
}

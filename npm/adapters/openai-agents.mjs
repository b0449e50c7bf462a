// lorebase-herald/openai-agents for ES modules: the same tools as openai-agents.js, built
// from the framework's own ES module build (one copy of the framework in an
// ESM app). Types: openai-agents.d.ts.

import { tool } from '@openai/agents'

import cjs from './openai-agents.js'

/** See openai-agents.d.ts. */
export function toOpenAIAgentsTools(herald, options) {
  return cjs.buildOpenAIAgentsTools({ tool }, herald, options)
}

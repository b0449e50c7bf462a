'use strict'
// Herald's tools for the OpenAI Agents SDK for JavaScript (`@openai/agents`,
// an optional peer dependency): function tools for `new Agent({ tools })`.
// Types: openai-agents.d.ts.

const { keyFor, requirePeer, toolSpecs } = require('./tool-specs.js')

/**
 * Every tool of `herald` as an Agents SDK function tool (non-strict JSON
 * Schema, as Herald checks the arguments itself). A tool answers with the
 * text the model reads; tool failures are that text (`[code] message ...
 * next: ...`), never thrown.
 */
function buildOpenAIAgentsTools({ tool }, herald, options = {}) {
  return toolSpecs(herald).map((spec) =>
    tool({
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters,
      strict: false,
      execute: async (input, runContext) => (await spec.call(input, await keyFor(options.apiKey, runContext))).text,
    }),
  )
}

/** toOpenAIAgentsTools for CommonJS: loads the framework with require(). */
function toOpenAIAgentsTools(herald, options) {
  return buildOpenAIAgentsTools(requirePeer('@openai/agents'), herald, options)
}

module.exports = { toOpenAIAgentsTools, buildOpenAIAgentsTools }

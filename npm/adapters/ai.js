'use strict'
// Herald's tools for the Vercel AI SDK (`ai`, an optional peer dependency):
// a ToolSet for generateText / streamText. Types: ai.d.ts.

const { keyFor, requirePeer, toolSpecs } = require('./tool-specs.js')

/** What the model reads of a result: its text, marked as an error when it is one. */
function modelOutput({ output }) {
  return { type: output.isError ? 'error-text' : 'text', value: output.text }
}

/**
 * Every tool of `herald` as an AI SDK dynamic tool, keyed by name. A tool
 * resolves with Herald's `ToolResult`; the model reads its text (tool
 * failures as `error-text`, never thrown).
 */
function buildAiSdkTools({ dynamicTool, jsonSchema }, herald, options = {}) {
  const tools = {}
  for (const spec of toolSpecs(herald)) {
    tools[spec.name] = dynamicTool({
      description: spec.description,
      inputSchema: jsonSchema(spec.parameters),
      metadata: { title: spec.title, annotations: { ...spec.annotations } },
      execute: async (input, callOptions) => spec.call(input, await keyFor(options.apiKey, callOptions)),
      toModelOutput: modelOutput,
    })
  }
  return tools
}

/** toAiSdkTools for CommonJS: loads the framework with require(). */
function toAiSdkTools(herald, options) {
  return buildAiSdkTools(requirePeer('ai'), herald, options)
}

module.exports = { toAiSdkTools, buildAiSdkTools }

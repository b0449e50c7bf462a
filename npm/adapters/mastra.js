'use strict'
// Herald's tools for Mastra (`@mastra/core`, an optional peer dependency):
// tools for `new Agent({ tools })`, with the MCP annotations Mastra keeps.
// Types: mastra.d.ts.

const { keyFor, requirePeer, toolSpecs } = require('./tool-specs.js')

/**
 * Every tool of `herald` as a Mastra tool, keyed by name (Mastra's tools
 * record). A tool resolves with Herald's `ToolResult`; the model reads its
 * text (tool failures as `error-text`, never thrown).
 */
function buildMastraTools({ createTool }, herald, options = {}) {
  const tools = {}
  for (const spec of toolSpecs(herald)) {
    tools[spec.name] = createTool({
      id: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: spec.parameters,
      mcp: { annotations: { title: spec.title, ...spec.annotations } },
      execute: async (input, context) => spec.call(input, await keyFor(options.apiKey, context)),
      toModelOutput: (result) => ({ type: result.isError ? 'error-text' : 'text', value: result.text }),
    })
  }
  return tools
}

/** toMastraTools for CommonJS: loads the framework with require(). */
function toMastraTools(herald, options) {
  return buildMastraTools(requirePeer('@mastra/core/tools', '@mastra/core'), herald, options)
}

module.exports = { toMastraTools, buildMastraTools }

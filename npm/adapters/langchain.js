'use strict'
// Herald's tools for LangChain.js (`@langchain/core`, an optional peer
// dependency): structured tools for `createAgent`, LangGraph or
// `model.bindTools`. Types: langchain.d.ts.

const { keyFor, requirePeer, toolSpecs } = require('./tool-specs.js')

/**
 * Every tool of `herald` as a LangChain structured tool with
 * `responseFormat: 'content_and_artifact'`: the content is the text the model
 * reads, the artifact the structured answer (`format: "json"`). A tool failure
 * is an error `ToolMessage` (`status: 'error'`) carrying the text with its
 * `next:` line, never thrown.
 */
function buildLangChainTools({ tool, ToolMessage }, herald, options = {}) {
  return toolSpecs(herald).map((spec) =>
    tool(
      async (input, config) => {
        const result = await spec.call(input, await keyFor(options.apiKey, config))
        const toolCallId = config?.toolCall?.id
        if (result.isError && toolCallId) {
          const message = new ToolMessage({ content: result.text, status: 'error', tool_call_id: toolCallId, name: spec.name })
          return [message, undefined]
        }
        return [result.text, result.structured]
      },
      {
        name: spec.name,
        description: spec.description,
        schema: spec.parameters,
        responseFormat: 'content_and_artifact',
        metadata: { title: spec.title, annotations: { ...spec.annotations } },
      },
    ),
  )
}

/** toLangChainTools for CommonJS: loads @langchain/core with require(). */
function toLangChainTools(herald, options) {
  const { tool } = requirePeer('@langchain/core/tools', '@langchain/core')
  const { ToolMessage } = requirePeer('@langchain/core/messages', '@langchain/core')
  return buildLangChainTools({ tool, ToolMessage }, herald, options)
}

module.exports = { toLangChainTools, buildLangChainTools }

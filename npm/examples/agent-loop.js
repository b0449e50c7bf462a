#!/usr/bin/env node
'use strict'
// A Node agent loop over Lorebase Herald's tools, in-process, with any
// OpenAI-compatible chat-completions endpoint (OpenAI, a vLLM or llama.cpp
// server, Ollama, a gateway): the model picks tools, Herald runs them against
// Keeper with the agent's own key, the answers go back to the model.
//
//   npm install lorebase-herald
//   LOREBASE_URL=http://127.0.0.1:8080 LOREBASE_API_KEY=lbk_... LOREBASE_DOMAIN=supply \
//   OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-... OPENAI_MODEL=gpt-4.1-mini \
//   node node_modules/lorebase-herald/examples/agent-loop.js "Which suppliers in Poland are high risk?"
//
// In your own code, `require('lorebase-herald')` instead of `require('..')`.

const { Herald } = require('..')

const SYSTEM = [
  'You answer questions about a Lorebase Domain with the lorebase_* tools.',
  'Start with lorebase_context (or lorebase_resolve for words), then read with the other tools.',
  'Read coverage: lines before answering "none". Cite refs (Kind/key) you used.',
].join(' ')

/** Herald's tool definitions as OpenAI function-calling tools. */
function toOpenAITools(definitions) {
  return definitions.map((tool) => {
    const { $schema, ...parameters } = tool.inputSchema
    return {
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters },
    }
  })
}

/**
 * Runs the tool calls of one assistant message and returns the `tool` messages
 * to send back. Tool failures are answers for the model to read; so are the
 * model's own mistakes (an unknown tool, arguments that are not JSON), so it can
 * correct itself.
 */
async function runToolCalls(herald, toolCalls, { apiKey } = {}) {
  return Promise.all(
    toolCalls.map(async (call) => {
      let content
      try {
        const result = await herald.callTool(call.function.name, call.function.arguments, apiKey ? { apiKey } : undefined)
        content = result.text
      } catch (error) {
        if (!error.code) throw error
        content = `[${error.code}] ${error.message}`
      }
      return { role: 'tool', tool_call_id: call.id, content }
    }),
  )
}

/** One chat-completions request. */
async function chat({ baseUrl, apiKey, model, messages, tools }) {
  const response = await fetch(`${baseUrl.replace(/\/$/, '')}/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    },
    body: JSON.stringify({ model, messages, tools, tool_choice: 'auto' }),
  })
  if (!response.ok) {
    throw new Error(`the model endpoint answered ${response.status}: ${(await response.text()).slice(0, 300)}`)
  }
  const body = await response.json()
  return body.choices[0].message
}

/**
 * Asks `question` until the model answers without tool calls (or `maxTurns`
 * model calls were made). Returns `{ answer, messages }`.
 */
async function runAgent({ herald, question, baseUrl, apiKey, model, maxTurns = 8, system = SYSTEM, keeperKey }) {
  const tools = toOpenAITools(herald.listTools())
  const messages = [
    { role: 'system', content: system },
    { role: 'user', content: question },
  ]
  for (let turn = 0; turn < maxTurns; turn++) {
    const message = await chat({ baseUrl, apiKey, model, messages, tools })
    messages.push(message)
    if (!message.tool_calls?.length) return { answer: message.content ?? '', messages }
    messages.push(...(await runToolCalls(herald, message.tool_calls, { apiKey: keeperKey })))
  }
  return { answer: `(stopped after ${maxTurns} model calls)`, messages }
}

async function main() {
  const question = process.argv.slice(2).join(' ') || 'What do you know about Supplier/S-1001?'
  const herald = new Herald() // LOREBASE_URL, LOREBASE_API_KEY, LOREBASE_DOMAIN, ...
  const { answer } = await runAgent({
    herald,
    question,
    baseUrl: process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
    apiKey: process.env.OPENAI_API_KEY,
    model: process.env.OPENAI_MODEL || 'gpt-4.1-mini',
  })
  process.stdout.write(`${answer}\n`)
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`agent-loop: ${error.message}\n`)
    process.exit(1)
  })
}

module.exports = { toOpenAITools, runToolCalls, runAgent }

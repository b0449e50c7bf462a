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

import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
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

const typeDefDir = mkdtempSync(join(tmpdir(), 'herald-typedef-'))
try {
  const args = ['build', '-p', 'lorebase-herald-node', '--lib', '--message-format', 'json-render-diagnostics']
  if (release) args.push('--release')
  const build = spawnSync('cargo', args, {
    cwd: root,
    env: {
      ...process.env,
      NAPI_TYPE_DEF_TMP_FOLDER: typeDefDir,
      // napi-build reruns (and napi-derive writes the type defs) when this changes.
      NAPI_FORCE_BUILD_LOREBASE_HERALD_NODE: String(Date.now()),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 256 * 1024 * 1024,
  })
  if (build.status !== 0) {
    console.error(`cargo build failed (exit ${build.status})`)
    process.exit(1)
  }
  const artifact = build.stdout
    .toString()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((m) => m.reason === 'compiler-artifact' && m.target?.name === 'lorebase_herald_node')
    .flatMap((m) => m.filenames)
    .find((f) => /\.(so|dylib|dll)$/.test(f))
  if (!artifact) {
    console.error('cargo build produced no addon library')
    process.exit(1)
  }
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
} finally {
  rmSync(typeDefDir, { recursive: true, force: true })
}

#!/usr/bin/env node
// Startup benchmark (not a test): the time from spawning `node bin/lorebase-herald`
// (stdio) to the answer of its first tools/list, over N runs; the native
// binary alongside for comparison. Keeper is not contacted for tools/list.
//
//   node npm/bench/startup.mjs [--runs 20] [--native target/release/lorebase-herald]
//
// The addon measured is the one npm/index.js loads (npm/lorebase-herald.<platform>.node,
// or LOREBASE_HERALD_ADDON); build it with `node npm/scripts/build-addon.mjs --release`
// for numbers worth recording in docs/benchmarks.md.

import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const BIN = resolve(here, '..', 'bin', 'lorebase-herald')

function option(name, fallback) {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : fallback
}

const runs = Number(option('--runs', '20'))
const native = option('--native', join(here, '..', '..', 'target', 'release', 'lorebase-herald'))

const env = {}
for (const [k, v] of Object.entries(process.env)) {
  if (!k.toUpperCase().startsWith('LOREBASE_') && k !== 'RUST_LOG') env[k] = v
}
if (process.env.LOREBASE_HERALD_ADDON) env.LOREBASE_HERALD_ADDON = process.env.LOREBASE_HERALD_ADDON
env.LOREBASE_URL = 'http://127.0.0.1:9'
env.LOREBASE_DOMAIN = 'supply'

const send = (child, message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)

/** Milliseconds from spawn to the first tools/list answer. */
function once(command, args) {
  return new Promise((resolvePromise, reject) => {
    const start = performance.now()
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'ignore'] })
    const guard = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error('no tools/list answer in 30 s'))
    }, 30_000)
    child.on('error', reject)
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line)
      if (message.id === 1) {
        send(child, { method: 'notifications/initialized' })
        send(child, { id: 2, method: 'tools/list' })
      } else if (message.id === 2) {
        const elapsed = performance.now() - start
        clearTimeout(guard)
        if (!message.result?.tools?.length) reject(new Error(`bad tools/list answer: ${line.slice(0, 200)}`))
        child.on('exit', () => resolvePromise(elapsed))
        child.stdin.end()
      }
    })
    send(child, {
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'startup-bench', version: '0' } },
    })
  })
}

function summary(name, samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  const f = (ms) => ms.toFixed(0)
  return `| ${name} | ${sorted.length} | ${f(at(0.5))} | ${f(at(0.9))} | ${f(sorted[0])} | ${f(sorted[sorted.length - 1])} |`
}

const targets = [[`node bin/lorebase-herald (addon)`, process.execPath, [BIN]]]
if (existsSync(native)) targets.push([`native binary (${relative(process.cwd(), native)})`, native, []])

console.log(`node ${process.version}, ${process.platform}-${process.arch}, ${runs} runs each (1 warm-up run not counted)`)
console.log('')
console.log('| command | runs | median ms | p90 ms | min ms | max ms |')
console.log('| --- | --- | --- | --- | --- | --- |')
for (const [name, command, args] of targets) {
  await once(command, args) // warm-up: page cache
  const samples = []
  for (let i = 0; i < runs; i++) samples.push(await once(command, args))
  console.log(summary(name, samples))
}

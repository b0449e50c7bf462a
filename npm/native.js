'use strict'
// Finds and loads the native addon of lorebase-herald: the platform package npm
// installed through the optional dependencies (lorebase-herald-<platform>), or a
// local build next to this file. A missing or unloadable addon is one Error
// whose message is one line saying what to install.

const fs = require('node:fs')
const path = require('node:path')

const { version } = require('./package.json')
const BINARY = 'lorebase-herald'
const SUPPORTED = [
  'linux-x64-gnu',
  'linux-arm64-gnu',
  'linux-x64-musl',
  'linux-arm64-musl',
  'darwin-x64',
  'darwin-arm64',
  'win32-x64-msvc',
]

function isMusl() {
  try {
    if (fs.readFileSync('/usr/bin/ldd', 'latin1').includes('musl')) return true
  } catch {
    // no ldd: ask the process report
  }
  try {
    const { header } = process.report.getReport()
    return !header.glibcVersionRuntime
  } catch {
    return false
  }
}

/** The platform key of this machine, as the platform packages are named. */
function platformKey() {
  const base = `${process.platform}-${process.arch}`
  if (process.platform === 'linux') return `${base}-${isMusl() ? 'musl' : 'gnu'}`
  if (process.platform === 'win32') return `${base}-msvc`
  return base
}

function addonError(code, message, cause) {
  const error = new Error(message, cause ? { cause } : undefined)
  error.code = code
  return error
}

function firstLine(text) {
  return String(text).split('\n')[0].trim()
}

/** Loads the addon; throws an Error with a one-line message and a `code`. */
function load() {
  const override = process.env.LOREBASE_HERALD_ADDON
  if (override) {
    try {
      return require(path.resolve(override))
    } catch (error) {
      throw addonError(
        'HERALD_ADDON_UNLOADABLE',
        `lorebase-herald: cannot load the addon named by LOREBASE_HERALD_ADDON (${override}): ${firstLine(error.message)}`,
        error,
      )
    }
  }
  const key = platformKey()
  const pkg = `${BINARY}-${key}`
  const local = path.join(__dirname, `${BINARY}.${key}.node`)
  if (fs.existsSync(local)) return require(local)
  if (!SUPPORTED.includes(key)) {
    throw addonError(
      'HERALD_PLATFORM_UNSUPPORTED',
      `lorebase-herald: no native addon is published for ${key} (published: ${SUPPORTED.join(', ')}); run the lorebase-herald binary built from source instead`,
    )
  }
  let manifest
  try {
    manifest = require(`${pkg}/package.json`)
  } catch (error) {
    throw addonError(
      'HERALD_ADDON_MISSING',
      `lorebase-herald: the native addon for ${key} is missing: install ${pkg}@${version} (npm install ${pkg}@${version}), or reinstall lorebase-herald with optional dependencies enabled`,
      error,
    )
  }
  if (manifest.version !== version) {
    throw addonError(
      'HERALD_ADDON_VERSION',
      `lorebase-herald: ${pkg} is version ${manifest.version} but lorebase-herald is ${version}: install ${pkg}@${version}`,
    )
  }
  try {
    return require(pkg)
  } catch (error) {
    throw addonError(
      'HERALD_ADDON_UNLOADABLE',
      `lorebase-herald: cannot load ${pkg}@${version}: ${firstLine(error.message)}`,
      error,
    )
  }
}

module.exports = { load, platformKey, SUPPORTED }

'use strict'
// lorebase-herald: Lorebase Herald's tools in-process for Node agents (Herald),
// and the lorebase-herald command line (runCli). Types: index.d.ts.

const { Herald, runCli } = require('./native.js').load()

module.exports = { Herald, runCli }

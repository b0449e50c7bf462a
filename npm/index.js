'use strict'
// lorebase-herald: Lorebase Herald's tools in-process for Node agents (Herald),
// the lorebase-herald command line (runCli), and the options that stand for a
// settings key (settingOptions). Types: index.d.ts.

const { Herald, runCli, settingOptions } = require('./native.js').load()

module.exports = { Herald, runCli, settingOptions }

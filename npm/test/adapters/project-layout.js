// The layout of a user's project, made of two links (ignored by git and by
// `npm pack`), for the adapter tests and the typings check (tsc):
//   npm/test/adapters/node_modules/lorebase-herald -> npm   (the package, as if installed)
//   npm/node_modules -> npm/test/adapters/node_modules       (the frameworks, pinned in
//                                                            npm/test/adapters/package.json)
// so the adapters (npm/adapters/*.js, *.mjs) find the frameworks above them as
// in a user's node_modules. `npm ci` removes the first link: run this module
// (node project-layout.js) after it; importing it makes them too.

import { existsSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'

import { NPM_DIR } from '../helpers.js'

for (const [target, link] of [
  [join('test', 'adapters', 'node_modules'), join(NPM_DIR, 'node_modules')],
  [join('..', '..', '..'), join(NPM_DIR, 'test', 'adapters', 'node_modules', 'lorebase-herald')],
]) {
  if (!existsSync(link)) symlinkSync(target, link, 'dir')
}

// The README's in-process examples, as written: each fenced block that follows
// an `<!-- example: <language>/<framework> -->` line of the repository's
// README.md. Shared by the tests that run them (Node here, Python in
// python/tests/adapters/scripted.py, which reads the same markers).

import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { ROOT } from '../helpers.js'

/** `{ '<language>/<framework>': code }` for every marked block of README.md. */
export function readmeExamples() {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const examples = {}
  for (const match of readme.matchAll(/<!-- example: (\S+) -->\n```\w*\n([\s\S]*?)\n```/g)) {
    examples[match[1]] = match[2]
  }
  return examples
}

/**
 * The names a block declares at its top level (`const x =`, `const { a, b } =`),
 * so the test can export and check them.
 */
export function declaredNames(code) {
  const names = []
  for (const [, declared] of code.matchAll(/^const\s+(\{[^}]*\}|\w+)\s*=/gm)) {
    names.push(...declared.replace(/[{}]/g, '').split(',').map((n) => n.split(':').pop().trim()).filter(Boolean))
  }
  return names
}

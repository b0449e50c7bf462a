// What the tool list costs a model, counted with js-tiktoken's o200k_base
// ranks (offline, from npm) over what the TypeScript SDK client lists over
// stdio: each tool's name, description and input schema, which is what hosts
// send their model (the title and annotations stay with the host). The 14
// Lorebase tools and the two KB tools stay within the budget, and
// `lorebase-herald tools --tokens` (tiktoken-rs in the binary) counts the same.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';

import { TOOL_NAMES, binaries, cleanEnv, startSandbox, stdioClient } from './helpers.js';

const BUDGET = 4000;
const enc = new Tiktoken(o200k);
const count = (tool) => enc.encode(JSON.stringify({
  name: tool.name, description: tool.description, input_schema: tool.inputSchema,
})).length;

let sandbox;
let kb;

before(async () => {
  sandbox = await startSandbox('none');
  kb = mkdtempSync(join(tmpdir(), 'herald-kb-'));
});

after(async () => {
  await sandbox?.stop();
  rmSync(kb, { recursive: true, force: true });
});

test('the tool list a model is sent stays within its budget, as the binary counts it', async () => {
  const env = { LOREBASE__HERALD__KB__DIR: kb };
  const client = await stdioClient(sandbox.url, { env });
  let tools;
  try {
    ({ tools } = await client.listTools());
  } finally {
    await client.close();
  }
  assert.deepEqual(tools.map((t) => t.name), [...TOOL_NAMES, 'kb_search', 'kb_get']);
  const perTool = Object.fromEntries(tools.map((t) => [t.name, count(t)]));
  const total = Object.values(perTool).reduce((a, b) => a + b, 0);
  assert.ok(total <= BUDGET, `${total} tokens, over ${BUDGET}: ${JSON.stringify(perTool)}`);

  const printed = spawnSync(binaries().herald, ['tools', '--tokens'], {
    env: cleanEnv({ LOREBASE_URL: sandbox.url, LOREBASE_DOMAIN: 'supply', ...env }),
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(printed.status, 0, printed.stderr);
  const rows = Object.fromEntries(printed.stdout.split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((cells) => cells.length >= 5 && /^\d+$/.test(cells[1]))
    .map((cells) => [cells[0], Number(cells[1])]));
  for (const [name, tokens] of Object.entries(perTool)) {
    assert.equal(rows[name], tokens, `${name}: the binary counts ${rows[name]}, js-tiktoken ${tokens}`);
  }
  assert.equal(rows.total, total);
});

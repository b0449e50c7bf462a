// Security over real HTTP with the TypeScript SDK: per-caller bearer keys,
// a missing bearer, anonymous mode, and DNS-rebinding protection.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { httpClient, startHttpHerald, startSandbox, textOf } from './helpers.js';

const call = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'lorebase_get', arguments: { ref: 'Supplier/S-1001' } },
};

describe('Streamable HTTP security', () => {
  let open;
  let secured;

  before(async () => {
    open = await startSandbox('none');
    secured = await startSandbox('api_key');
  });

  after(async () => {
    await open?.stop();
    await secured?.stop();
  });

  test('a missing bearer is an [unauthorized] tool error', async () => {
    const herald = await startHttpHerald(secured.url, { env: { LOREBASE_API_KEY: secured.keys.usr_admin } });
    try {
      const client = await httpClient(herald.url);
      const r = await client.callTool({ name: 'lorebase_get', arguments: { ref: 'Supplier/S-1001' } });
      assert.equal(r.isError, true);
      assert.ok(textOf(r).startsWith('[unauthorized]'), textOf(r));
      await client.close();
    } finally {
      await herald.stop();
    }
  });

  test('two callers with different keys see their own grants', async () => {
    const herald = await startHttpHerald(secured.url);
    try {
      const reader = await httpClient(herald.url, { Authorization: `Bearer ${secured.keys.agt_reader}` });
      const steward = await httpClient(herald.url, { Authorization: `Bearer ${secured.keys.usr_steward}` });
      const args = { ref: 'Supplier/S-1002', format: 'json' };
      const [r, s] = await Promise.all([
        reader.callTool({ name: 'lorebase_get', arguments: args }),
        steward.callTool({ name: 'lorebase_get', arguments: args }),
      ]);
      const iban = 'PL61 1090 1014 0000 0712 1981 2874';
      assert.ok(JSON.stringify(s.structuredContent).includes(iban));
      assert.ok(!JSON.stringify(r.structuredContent).includes(iban));
      await reader.close();
      await steward.close();
    } finally {
      await herald.stop();
    }
  });

  test('anonymous mode: an open Keeper answers, a secured one refuses', async () => {
    const env = { LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS: 'true' };
    const toOpen = await startHttpHerald(open.url, { env });
    const toSecured = await startHttpHerald(secured.url, { env });
    try {
      const a = await httpClient(toOpen.url);
      const ok = await a.callTool({ name: 'lorebase_get', arguments: { ref: 'Supplier/S-1001' } });
      assert.equal(ok.isError, false, textOf(ok));
      const b = await httpClient(toSecured.url);
      const refused = await b.callTool({ name: 'lorebase_get', arguments: { ref: 'Supplier/S-1001' } });
      assert.equal(refused.isError, true);
      assert.ok(textOf(refused).startsWith('[unauthorized]'), textOf(refused));
      await a.close();
      await b.close();
    } finally {
      await toOpen.stop();
      await toSecured.stop();
    }
  });

  test('a foreign Host or Origin gets 403 with a JSON-RPC body', async () => {
    const herald = await startHttpHerald(open.url, { env: { LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS: 'true' } });
    try {
      // fetch does not let a page set Host; use node:http for the forged Host.
      const { request } = await import('node:http');
      const url = new URL(herald.url);
      const forged = await new Promise((resolvePromise, reject) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: {
              Host: 'rebind.attacker.example',
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
          },
          (res) => {
            let body = '';
            res.on('data', (d) => { body += d; });
            res.on('end', () => resolvePromise({ status: res.statusCode, body: JSON.parse(body) }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(call));
      });
      assert.equal(forged.status, 403);
      assert.equal(forged.body.jsonrpc, '2.0');
      assert.match(forged.body.error.message, /Host/);

      const origin = await fetch(herald.url, {
        method: 'POST',
        headers: {
          origin: 'https://attacker.example',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(call),
      });
      assert.equal(origin.status, 403);
      assert.match((await origin.json()).error.message, /Origin/);
    } finally {
      await herald.stop();
    }
  });
});

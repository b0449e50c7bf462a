// End to end with the official TypeScript MCP SDK client, over stdio and
// over Streamable HTTP, against the sandbox Keeper in api_key mode:
// initialize, list tools/resources/prompts, read each resource, get the
// prompt, complete arguments, call every tool, a tool error, an unknown tool.
// With the defaults and, over stdio, with output schemas on (the SDK client
// then validates every structuredContent against the tool's outputSchema).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

import {
  TABLE, TOOL_NAMES, httpClient, startHttpHerald, startSandbox, stdioClient, textOf, toolCalls,
} from './helpers.js';

const RECORD_TEMPLATE = 'lorebase://{domain}/{kind}/{key}';
const LENS_TEMPLATE = 'lorebase://{domain}/lenses/{lens}';

for (const [transport, schemas] of [['stdio', false], ['http', false], ['stdio', true]]) {
  describe(`over ${transport}${schemas ? ' with output schemas' : ''}`, () => {
    let sandbox;
    let herald;
    let client;
    let calls;

    before(async () => {
      sandbox = await startSandbox('api_key');
      const key = sandbox.keys.usr_steward;
      const auth = { Authorization: `Bearer ${key}` };
      calls = await toolCalls(sandbox.url, auth);
      const env = schemas ? { LOREBASE__HERALD__OUTPUT__SCHEMAS: 'true' } : {};
      if (transport === 'stdio') {
        client = await stdioClient(sandbox.url, { env: { LOREBASE_API_KEY: key, ...env } });
      } else {
        herald = await startHttpHerald(sandbox.url, { env });
        client = await httpClient(herald.url, auth);
      }
    });

    after(async () => {
      await client?.close();
      await herald?.stop();
      await sandbox?.stop();
    });

    test('initialize names Herald and its capabilities', () => {
      const info = client.getServerVersion();
      assert.equal(info.name, 'lorebase-herald');
      assert.ok(info.version);
      const caps = client.getServerCapabilities();
      for (const cap of ['tools', 'resources', 'prompts', 'completions']) assert.ok(caps[cap], cap);
      assert.match(client.getInstructions() ?? '', /lorebase_context/);
    });

    test('tools are the table, with annotations and schemas', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
      for (const t of tools) {
        assert.equal(t.inputSchema.type, 'object', t.name);
        // Output schemas are opt-in (output.schemas).
        assert.equal(Boolean(t.outputSchema), schemas, t.name);
        assert.equal(t.annotations.readOnlyHint, t.name !== 'lorebase_execute', t.name);
      }
    });

    test('every tool answers, in text and in json', async () => {
      await client.listTools();
      for (const call of calls) {
        const text = await client.callTool({ name: call.tool, arguments: call.arguments });
        assert.equal(text.isError, false, `${call.tool}: ${textOf(text)}`);
        assert.ok(textOf(text).includes(call.expect), `${call.tool}: ${textOf(text)}`);
        // The text format: text alone by default; with output schemas, the
        // JSON shape as structuredContent beside the compact text.
        assert.equal(typeof text.structuredContent, schemas ? 'object' : 'undefined', call.tool);
        assert.ok(!textOf(text).startsWith('{'), call.tool);
        const json = await client.callTool({ name: call.tool, arguments: { ...call.arguments, format: 'json' } });
        assert.equal(json.isError, false, call.tool);
        assert.equal(typeof json.structuredContent, 'object', call.tool);
        assert.deepEqual(JSON.parse(textOf(json)), json.structuredContent, call.tool);
      }
    });

    test('a tool error is a result with isError', async () => {
      const spec = TABLE.tool_error;
      const r = await client.callTool({ name: spec.tool, arguments: spec.arguments });
      assert.equal(r.isError, true);
      assert.ok(textOf(r).startsWith(spec.expect_prefix), textOf(r));
      assert.match(textOf(r), /next:/);
    });

    test('an unknown tool is invalid params', async () => {
      await assert.rejects(
        client.callTool({ name: 'lorebase_nonexistent', arguments: {} }),
        (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams,
      );
    });

    test('resources: templates, list, reads', async () => {
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.deepEqual(
        resourceTemplates.map((t) => t.uriTemplate).sort(),
        ['lorebase://{domain}/schema', LENS_TEMPLATE, RECORD_TEMPLATE].sort(),
      );
      const { resources } = await client.listResources();
      assert.deepEqual(resources.map((r) => r.uri), ['lorebase://supply/schema']);
      const schema = await client.readResource({ uri: 'lorebase://supply/schema' });
      assert.match(schema.contents[0].text, /Supplier/);
      const lens = await client.readResource({ uri: 'lorebase://supply/lenses/sourcing' });
      assert.equal(lens.contents[0].mimeType, 'application/json');
      const body = JSON.parse(lens.contents[0].text);
      assert.equal(body.lens, 'sourcing');
      assert.ok(body.kinds.some((k) => k.name === 'Part'));
      const record = await client.readResource({ uri: 'lorebase://supply/Supplier/S-1001' });
      assert.match(record.contents[0].text, /Kavsen Alloys/);
      await assert.rejects(
        client.readResource({ uri: 'lorebase://supply/Supplier/S-9999' }),
        (e) => e instanceof McpError && e.code === -32002,
      );
    });

    test('the prompt lorebase_guide', async () => {
      const { prompts } = await client.listPrompts();
      assert.deepEqual(prompts.map((p) => p.name), ['lorebase_guide']);
      const got = await client.getPrompt({ name: 'lorebase_guide', arguments: { task: 'flag risky suppliers' } });
      const text = got.messages[0].content.text;
      assert.match(text, /flag risky suppliers/);
      assert.match(text, /`supply`/);
    });

    test('completion of template arguments', async () => {
      const kinds = await client.complete({
        ref: { type: 'ref/resource', uri: RECORD_TEMPLATE },
        argument: { name: 'kind', value: 'Pur' },
        context: { arguments: { domain: 'supply' } },
      });
      assert.deepEqual(kinds.completion.values, ['PurchaseOrder']);
      const keys = await client.complete({
        ref: { type: 'ref/resource', uri: RECORD_TEMPLATE },
        argument: { name: 'key', value: 'S-100' },
        context: { arguments: { domain: 'supply', kind: 'Supplier' } },
      });
      assert.ok(keys.completion.values.includes('S-1001'));
    });
  });
}

/**
 * Every MCP tool schema, hosted and local, holds standard JSON Schema only: Ajv in strict mode
 * (what model providers that refuse unknown keywords do) compiles each input and output schema.
 * A vendor keyword (the old `x-rule`) or a format of our own (`web-link`) fails here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { rpc } from '../fixtures/mcp.js';
import { startServer } from '../fixtures/server.js';
import { connectStdio } from './stdio.js';

type ToolSchema = { name: string; inputSchema: object; outputSchema?: object };

function compileStrict(tools: ToolSchema[], where: string): number {
  let compiled = 0;
  for (const tool of tools) {
    for (const [kind, schema] of [['input', tool.inputSchema], ['output', tool.outputSchema]] as const) {
      if (!schema) continue;
      const ajv = new Ajv2020({ strict: true, allErrors: true });
      (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
      assert.doesNotThrow(() => ajv.compile(schema), `${where} ${tool.name} ${kind} schema under Ajv strict`);
      compiled++;
    }
  }
  return compiled;
}

test('every hosted and local tool schema compiles under Ajv strict, and keeps its rules in the descriptions', async () => {
  const server = await startServer();
  const session = await connectStdio({ MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: server.seller.token });
  try {
    const hosted = (await rpc(server, 'tools/list')).body.result.tools as ToolSchema[];
    const local = (await session.client.listTools()).tools as ToolSchema[];
    assert.ok(hosted.length > 5 && local.length > hosted.length, `${hosted.length} hosted, ${local.length} local tools`);
    const count = compileStrict(hosted, 'hosted') + compileStrict(local, 'local');
    assert.ok(count >= 2 * (hosted.length + local.length) - 2, `${count} schemas compiled`);
    const text = JSON.stringify([hosted, local]);
    assert.doesNotMatch(text, /"x-rule"/);
    assert.doesNotMatch(text, /"format":"web-link"/);
    // What x-rule said is still said: the slug's rule in create_asset's description of slug.
    const create = hosted.find((tool) => tool.name === 'create_asset')!;
    assert.match(JSON.stringify(create.inputSchema), /lowercase letters, digits and hyphens/i);
  } finally {
    await session.close();
    await server.close();
  }
});

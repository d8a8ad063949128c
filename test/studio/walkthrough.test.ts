import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { curlWithJson } from '../fixtures/curl.js';
import { startServer } from '../fixtures/server.js';

const run = promisify(execFile);

test('the curl walk-through of docs/studio.md (docs/examples/studio-flow.sh) builds a board, moves a card, exports and imports', async (t) => {
  if (!(await curlWithJson(t))) return;
  const server = await startServer();
  try {
    const creator = await server.account({}, ['studio:read', 'studio:write']);
    const { stdout } = await run('bash', ['docs/examples/studio-flow.sh'], { env: { ...process.env, MARKETKIT_URL: server.url, MARKETKIT_TOKEN: creator.token } });
    assert.equal(
      stdout,
      [
        'to do: Fix the drawbridge, Raise the walls, Hang the gate, Fill the moat',
        'to do: Raise the walls, Hang the gate, Fill the moat',
        'doing: Fix the drawbridge',
        'lore',
        'imported: Castle Island (copy), 10 records',
        'copy columns: To do, Doing',
        '',
      ].join('\n'),
    );
  } finally {
    await server.close();
  }
});

// Regenerates what the typed clients take from the operations' declarations: client/operations.ts
// (the table marketkit/client's `operations` methods send, scripts/client-routes.ts) and
// docs/examples/typed-client/marketkit-api.d.ts (the types openapi-typescript makes from the OpenAPI
// document, which docs/examples/typed-client/upload-flow.ts is type-checked against). Tests hold
// both current. Run it after adding or changing an operation: node --import tsx scripts/typed-client-types.ts
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateOpenApi } from '../core/http/openapi.js';
import { clientRoutesSource } from './client-routes.js';

const root = new URL('../', import.meta.url).pathname;
writeFileSync(join(root, 'client/operations.ts'), clientRoutesSource());
const dir = mkdtempSync(join(tmpdir(), 'marketkit-types-'));
try {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(generateOpenApi('http://127.0.0.1')));
  const out = join(root, 'docs/examples/typed-client/marketkit-api.d.ts');
  execFileSync(process.execPath, [join(root, 'node_modules/openapi-typescript/bin/cli.js'), file, '-o', out], { cwd: root, stdio: 'inherit' });
} finally {
  rmSync(dir, { recursive: true, force: true });
}

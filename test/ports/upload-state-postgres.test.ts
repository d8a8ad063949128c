import assert from 'node:assert/strict';
import { after, describe } from 'node:test';
import { postgresUploadStates } from '../../adapters/postgres/index.js';
import { runUploadStateSuite } from '../../conformance/ports/upload-state.suite.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { needs } from '../fixtures/parts.js';

const { before, test } = needs('postgresql');

let cluster: PostgresCluster;
before(async () => {
  cluster = await startPostgres();
});
const opened: { close(): Promise<void> }[] = [];
after(async () => {
  await Promise.all(opened.map((store) => store.close()));
  await cluster?.stop();
});

describe('upload-state port: PostgreSQL', () => {
  runUploadStateSuite({
    test,
    check: (ok, what) => assert.ok(ok, what),
    create: async () => {
      const store = await postgresUploadStates({ url: await cluster.createDatabase(), poolSize: 2 });
      opened.push(store);
      return store;
    },
  });
});

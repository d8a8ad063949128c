import assert from 'node:assert/strict';
import { after, describe } from 'node:test';
import { postgresStorage, postgresUploadStates } from '../../adapters/postgres/index.js';
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
  describe('postgresUploadStates, a pool of its own', () => {
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
  describe("postgresStorage's uploadStates, on the storage's pool", () => {
    runUploadStateSuite({
      test,
      check: (ok, what) => assert.ok(ok, what),
      create: async () => {
        const storage = await postgresStorage({ url: await cluster.createDatabase(), poolSize: 2 });
        opened.push(storage);
        return storage.uploadStates;
      },
    });
  });
});

import assert from 'node:assert/strict';
import { after, describe } from 'node:test';
import { postgresStorage, postgresUploadStates } from '../../adapters/postgres/index.js';
import { runUploadStateSuite } from '../../conformance/ports/upload-state.suite.js';
import type { UploadStatePort } from '../../core/ports/upload-state.js';
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

/** The suite on each store `open` makes on a fresh database; `port` is its upload-state port. */
const suiteOn = <T extends { close(): Promise<void> }>(open: (url: string) => Promise<T>, port: (store: T) => UploadStatePort) =>
  runUploadStateSuite({
    test,
    check: (ok, what) => assert.ok(ok, what),
    create: async () => {
      const store = await open(await cluster.createDatabase());
      opened.push(store);
      return port(store);
    },
  });

describe('upload-state port: PostgreSQL', () => {
  describe('postgresUploadStates, a pool of its own', () => suiteOn((url) => postgresUploadStates({ url, poolSize: 2 }), (store) => store));
  describe("postgresStorage's uploadStates, on the storage's pool", () => suiteOn((url) => postgresStorage({ url, poolSize: 2 }), (storage) => storage.uploadStates));
});

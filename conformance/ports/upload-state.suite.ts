import type { UploadStatePort, UploadStateRecord } from '../../core/ports/upload-state.js';

type Test = (name: string, fn: () => Promise<void>) => unknown;
type Check = (ok: boolean, what: string) => void;

const record = (path: string, overrides: Partial<UploadStateRecord> = {}): UploadStateRecord => ({
  storage_path: path,
  length: 100,
  offset: 0,
  hash_state: null,
  sha256: null,
  store_upload_id: null,
  parts: [],
  store_key: null,
  expires_at: '2030-01-01T00:00:00.000Z',
  updated_at: '2029-12-31T00:00:00.000Z',
  ...overrides,
});

/**
 * The upload-state port's contract (core/ports/upload-state.ts), runner-agnostic: `test` is the
 * caller's, `check` fails the test with `what` when `ok` is false, `create` gives a fresh store.
 */
export function runUploadStateSuite({ test, check, create }: { test: Test; check: Check; create: () => Promise<UploadStatePort> }): void {
  test('create records once; get returns what was recorded', async () => {
    const store = await create();
    check(await store.create(record('a/1', { parts: [{ number: 1, etag: '"e1"', size: 5_242_880 }], store_key: 'a/1' })), 'the first create is true');
    check(!(await store.create(record('a/1', { offset: 50 }))), 'a second create of the same path is false');
    const got = await store.get('a/1');
    check(got?.offset === 0 && got.length === 100 && got.parts[0]?.etag === '"e1"', 'get returns the first record, parts included');
    check(got?.store_key === 'a/1', 'get returns the store key recorded');
    check((await store.get('a/none')) === null, 'an unknown path is null');
  });

  test('advance is a compare-and-set on the offset', async () => {
    const store = await create();
    await store.create(record('b/1'));
    await store.create(record('b/2', { store_key: 'b/2' }));
    const change = { offset: 40, hash_state: 'c3RhdGU=', sha256: null, parts: [], store_upload_id: null, store_key: 'b/1', updated_at: '2029-12-31T00:00:01.000Z' };
    check(await store.advance('b/1', 0, change), 'from the stored offset: applied');
    check(!(await store.advance('b/1', 0, { ...change, offset: 80 })), 'from a stale offset: refused');
    const got = await store.get('b/1');
    check(got?.offset === 40 && got.hash_state === 'c3RhdGU=' && got.store_key === 'b/1', 'the winning change is kept whole');
    check(await store.advance('b/2', 0, { ...change, store_key: null }), 'another upload advances');
    check((await store.get('b/2'))?.store_key === null, 'a change can set the store key back to null (the staging key)');
    check(!(await store.advance('b/none', 0, change)), 'a missing upload cannot advance');
  });

  test('one holder at a time holds the lease, until it lapses or is released', async () => {
    const store = await create();
    await store.create(record('c/1'));
    const [first, second] = await Promise.all([store.lease('c/1', 'one', 1000, 5000), store.lease('c/1', 'two', 1000, 5000)]);
    check(first !== second, 'exactly one of two concurrent callers wins');
    const winner = first ? 'one' : 'two';
    const loser = first ? 'two' : 'one';
    check(await store.lease('c/1', winner, 2000, 6000), 'the holder takes it again');
    check(!(await store.lease('c/1', loser, 5999, 9000)), 'another is refused while it lasts');
    check(await store.lease('c/1', loser, 6000, 9000), 'and takes it once it lapsed');
    await store.release('c/1', loser);
    check(await store.lease('c/1', winner, 6001, 9000), 'a released lease is free');
  });

  test('advance with a holder is fenced by the lease: only the holder of record moves the offset', async () => {
    const store = await create();
    await store.create(record('e/1'));
    const change = { offset: 30, hash_state: null, sha256: null, parts: [], store_upload_id: null, store_key: null, updated_at: '2029-12-31T00:00:01.000Z' };
    check(!(await store.advance('e/1', 0, change, 'one')), 'nobody holds the lease: refused');
    check(await store.lease('e/1', 'one', 1000, 2000), 'one takes the lease');
    check(!(await store.advance('e/1', 0, change, 'two')), 'another holder is refused');
    check(await store.lease('e/1', 'two', 2000, 5000), 'two takes the lapsed lease');
    check(!(await store.advance('e/1', 0, change, 'one')), 'the holder whose lease was taken is refused');
    check((await store.get('e/1'))?.offset === 0, 'and nothing moved');
    check(await store.advance('e/1', 0, change, 'two'), 'the holder of record advances');
    await store.release('e/1', 'two');
    check(!(await store.advance('e/1', 30, { ...change, offset: 60 }, 'two')), 'a released lease fences its holder too');
    check(await store.advance('e/1', 30, { ...change, offset: 60 }), 'without a holder, the offset alone decides (a single PUT)');
  });

  test('delete forgets; listExpired gives the expired, oldest first, within the limit', async () => {
    const store = await create();
    await store.create(record('d/late', { expires_at: '2030-01-03T00:00:00.000Z' }));
    await store.create(record('d/early', { expires_at: '2030-01-02T00:00:00.000Z' }));
    await store.create(record('d/live', { expires_at: '2030-02-01T00:00:00.000Z' }));
    const expired = await store.listExpired('2030-01-10T00:00:00.000Z', 10);
    check(expired.join() === 'd/early,d/late', `expired, oldest first (got ${expired.join()})`);
    check((await store.listExpired('2030-01-10T00:00:00.000Z', 1)).join() === 'd/early', 'within the limit');
    await store.delete('d/early');
    await store.delete('d/never');
    check((await store.get('d/early')) === null, 'a deleted upload is gone');
  });
}

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { as, type TestServer } from '../fixtures/server.js';
import { collectionPath, createOneOfEach, recordPath, studioBackends } from '../fixtures/studio.js';

const dense = (n: number) => Array.from({ length: n }, (_, i) => i);

for (const backend of studioBackends) {
  describe(`Creator Studio ordering on ${backend.name}`, () => {
    let server: TestServer;
    before(async () => {
      server = await backend.start();
    });
    after(() => server.close());

    test('a card created with a position goes there; without one it goes last', async () => {
      const client = as(server, server.seller.token);
      const made = await createOneOfEach(server, server.seller.token);
      const last = await client.post(collectionPath('card', made.column), { title: 'Last' });
      const top = await client.post(collectionPath('card', made.column), { title: 'Top', position: 0 });
      const titles = (await client.get(collectionPath('card', made.column))).body.data.map((c: { title: string; position: number }) => [c.position, c.title]);
      assert.deepStrictEqual(titles, [[0, 'Top'], [1, 'Raise the walls'], [2, 'Last']]);
      assert.equal(last.body.position, 1);
      assert.equal(top.body.position, 0);
    });

    test('moving a card within its column and to another keeps both columns in order', async () => {
      const client = as(server, server.seller.token);
      const made = await createOneOfEach(server, server.seller.token);
      const done = (await client.post(collectionPath('column', made.board), { name: 'Done' })).body;
      for (const title of ['B', 'C']) await client.post(collectionPath('card', made.column), { title });
      const list = async (column: string) => (await client.get(collectionPath('card', column))).body.data.map((c: { title: string }) => c.title);
      const moved = await client.post(`${recordPath('card', made.card)}/move`, { position: 2 });
      assert.deepStrictEqual([moved.status, moved.body.position], [200, 2]);
      assert.deepStrictEqual(await list(made.column), ['B', 'C', 'Raise the walls']);
      const across = await client.post(`${recordPath('card', made.card)}/move`, { column_id: done.id, position: 5 });
      assert.deepStrictEqual([across.status, across.body.column_id, across.body.position], [200, done.id, 0]);
      assert.deepStrictEqual(await list(made.column), ['B', 'C']);
      assert.deepStrictEqual(await list(done.id), ['Raise the walls']);
      const column = await client.post(`${recordPath('column', done.id)}/move`, { position: 0 });
      assert.equal(column.body.position, 0);
      assert.deepStrictEqual((await client.get(collectionPath('column', made.board))).body.data.map((c: { name: string }) => c.name), ['Done', 'To do']);
      assert.equal((await client.post(`${recordPath('card', made.card)}/move`, { column_id: made.board, position: 0 })).status, 404, 'a board is not a column');
    });

    test('concurrent moves of cards and columns leave every card once, at positions 0..n-1', async () => {
      const client = as(server, server.seller.token);
      const made = await createOneOfEach(server, server.seller.token);
      const columns = [made.column];
      for (const name of ['Doing', 'Review', 'Done']) columns.push((await client.post(collectionPath('column', made.board), { name })).body.id);
      const cards = [made.card];
      for (let i = 0; i < 23; i++) cards.push((await client.post(collectionPath('card', columns[i % 4]!), { title: `Task ${i}` })).body.id);
      const moves = dense(80).map((i) =>
        i % 10 === 9
          ? client.post(`${recordPath('column', columns[i % 4]!)}/move`, { position: (i * 3) % 4 })
          : client.post(`${recordPath('card', cards[(i * 7) % cards.length]!)}/move`, { column_id: columns[(i * 5) % 4], position: (i * 11) % 9 }),
      );
      for (const response of await Promise.all(moves)) assert.equal(response.status, 200, JSON.stringify(response.body));
      const columnList = (await client.get(collectionPath('column', made.board))).body.data;
      assert.deepStrictEqual(columnList.map((c: { position: number }) => c.position), dense(4));
      assert.deepStrictEqual(columnList.map((c: { id: string }) => c.id).sort(), [...columns].sort());
      const seen: string[] = [];
      for (const column of columns) {
        const listed = (await client.get(collectionPath('card', column))).body.data;
        assert.deepStrictEqual(listed.map((c: { position: number }) => c.position), dense(listed.length), `column ${column}`);
        for (const card of listed) assert.equal(card.column_id, column);
        seen.push(...listed.map((c: { id: string }) => c.id));
      }
      assert.deepStrictEqual(seen.sort(), [...cards].sort());
    });
  });
}

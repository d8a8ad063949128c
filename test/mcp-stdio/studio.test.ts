import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startServer } from '../fixtures/server.js';
import { callOk, connectStdio } from './stdio.js';

/** The document without what an import replaces (ids, times), references written as the record they name (`columns:Done`). */
function comparable(document: Record<string, any>) {
  const ids = new Map<string, string>();
  for (const [key, list] of Object.entries(document)) {
    if (Array.isArray(list)) for (const item of list) ids.set(item.id, `${key}:${item.name ?? item.title ?? item.code}`);
  }
  ids.set(document.project.id, 'project');
  const strip = (value: any): any => {
    if (Array.isArray(value)) return value.map(strip);
    if (typeof value === 'string') return ids.get(value) ?? value;
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).filter(([key]) => !['id', 'created_at', 'updated_at', 'exported_at'].includes(key)).map(([key, item]) => [key, strip(item)]));
    }
    return value;
  };
  // The document's order of records is not part of its meaning (positions are); sort each list.
  return Object.fromEntries(
    Object.entries(strip(document)).map(([key, value]) => [key, Array.isArray(value) ? value.map((item) => JSON.stringify(item)).sort() : value]),
  );
}

test('over stdio, Creator Studio: a project, a board with columns and cards, a move, a wiki page, export, and an import as a copy', async () => {
  const server = await startServer();
  const session = await connectStdio({ MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: server.seller.token });
  try {
    const { client } = session;
    const project = await callOk(client, 'create_project', { name: 'Neon Island', description: 'My Fortnite island' });
    const board = await callOk(client, 'create_board', { project_id: project.id, name: 'Launch' });
    const todo = await callOk(client, 'create_column', { board_id: board.id, name: 'To do' });
    const done = await callOk(client, 'create_column', { board_id: board.id, name: 'Done' });
    const cards = [];
    for (const title of ['Build the lobby', 'Write the Verse timer', 'Record the trailer']) cards.push(await callOk(client, 'create_card', { column_id: todo.id, title }));
    assert.deepEqual(cards.map((card) => card.position), [0, 1, 2]);

    const moved = await callOk(client, 'move_card', { card_id: cards[1].id, column_id: done.id, position: 0 });
    assert.equal(moved.column_id, done.id);
    const remaining = await callOk(client, 'list_cards', { column_id: todo.id });
    assert.deepEqual(remaining.data.map((card: any) => [card.title, card.position]), [['Build the lobby', 0], ['Record the trailer', 1]]);
    const doneCards = await callOk(client, 'list_cards', { column_id: done.id });
    assert.deepEqual(doneCards.data.map((card: any) => card.title), ['Write the Verse timer']);

    const page = await callOk(client, 'create_wiki_page', { project_id: project.id, title: 'Design notes', slug: 'design-notes', body: '# Lobby\nNeon signs everywhere.' });
    assert.equal((await callOk(client, 'get_wiki_page', { wiki_page_id: page.id })).body, '# Lobby\nNeon signs everywhere.');

    const exported = await callOk(client, 'export_project', { project_id: project.id });
    assert.equal(exported.format, 'marketkit.studio.project');
    assert.equal(exported.version, 1);
    const imported = await callOk(client, 'import_project', { document: exported, name: 'Neon Island (copy)' });
    const copyId = imported.id ?? imported.project?.id;
    assert.ok(copyId && copyId !== project.id, `a new project: ${JSON.stringify(imported).slice(0, 200)}`);
    const copy = await callOk(client, 'export_project', { project_id: copyId });
    assert.equal(copy.project.name, 'Neon Island (copy)');
    const { project: _original, ...originalContent } = comparable(exported);
    const { project: _copied, ...copiedContent } = comparable(copy);
    assert.deepEqual(copiedContent, originalContent, 'the copy holds the same boards, columns, cards (in order), and wiki page');
    const projects = await callOk(client, 'list_projects');
    assert.equal(projects.data.length, 2);
    assert.deepEqual(session.streamErrors, []);
  } finally {
    await session.close();
    await server.close();
  }
});

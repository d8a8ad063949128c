import { Type } from '@sinclair/typebox';
import { CategorySchema } from '../schemas/asset.js';
import { Strict } from '../schemas/common.js';
import { defineOperation } from './context.js';
import { reads } from './declaration.js';
import { categoryView } from '../views.js';

export const listCategories = defineOperation({
  name: 'listCategories',
  rest: { method: 'GET', path: '/categories', tag: 'Categories' },
  tool: {
    name: 'list_categories',
    title: 'List categories',
    description: 'The categories a listing can be filed under. Pass a category id as category_id to create_asset or update_asset.',
    annotations: reads,
  },
  readsStorageOnly: true,
  summary: 'List the categories a listing can be filed under',
  scope: 'assets:read',
  errors: [],
  requestClass: 'read',
  input: Type.Object({}, { additionalProperties: false }),
  output: Strict({ data: Type.Array(CategorySchema) }, { $id: 'CategoryList' }),
  async run(ctx) {
    return { data: (await ctx.ports.storage.listCategories()).map(categoryView) };
  },
});

/** The family's operations, in the order REST lists them and MCP offers their tools. */
export const categoryOperations = [listCategories];

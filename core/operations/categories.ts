import { Type } from '@sinclair/typebox';
import { CategorySchema } from '../schemas/asset.js';
import { Strict } from '../schemas/common.js';
import { defineOperation } from './context.js';
import { categoryView } from '../views.js';

export const listCategories = defineOperation({
  name: 'listCategories',
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

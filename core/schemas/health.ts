import { Type } from '@sinclair/typebox';
import { Strict, StringEnum } from './common.js';

const Check = StringEnum(['ok', 'error'] as const);

export const HealthSchema = Strict(
  {
    status: StringEnum(['ok', 'degraded'] as const),
    version: Type.String(),
    checks: Strict({ storage: Check, blobs: Check }),
  },
  { $id: 'Health' },
);

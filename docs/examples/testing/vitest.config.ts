// Vitest configuration of the example: `npx vitest run --config docs/examples/testing/vitest.config.ts`
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.vitest.test.ts'],
  },
});
